/**
 * bash with real processes: exit codes, merged output, streaming, the output cap, the timeout and
 * a cancel that kill the whole process group (checked by pid), background jobs stopped when the
 * command ends, stdin closed and the environment scrubbed.
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { bashTool } from "../../../../src/drivers/openai/tools/bash.js";
import { liveProcessCount } from "../../../../src/process/index.js";
import { call, sandbox } from "./helpers.js";

/** Whether `pid` is a running (not zombie) process. */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    const state = readFileSync(stat, "latin1");
    return !/^[ZX]/.test(state.slice(state.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

async function pidFrom(workspace: string, name: string): Promise<number> {
  return Number((await readFile(join(workspace, name), "utf8")).trim());
}

afterEach(() => {
  expect(liveProcessCount()).toBe(0);
});

describe("bash", () => {
  it("returns merged stdout and stderr in order, the exit code, and runs in the workspace", async () => {
    const { workspace } = await sandbox();
    const ok = await call(bashTool(), workspace, { command: "echo out; echo err >&2; pwd" });
    expect(ok).toEqual({ output: `out\nerr\n${workspace}\n`, isError: false, command: "echo out; echo err >&2; pwd", exitCode: 0 });
    const failed = await call(bashTool(), workspace, { command: "echo nope; exit 3" });
    expect(failed).toEqual({ output: "nope\n[exit code 3]", isError: true, command: "echo nope; exit 3", exitCode: 3 });
    const syntax = await call(bashTool(), workspace, { command: "if then" });
    expect(syntax.isError).toBe(true);
    expect(syntax.output).toMatch(/syntax error/);
  });

  it("streams output as it comes and says when there was none", async () => {
    const { workspace } = await sandbox();
    const chunks: string[] = [];
    const out = await call(bashTool(), workspace, { command: "printf 'a\\n'; sleep 0.1; printf 'é\\n' >&2" }, { onOutput: (c) => chunks.push(c) });
    expect(chunks.join("")).toBe("a\né\n");
    expect(out.output).toBe("a\né\n");
    expect((await call(bashTool(), workspace, { command: "true" })).output).toBe("(no output)");
  });

  it("keeps the start and the end of output past the cap", async () => {
    const { workspace } = await sandbox();
    const tool = bashTool({ outputCapBytes: 1000 });
    const out = await call(tool, workspace, { command: "echo FIRST; seq 1 20000; echo LAST" });
    expect(out.exitCode).toBe(0);
    expect(out.output.startsWith("FIRST\n1\n")).toBe(true);
    expect(out.output.endsWith("20000\nLAST\n")).toBe(true);
    expect(out.output).toMatch(/\[\.\.\. \d+ bytes of output omitted \.\.\.\]/);
    expect(Buffer.byteLength(out.output)).toBeLessThan(1100);
  });

  it("kills the command and every process it started at the timeout", async () => {
    const { workspace } = await sandbox();
    const out = await call(bashTool({ timeoutMs: 60_000 }), workspace, { command: "echo $$ > leader.pid; sleep 60 & echo $! > child.pid; echo started; wait", timeout: 3000 });
    expect(out.isError).toBe(true);
    expect(out.exitCode).toBeUndefined();
    expect(out.output).toBe("started\n[timed out after 3000 ms: the command and its processes were killed]");
    expect(running(await pidFrom(workspace, "leader.pid"))).toBe(false);
    expect(running(await pidFrom(workspace, "child.pid"))).toBe(false);
  });

  it("a cancel kills the process group at once", async () => {
    const { workspace } = await sandbox();
    const controller = new AbortController();
    const out = await call(bashTool(), workspace, { command: "sleep 60 & echo $! > child.pid; echo started; wait" }, {
      signal: controller.signal,
      onOutput: (chunk) => {
        if (chunk.includes("started")) controller.abort();
      },
    });
    expect(out.output).toBe("started\n[cancelled: the command and its processes were killed]");
    expect(out.isError).toBe(true);
    expect(running(await pidFrom(workspace, "child.pid"))).toBe(false);
    const early = await call(bashTool(), workspace, { command: "touch ran" }, { signal: AbortSignal.abort() });
    expect(early.output).toBe("cancelled before it started");
    expect(existsSync(join(workspace, "ran"))).toBe(false);
  });

  it("stops background jobs left behind when the command ends", async () => {
    const { workspace } = await sandbox();
    const out = await call(bashTool(), workspace, { command: "sleep 60 & echo $! > bg.pid; echo done" });
    expect(out).toMatchObject({ output: "done\n", exitCode: 0 });
    expect(running(await pidFrom(workspace, "bg.pid"))).toBe(false);
  });

  it("closes stdin and passes only the allowlisted environment", async () => {
    const { workspace } = await sandbox();
    process.env.OTOOLS_TEST_SECRET = "hunter2";
    try {
      const out = await call(bashTool(), workspace, { command: "cat; echo \"secret=${OTOOLS_TEST_SECRET:-unset} path=${PATH:+set}\"" });
      expect(out.output).toBe("secret=unset path=set\n");
    } finally {
      delete process.env.OTOOLS_TEST_SECRET;
    }
  });

  it("refuses invalid arguments and asks for command approval", async () => {
    const { workspace } = await sandbox();
    const tool = bashTool();
    expect((await call(tool, workspace, {})).output).toMatch(/^invalid arguments for bash: command:/);
    expect((await call(tool, workspace, { command: "true", timeout: 10_000_000 })).output).toMatch(/timeout:/);
    expect([tool.kind, tool.approval, tool.title({ command: "npm   test\n--watch" })]).toEqual(["command", "command", "npm test --watch"]);
  });
});
