/**
 * A standby is claimed only by a run that can use it (issue #11). On the Claude Code and
 * CodeBuddy drivers (fake stream-json CLI) a thread's resume run needs `--resume` at spawn, so it
 * cold-launches and leaves the prepared process for the next stateless run; Codex's app-server
 * resumes a thread by request, so its standby serves the resume run.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { readFakeLog, writeFakeCodex } from "./codex/harness.js";
import { installFakeCli, type FakeCli, type FakeDialect } from "./fake-cli/install.js";

const drivers: Record<FakeDialect, (fake: FakeCli) => ReturnType<typeof claude>> = {
  claude: (fake) => claude({ executable: fake.executable, configDir: fake.configDir, env: { FAKE_CLI_LOG: fake.logFile, ANTHROPIC_API_KEY: "sk-fake-claude-key-0123456789" } }),
  codebuddy: (fake) => codebuddy({ executable: fake.executable, configDir: fake.configDir, env: { FAKE_CLI_LOG: fake.logFile, CODEBUDDY_API_KEY: "cb-fake-secret-key-98765" } }),
};

for (const dialect of ["claude", "codebuddy"] as const) {
  describe(`${dialect}: the standby and thread resume`, () => {
    let fake: FakeCli;
    beforeAll(async () => {
      fake = await installFakeCli(dialect);
    });
    afterAll(() => fake.cleanup());

    it("a resume run leaves the standby in place and the next stateless run uses it", async () => {
      const driver = drivers[dialect](fake);
      // No warm writer, so the thread's second turn is a resume that needs its own spawn.
      const agent = createAgent(driver, { workspace: fake.workspace, threadWriterIdleMs: 0 });
      try {
        const thread = await agent.startThread();
        await thread.run("remember the word walnut");
        expect((await agent.prepare()).process).toBe("ready");
        const standbyPid = driver.livePids()[0]!;
        const spawnsBefore = (await fake.spawns()).length;

        await thread.run("[[history]]");
        const resumed = (await fake.spawns()).slice(spawnsBefore);
        expect(resumed).toHaveLength(1);
        expect(resumed[0]!.argv).toEqual(expect.arrayContaining(["--resume"]));
        // The resume run's own process retires in the background (issue #14 item 3).
        await expect.poll(() => driver.livePids(), { timeout: 5_000 }).toEqual([standbyPid]);

        await agent.run("hello");
        // The stateless run spawned nothing: it ran on the standby.
        expect((await fake.spawns()).length - spawnsBefore).toBe(1);
        const log = await fake.log();
        expect(log.filter((e) => e.pid === standbyPid && e.event === "user")).toHaveLength(1);
      } finally {
        await agent.close();
      }
      expect(driver.livePids()).toEqual([]);
    });
  });
}


describe("codex: the standby and thread resume", () => {
  const root = mkdtempSync(join(tmpdir(), "codex-standby-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("a resume run uses the standby, since app-server resumes a thread on an unbound process", async () => {
    const workspace = join(root, "workspace");
    const home = join(root, "home");
    mkdirSync(workspace, { recursive: true });
    mkdirSync(home, { recursive: true });
    const log = join(root, "log.jsonl");
    const driver = codex({ executable: writeFakeCodex(root), home, env: { FAKE_CODEX_LOG: log } });
    // No warm writer, so the thread's second turn is a resume that the standby can serve.
    const agent = createAgent(driver, { workspace, threadWriterIdleMs: 0 });
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      // The first run's process retires in the background (issue #14 item 3): gone before the
      // standby starts, so the only live process is the standby.
      await expect.poll(() => driver.processes().live, { timeout: 5_000 }).toEqual([]);
      await agent.prepare();
      const standbyPid = driver.processes().live[0]!;
      await thread.run("hello again");
      const entries = readFakeLog(log);
      expect(entries.filter((e) => e.event === "spawn")).toHaveLength(2);
      expect(entries.filter((e) => e.event === "request" && e.method === "thread/resume").map((e) => e.pid)).toEqual([standbyPid]);
    } finally {
      await agent.close();
    }
  });
});
