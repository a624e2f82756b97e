/**
 * Edges of the stream-json family (Claude Code and CodeBuddy) against the fake CLI: a JSON object
 * without `type` is reported as a `malformed_frame` notice like on the other drivers, and a CLI
 * that does not answer `initialize` in time is stopped before the run rejects.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { RunFailedError } from "../../src/errors/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { collect, ofType } from "./helpers.js";
import { installFakeCli, type FakeCli, type FakeDialect } from "./fake-cli/install.js";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A wrapper of the installed fake that records its pid before Node starts (a CLI stopped at once
 * may never get to log its spawn) and then execs the fake in the same process.
 */
function pidRecordingWrapper(fake: FakeCli): { executable: string; pids: () => number[] } {
  const pidFile = join(fake.root, "wrapper-pids");
  const executable = join(fake.root, "bin", "pid-recording-cli");
  const script = join(fake.root, "bin", "fake-cli.mjs");
  writeFileSync(executable, `#!/bin/sh\necho $$ >> ${JSON.stringify(pidFile)}\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(script)} "$@"\n`);
  chmodSync(executable, 0o755);
  const pids = () => (existsSync(pidFile) ? readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number) : []);
  return { executable, pids };
}

const dialects: { name: FakeDialect; make: typeof claude | typeof codebuddy; keyEnv: string }[] = [
  { name: "claude", make: claude, keyEnv: "ANTHROPIC_API_KEY" },
  { name: "codebuddy", make: codebuddy, keyEnv: "CODEBUDDY_API_KEY" },
];

for (const dialect of dialects) {
  describe(`${dialect.name}: edges`, () => {
    let fake: FakeCli;
    beforeAll(async () => {
      fake = await installFakeCli(dialect.name);
    });
    afterAll(() => fake.cleanup());
    const driverFor = (scenario = "normal", overrides: { executable?: string; initializeTimeoutMs?: number } = {}) =>
      dialect.make({
        executable: overrides.executable ?? fake.executable,
        configDir: fake.configDir,
        ...(overrides.initializeTimeoutMs === undefined ? {} : { initializeTimeoutMs: overrides.initializeTimeoutMs }),
        env: { FAKE_CLI_LOG: fake.logFile, FAKE_CLI_SCENARIO: scenario, [dialect.keyEnv]: "sk-fake-edges-key-0123456789" },
      });

    it("reports a JSON object without type as one malformed_frame notice and finishes the turn", async () => {
      const agent = createAgent(driverFor(), { workspace: fake.workspace });
      try {
        const events = await collect(agent.stream("[[untyped]] hello"));
        expect(ofType(events, "notice")).toMatchObject([{ level: "warning", code: "malformed_frame", count: 1 }]);
        expect(events.filter((e) => e.type === "run.failed")).toEqual([]);
        expect(events.at(-1)!.type).toBe("run.completed");
      } finally {
        await agent.close();
      }
    });

    it("stops a CLI whose initialize timed out before the run rejects with timeout, before delivery", async () => {
      const wrapper = pidRecordingWrapper(fake);
      const driver = driverFor("hang-init", { executable: wrapper.executable, initializeTimeoutMs: 200 });
      const agent = createAgent(driver, { workspace: fake.workspace });
      try {
        const error = await agent.run("hello").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RunFailedError);
        expect(error).toMatchObject({ code: "timeout", retryable: true, phase: "before_delivery" });
        expect((error as Error).message).toMatch(/did not answer initialize within 200 ms \(initializeTimeoutMs\)/);
        // Reaped by the time the run rejected, not only when the agent closes.
        expect(driver.livePids()).toEqual([]);
        expect(wrapper.pids()).toHaveLength(1);
        expect(wrapper.pids().filter(isAlive)).toEqual([]);
        const prompts = (await fake.log()).filter((e) => e.event === "user" && wrapper.pids().includes(e.pid));
        expect(prompts).toEqual([]);
      } finally {
        await agent.close();
      }
    });
  });
}
