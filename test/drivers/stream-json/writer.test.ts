/**
 * The warm writer on Claude Code and CodeBuddy (issue #14 item 4), on the fake stream-json CLI: a
 * thread's completed turn leaves the CLI in its session and the next turn is one more user line
 * on its stdin — no spawn, no `--resume`. A call with other settings, a fork or `close()` retires
 * it; a writer that died between turns falls back to the cold `--resume`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { claude } from "../../../src/drivers/claude/index.js";
import { codebuddy } from "../../../src/drivers/codebuddy/index.js";
import type { StreamJsonDriver } from "../../../src/drivers/stream-json/driver.js";
import { installFakeCli, type FakeCli, type FakeDialect } from "../fake-cli/install.js";

const drivers: Record<FakeDialect, (fake: FakeCli) => StreamJsonDriver> = {
  claude: (fake) => claude({ executable: fake.executable, configDir: fake.configDir, env: { FAKE_CLI_LOG: fake.logFile, ANTHROPIC_API_KEY: "sk-fake-claude-key-0123456789" } }),
  codebuddy: (fake) => codebuddy({ executable: fake.executable, configDir: fake.configDir, env: { FAKE_CLI_LOG: fake.logFile, CODEBUDDY_API_KEY: "cb-fake-secret-key-98765" } }),
};

/** Resolves once the driver no longer counts `pid` as live (its exit was observed). */
async function untilGone(driver: StreamJsonDriver, pid: number): Promise<void> {
  while (driver.livePids().includes(pid)) await new Promise((resolve) => setImmediate(resolve));
}

for (const dialect of ["claude", "codebuddy"] as const) {
  describe(`${dialect}: a warm writer per thread`, () => {
    let fake: FakeCli;
    beforeAll(async () => {
      fake = await installFakeCli(dialect);
    });
    afterAll(() => fake.cleanup());

    it("sends the thread's second turn to the first turn's process, without a spawn or --resume", async () => {
      const driver = drivers[dialect](fake);
      const agent = createAgent(driver, { workspace: fake.workspace });
      const before = (await fake.spawns()).length;
      try {
        const thread = await agent.startThread();
        const first = await thread.run("remember the word walnut");
        const [pid] = driver.livePids();
        const second = await thread.run("[[history]]");
        expect(second.providerSessionId).toBe(first.providerSessionId);
        const spawned = (await fake.spawns()).slice(before);
        expect(spawned.map((e) => e.pid)).toEqual([pid]);
        expect(spawned[0]!.argv).not.toContain("--resume");
        const users = (await fake.log()).filter((e) => e.event === "user");
        expect(users.filter((e) => e.pid === pid)).toHaveLength(2);
        expect((await thread.info()).checkpoint.turns).toBe(2);
      } finally {
        await agent.close();
      }
      expect(driver.livePids()).toEqual([]);
    });

    it("is retired by a call with other settings and by a fork, which launch cold", async () => {
      const driver = drivers[dialect](fake);
      const agent = createAgent(driver, { workspace: fake.workspace });
      const before = (await fake.spawns()).length;
      try {
        const thread = await agent.startThread();
        await thread.run("hello");
        const [warm] = driver.livePids();
        await thread.run("hello again", { model: "another-model" });
        const spawned = (await fake.spawns()).slice(before);
        expect(spawned).toHaveLength(2);
        expect(spawned[1]!.argv).toContain("--resume");
        expect(driver.livePids()).not.toContain(warm);

        const child = await thread.fork();
        await child.run("in the fork", { model: "another-model" });
        const forked = (await fake.spawns()).slice(before);
        expect(forked).toHaveLength(3);
        expect(forked[2]!.argv).toContain("--fork-session");
      } finally {
        await agent.close();
      }
      expect(driver.livePids()).toEqual([]);
    });

    it("falls back to --resume when the writer died between turns", async () => {
      const driver = drivers[dialect](fake);
      const agent = createAgent(driver, { workspace: fake.workspace });
      const before = (await fake.spawns()).length;
      try {
        const thread = await agent.startThread();
        await thread.run("hello");
        const [warm] = driver.livePids();
        process.kill(warm!, "SIGKILL");
        await untilGone(driver, warm!);
        const result = await thread.run("hello again");
        expect(result.status).toBe("completed");
        const spawned = (await fake.spawns()).slice(before);
        expect(spawned).toHaveLength(2);
        expect(spawned[1]!.argv).toContain("--resume");
      } finally {
        await agent.close();
      }
    });
  });
}
