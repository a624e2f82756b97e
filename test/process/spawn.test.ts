import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { AdaptorError } from "../../src/errors/index.js";
import { buildChildEnv, liveProcessCount, readJsonLines, spawnProcess, TailBuffer, type ProcessHandle } from "../../src/process/index.js";
import { firstLine, isAlive, STUBBORN_PARENT } from "./helpers.js";

const node = process.execPath;

async function output(handle: ProcessHandle): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of handle.stdout) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe("spawnProcess", () => {
  it("runs a child with piped stdio and reports its exit", async () => {
    const child = await spawnProcess({ command: node, args: ["-e", "process.stdin.pipe(process.stdout)"] });
    expect(child.pid).toBeGreaterThan(0);
    child.stdin.end("hello\n");
    expect(await output(child)).toBe("hello\n");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.exitStatus).toEqual({ code: 0, signal: null });
    await child.stop();
  });

  it("rejects promptly with executable_not_found for a missing executable", async () => {
    const err = await spawnProcess({ command: "/nonexistent/definitely-not-a-provider-cli" }).catch((e: unknown) => e);
    expect(AdaptorError.is(err)).toBe(true);
    expect(err).toMatchObject({ code: "executable_not_found", executable: "/nonexistent/definitely-not-a-provider-cli" });
    expect((err as Error).message).not.toContain("/nonexistent");
    await expect(spawnProcess({ command: "definitely-not-a-provider-cli-on-path" })).rejects.toMatchObject({ code: "executable_not_found" });
  });

  describe("with a file that is not executable", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "spawn-test-"));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it.skipIf(process.platform === "win32")("rejects with executable_not_found (EACCES)", async () => {
      const file = join(dir, "not-executable.sh");
      await writeFile(file, "#!/bin/sh\necho hi\n");
      await chmod(file, 0o644);
      await expect(spawnProcess({ command: file })).rejects.toMatchObject({ code: "executable_not_found" });
    });

    it("rejects a missing working directory as a configuration error", async () => {
      await expect(spawnProcess({ command: node, args: ["-e", ""], cwd: join(dir, "missing") })).rejects.toMatchObject({ code: "config_invalid" });
    });
  });

  it("gives the child a scrubbed environment", async () => {
    const name = "SPAWN_TEST_SECRET_TOKEN";
    process.env[name] = "parent-only-value";
    process.env.SPAWN_TEST_PLAIN = "plain";
    try {
      const script = `process.stdout.write(JSON.stringify(process.env))`;
      const scrubbed = await spawnProcess({ command: node, args: ["-e", script], env: { EXPLICIT_VAR: "given" } });
      const env = JSON.parse(await output(scrubbed)) as Record<string, string>;
      await scrubbed.stop();
      expect(env[name]).toBeUndefined();
      expect(env.SPAWN_TEST_PLAIN).toBeUndefined();
      expect(env.EXPLICIT_VAR).toBe("given");
      if (process.env.PATH !== undefined) expect(env.PATH).toBe(process.env.PATH);

      const allowed = await spawnProcess({ command: node, args: ["-e", script], inheritEnv: [name] });
      const env2 = JSON.parse(await output(allowed)) as Record<string, string>;
      await allowed.stop();
      expect(env2[name]).toBe("parent-only-value");
      expect(env2.SPAWN_TEST_PLAIN).toBeUndefined();
    } finally {
      delete process.env[name];
      delete process.env.SPAWN_TEST_PLAIN;
    }
  });

  it("stops a child that ignores SIGTERM together with its grandchild", async () => {
    const before = liveProcessCount();
    const child = await spawnProcess({ command: node, args: ["-e", STUBBORN_PARENT] });
    expect(liveProcessCount()).toBe(before + 1);
    const pids = JSON.parse(await firstLine(child.stdout)) as { child: number; grandchild: number };
    expect(pids.child).toBe(child.pid);
    expect(isAlive(pids.child)).toBe(true);
    expect(isAlive(pids.grandchild)).toBe(true);

    await child.stop({ graceMs: 200 });

    expect(isAlive(pids.child)).toBe(false);
    expect(isAlive(pids.grandchild)).toBe(false);
    expect((await child.exited).signal).toBe("SIGKILL");
    expect(liveProcessCount()).toBe(before);
  });

  it("stop is idempotent and lets a cooperative child exit on its own", async () => {
    // Exits at end of input, before any signal matters.
    const child = await spawnProcess({ command: node, args: ["-e", "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));"] });
    const first = child.stop();
    const second = child.stop();
    expect(second).toBe(first);
    await Promise.all([first, second, child.stop()]);
    expect(isAlive(child.pid)).toBe(false);
    await child.stop();
  });

  it("keeps a bounded, redacted stderr tail", async () => {
    const secret = "sk-ant-api03-SUPERSECRETVALUE1234567890";
    const script = `
      const line = "x".repeat(99) + "\\n";
      for (let i = 0; i < 2000; i++) process.stderr.write(line);
      process.stderr.write("key ${secret} and " + process.env.MY_SERVICE_TOKEN + "\\n");
      process.stderr.write("last line\\n");
    `;
    const child = await spawnProcess({
      command: node,
      args: ["-e", script],
      env: { MY_SERVICE_TOKEN: "explicit-token-value" },
      stderrTailBytes: 4096,
    });
    await child.exited;
    // The tail is complete once stop() resolved, even if the child exited first.
    await child.stop();
    const tail = child.stderrTail();
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(4096);
    expect(tail.endsWith("last line\n")).toBe(true);
    expect(tail).toContain("[REDACTED]");
    expect(tail).not.toContain(secret);
    expect(tail).not.toContain("explicit-token-value");
  });

  it("drains stderr so a chatty child never blocks", async () => {
    const child = await spawnProcess({
      command: node,
      args: ["-e", "const b = 'e'.repeat(1 << 16); for (let i = 0; i < 64; i++) process.stderr.write(b); console.log('{\"done\":true}')"],
    });
    const lines = [];
    for await (const line of readJsonLines(child.stdout)) lines.push(line);
    expect(lines).toEqual([{ kind: "json", value: { done: true } }]);
    await child.stop();
    expect(child.stderrTail().length).toBeLessThanOrEqual(64 * 1024);
  });
});

describe("TailBuffer", () => {
  it("holds at most its limit and drops the cut first line once truncated", () => {
    const tail = new TailBuffer(10);
    tail.push("abc\n");
    expect(tail.text()).toBe("abc\n");
    tail.push("defgh\nij");
    expect(tail.size).toBe(10);
    expect(tail.truncated).toBe(true);
    // Held: "c\ndefgh\nij"; the cut line "c" is dropped.
    expect(tail.text()).toBe("defgh\nij");
    tail.push(Buffer.alloc(100, 0x7a));
    expect(tail.size).toBe(10);
    expect(tail.text()).toBe("");
  });

  it("keeps the first line whole when the cut falls on a line boundary", () => {
    const tail = new TailBuffer(8);
    tail.push("1234\n");
    tail.push("abc\n");
    tail.push("xyz\n");
    expect(tail.truncated).toBe(true);
    expect(tail.text()).toBe("abc\nxyz\n");
    tail.push("0123456\n8901234\n");
    expect(tail.text()).toBe("8901234\n");
  });
});

describe("buildChildEnv", () => {
  it("keeps the allowlist and LC_* only, then applies inheritEnv and explicit values", () => {
    const parent = { PATH: "/bin", HOME: "/h", LC_ALL: "C", OPENAI_API_KEY: "k", RANDOM: "r", DROP_ME: "x" };
    expect(buildChildEnv(parent, { platform: "linux" })).toEqual({ PATH: "/bin", HOME: "/h", LC_ALL: "C" });
    expect(buildChildEnv(parent, { platform: "linux", inheritEnv: ["OPENAI_API_KEY"], env: { HOME: "/other", NEW: "n", LC_ALL: undefined } })).toEqual({
      PATH: "/bin",
      HOME: "/other",
      OPENAI_API_KEY: "k",
      NEW: "n",
    });
  });

  it("matches names case-insensitively on Windows", () => {
    const parent = { Path: "C:\\bin", SYSTEMROOT: "C:\\Windows", Secret: "s" };
    expect(buildChildEnv(parent, { platform: "win32", env: { PATH: "D:\\bin" } })).toEqual({ PATH: "D:\\bin", SYSTEMROOT: "C:\\Windows" });
  });
});
