/**
 * The process-exit safety net: a host that exits (or crashes) while a run still holds its
 * materialized inputs leaves no directory behind.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { transpileSources } from "../process/helpers.js";

describe("exit safety net", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "input-exit-test-"));
    const inputFiles = (await readdir(new URL("../../src/input/", import.meta.url))).filter((f) => f.endsWith(".ts"));
    await transpileSources(dir, ["src/errors/index.ts", ...inputFiles.map((f) => `src/input/${f}`)]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function host(ending: string): Promise<{ code: number | null; runDir: string; live: number }> {
    const script = `
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
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
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
});
