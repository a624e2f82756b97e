/**
 * The process-exit safety net: a host that exits, crashes or dies of a terminating signal while a
 * run still holds its materialized inputs leaves no directory behind; one killed by SIGKILL has
 * its directory swept by the next start.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAgent } from "../../src/agent/agent.js";
import { STALE_MIN_AGE_MS, sweepStaleInputDirectories } from "../../src/input/index.js";
import { fakeDriver } from "../../src/testing/fake-driver/driver.js";
import { firstLine, transpileSources } from "../process/helpers.js";

describe("exit safety net", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "input-exit-test-"));
    const sourcesOf = async (folder: string) => (await readdir(new URL(`../../src/${folder}/`, import.meta.url))).filter((f) => f.endsWith(".ts")).map((f) => `src/${folder}/${f}`);
    await transpileSources(dir, [...(await sourcesOf("errors")), "src/process/host-exit.ts", ...(await sourcesOf("input"))]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function hostScript(ending: string): string {
    return `
      import { Readable } from "node:stream";
      import { dirname } from "node:path";
      import { input, materializeInputs, liveInputDirectoryCount } from ${JSON.stringify(join(dir, "src/input/index.js"))};
      const ref = input.fromOpener("file", "a.txt", () => Readable.from([Buffer.from("held by a run")]));
      const result = await materializeInputs([ref], {
        driverId: "d",
        capabilities: { image: { modes: [] }, file: { modes: ["native"] }, audio: { modes: [] } },
        signal: new AbortController().signal,
      });
      process.stdout.write(JSON.stringify({ runDir: dirname(result.inputs[0].localPath), live: liveInputDirectoryCount() }) + "\\n");
      ${ending}
    `;
  }

  async function host(ending: string): Promise<{ code: number | null; runDir: string; live: number }> {
    const child = spawn(process.execPath, ["--input-type=module", "-e", hostScript(ending)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.resume();
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    const report = JSON.parse(out.split("\n")[0]!) as { runDir: string; live: number };
    return { code, ...report };
  }

  it("removes live run directories when the host calls process.exit()", async () => {
    const { code, runDir, live } = await host("process.exit(0);");
    expect(code).toBe(0);
    expect(live).toBe(1);
    expect(runDir).toContain("agent-adaptor-inputs-");
    expect(existsSync(runDir)).toBe(false);
  });

  it("removes them when the host crashes with an uncaught exception", async () => {
    const { code, runDir } = await host('setTimeout(() => { throw new Error("host crash"); }, 0);');
    expect(code).toBe(1);
    expect(existsSync(runDir)).toBe(false);
  });

  it("removes them when the event loop simply drains", async () => {
    const { code, runDir } = await host("");
    expect(code).toBe(0);
    expect(existsSync(runDir)).toBe(false);
  });

  /** A host that holds a run directory and idles until killed; resolves once it reported the directory. */
  async function idleHost(): Promise<{ runDir: string; kill(signal: NodeJS.Signals): Promise<NodeJS.Signals | null> }> {
    const child = spawn(process.execPath, ["--input-type=module", "-e", hostScript("setInterval(() => {}, 1000);")], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    const { runDir } = JSON.parse(await firstLine(child.stdout)) as { runDir: string };
    return {
      runDir,
      kill: (signal) => {
        child.kill(signal);
        return exited;
      },
    };
  }

  it.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)("removes them when a host without handlers dies of %s, and it still dies of it", async (signal) => {
    const host = await idleHost();
    expect(existsSync(host.runDir)).toBe(true);
    expect(await host.kill(signal)).toBe(signal);
    expect(existsSync(host.runDir)).toBe(false);
  });

  it("sweeps the directory of a SIGKILLed host at the next agent start, once it is old enough", async () => {
    const host = await idleHost();
    expect(await host.kill("SIGKILL")).toBe("SIGKILL");
    expect(existsSync(host.runDir)).toBe(true);
    // Too young: left alone.
    expect(await sweepStaleInputDirectories()).toBe(0);
    expect(existsSync(host.runDir)).toBe(true);
    const old = (Date.now() - STALE_MIN_AGE_MS - 1000) / 1000;
    await utimes(host.runDir, old, old);
    const agent = createAgent(fakeDriver());
    try {
      await expect.poll(() => existsSync(host.runDir), { timeout: 10_000 }).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it("never sweeps a directory whose owner is alive, however old", async () => {
    const host = await idleHost();
    try {
      const old = (Date.now() - 24 * 3600_000) / 1000;
      await utimes(host.runDir, old, old);
      expect(await sweepStaleInputDirectories()).toBe(0);
      expect(existsSync(host.runDir)).toBe(true);
    } finally {
      await host.kill("SIGTERM");
    }
    expect(existsSync(host.runDir)).toBe(false);
  });
});
