/**
 * A provider process's own directory (createOwnedDirectory): 0700, removed by its owner, by the
 * host's exit safety net when the host dies of a terminating signal, and swept at the next start
 * when the host was SIGKILLed while the process ran.
 */
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { STALE_MIN_AGE_MS, liveInputDirectoryCount, sweepStaleInputDirectories } from "../../src/input/index.js";
import { createOwnedDirectory } from "../../src/input/process-directory.js";
import { firstLine, transpileSources } from "../process/helpers.js";

describe("a provider process's own directory", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "process-directory-test-"));
    const sourcesOf = async (folder: string) => (await readdir(new URL(`../../src/${folder}/`, import.meta.url))).filter((f) => f.endsWith(".ts")).map((f) => `src/${folder}/${f}`);
    await transpileSources(dir, [...(await sourcesOf("errors")), "src/process/host-exit.ts", ...(await sourcesOf("input"))]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is 0700, and its owner's remove() deletes it once and forgets it", async () => {
    const before = liveInputDirectoryCount();
    const owned = await createOwnedDirectory();
    expect(statSync(owned.path).mode & 0o777).toBe(0o700);
    expect(liveInputDirectoryCount()).toBe(before + 1);
    await Promise.all([owned.remove(), owned.remove()]);
    expect(existsSync(owned.path)).toBe(false);
    expect(liveInputDirectoryCount()).toBe(before);
  });

  /** A host holding a process directory, idle until killed. */
  async function idleHost(): Promise<{ path: string; kill(signal: NodeJS.Signals): Promise<NodeJS.Signals | null> }> {
    const script = `
      import { createOwnedDirectory } from ${JSON.stringify(join(dir, "src/input/process-directory.js"))};
      const owned = await createOwnedDirectory();
      process.stdout.write(JSON.stringify({ path: owned.path }) + "\\n");
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    const { path } = JSON.parse(await firstLine(child.stdout)) as { path: string };
    return {
      path,
      kill: (signal) => {
        child.kill(signal);
        return exited;
      },
    };
  }

  it("is removed when the host dies of SIGTERM", async () => {
    const host = await idleHost();
    expect(existsSync(host.path)).toBe(true);
    expect(await host.kill("SIGTERM")).toBe("SIGTERM");
    expect(existsSync(host.path)).toBe(false);
  });

  it("is swept after the host was SIGKILLed, once old enough", async () => {
    const host = await idleHost();
    expect(await host.kill("SIGKILL")).toBe("SIGKILL");
    expect(existsSync(host.path)).toBe(true);
    const old = (Date.now() - STALE_MIN_AGE_MS - 1000) / 1000;
    await utimes(host.path, old, old);
    expect(await sweepStaleInputDirectories()).toBeGreaterThanOrEqual(1);
    expect(existsSync(host.path)).toBe(false);
  });
});
