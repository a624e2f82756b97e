import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { readJsonLines, spawnProcess, type JsonLine } from "../../src/process/index.js";
import { firstLine, isAlive, STUBBORN_PARENT, transpileSources } from "./helpers.js";

describe("reaping on host exit", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "reap-test-"));
    const processFiles = (await readdir(new URL("../../src/process/", import.meta.url))).filter((f) => f.endsWith(".ts"));
    await transpileSources(dir, ["src/errors/index.ts", "src/errors/codes.ts", "src/redact/redact.ts", "src/redact/clip.ts", ...processFiles.map((f) => `src/process/${f}`)]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("SIGKILLs every live group when the host process exits", async () => {
    // A host that starts a stubborn child (which starts a grandchild), reports their pids and exits
    // without stopping anything.
    const host = `
      import { spawnProcess, liveProcessCount } from ${JSON.stringify(join(dir, "src/process/index.js"))};
      const child = await spawnProcess({ command: process.execPath, args: ["-e", ${JSON.stringify(STUBBORN_PARENT)}] });
      let buffered = "";
      child.stdout.on("data", (chunk) => {
        buffered += chunk;
        if (!buffered.includes("\\n")) return;
        const pids = JSON.parse(buffered.slice(0, buffered.indexOf("\\n")));
        process.stdout.write(JSON.stringify({ ...pids, live: liveProcessCount() }) + "\\n");
        process.exit(0);
      });
    `;
    const proc = spawn(process.execPath, ["--input-type=module", "-e", host], { stdio: ["ignore", "pipe", "inherit"] });
    const report = JSON.parse(await firstLine(proc.stdout)) as { child: number; grandchild: number; live: number };
    const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
    expect(code).toBe(0);
    expect(report.live).toBe(1);
    // SIGKILL is delivered asynchronously and the host is gone, so wait for its effect.
    await expect.poll(() => isAlive(report.child), { timeout: 10_000 }).toBe(false);
    await expect.poll(() => isAlive(report.grandchild), { timeout: 10_000 }).toBe(false);
  });
});

describe("reaping when the host dies of a signal", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "reap-signal-test-"));
    const processFiles = (await readdir(new URL("../../src/process/", import.meta.url))).filter((f) => f.endsWith(".ts"));
    await transpileSources(dir, ["src/errors/index.ts", "src/errors/codes.ts", "src/redact/redact.ts", "src/redact/clip.ts", ...processFiles.map((f) => `src/process/${f}`)]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(["SIGTERM", "SIGINT"] as const)("a host without its own %s handler still dies of it, and its groups go with it", async (signal) => {
    const host = `
      import { spawnProcess } from ${JSON.stringify(join(dir, "src/process/index.js"))};
      const child = await spawnProcess({ command: process.execPath, args: ["-e", ${JSON.stringify(STUBBORN_PARENT)}] });
      let buffered = "";
      child.stdout.on("data", (chunk) => {
        buffered += chunk;
        if (buffered.includes("\\n")) process.stdout.write(buffered.slice(0, buffered.indexOf("\\n") + 1));
      });
      setInterval(() => {}, 1000);
    `;
    const proc = spawn(process.execPath, ["--input-type=module", "-e", host], { stdio: ["ignore", "pipe", "inherit"] });
    const report = JSON.parse(await firstLine(proc.stdout)) as { child: number; grandchild: number };
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.once("exit", (_code, sig) => resolve(sig)));
    proc.kill(signal);
    expect(await exited).toBe(signal);
    await expect.poll(() => isAlive(report.child), { timeout: 10_000 }).toBe(false);
    await expect.poll(() => isAlive(report.grandchild), { timeout: 10_000 }).toBe(false);
  });
});

describe("backpressure and bounds with a real child", () => {
  it("a paused consumer blocks the child instead of buffering its output", async () => {
    // 64 MiB of lines, far more than pipe and stream buffers hold, written the way a well-behaved
    // CLI writes: each block only once the previous one reached the pipe. The child can therefore
    // only report "finished" once (nearly) everything was read.
    const script = `
      const line = JSON.stringify({ pad: "p".repeat(1000) }) + "\\n";
      const block = line.repeat(64);
      (async () => {
        for (let i = 0; i < 1024; i++) await new Promise((resolve) => process.stdout.write(block, resolve));
        process.stderr.write("finished\\n");
      })();
    `;
    const child = await spawnProcess({ command: process.execPath, args: ["-e", script] });
    try {
      const lines = readJsonLines(child.stdout);
      const first = await lines.next();
      expect(first.value).toMatchObject({ kind: "json" });
      // Whatever the delay, a working pipeline cannot let the child finish while nothing is read.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(child.exitStatus).toBeUndefined();
      expect(child.stderrTail()).not.toContain("finished");
      let count = 1;
      for await (const item of lines) {
        expect(item.kind).toBe("json");
        count++;
      }
      expect(count).toBe(64 * 1024);
      expect((await child.exited).code).toBe(0);
    } finally {
      await child.stop();
    }
    expect(child.stderrTail()).toContain("finished");
  });

  it("reports an oversized frame from a child and resumes at the next line", async () => {
    const script = `
      process.stdout.write('{"before":1}\\n');
      const chunk = "x".repeat(1 << 16);
      for (let i = 0; i < 64; i++) process.stdout.write(chunk); // 4 MiB without a newline
      process.stdout.write('\\n{"after":2}\\n');
    `;
    const child = await spawnProcess({ command: process.execPath, args: ["-e", script] });
    const items: JsonLine[] = [];
    for await (const item of readJsonLines(child.stdout, { maxLineBytes: 1 << 20 })) items.push(item);
    await child.stop();
    expect(items.map((i) => (i.kind === "json" ? i.value : i.error.code))).toEqual([{ before: 1 }, "frame_too_large", { after: 2 }]);
  });
});
