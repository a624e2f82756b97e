/**
 * Turn completion without waiting for reaping on the prepared path (issue #14 item 3): a run that
 * claimed a `prepare()`d standby publishes `run.completed` and resolves while the finished turn's
 * process is still running, and `close()` then leaves no process. The fakes (Codex app-server,
 * stream-json CLI) linger after the turn — ignoring stdin's end and SIGTERM — until the test
 * releases them, so a run that waited for its process would only end once SIGKILL reaped it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import type { ProcessStats } from "../../src/driver/kit/processes.js";
import type { Driver } from "../../src/driver/types.js";
import { groupAlive } from "../../src/process/group.js";
import { writeFakeCodex } from "../drivers/codex/harness.js";
import { installFakeCli } from "../drivers/fake-cli/install.js";

const root = mkdtempSync(join(tmpdir(), "prepared-completion-"));
const fakeCodex = writeFakeCodex(root);
const fakeCli = await installFakeCli("claude");
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await fakeCli.cleanup();
});

interface Provider {
  name: string;
  lingerPrompt: string;
  /** A driver on the fake, and the file whose existence lets a lingering fake exit. */
  make(dir: string): { driver: Driver & { processes(): ProcessStats }; workspace: string; release: string };
}

const providers: Provider[] = [
  {
    name: "codex app-server",
    lingerPrompt: "LINGER hello",
    make(dir) {
      const workspace = join(dir, "workspace");
      const home = join(dir, "home");
      mkdirSync(workspace, { recursive: true });
      mkdirSync(home, { recursive: true });
      const release = join(dir, "release");
      return { driver: codex({ executable: fakeCodex, home, env: { FAKE_CODEX_RELEASE_FILE: release } }), workspace, release };
    },
  },
  {
    name: "stream-json (Claude Code)",
    lingerPrompt: "[[linger]] hello",
    make(dir) {
      mkdirSync(dir, { recursive: true });
      const release = join(dir, "release");
      const env = { ANTHROPIC_API_KEY: "sk-fake-prepared-key", FAKE_CLI_RELEASE_FILE: release };
      return { driver: claude({ executable: fakeCli.executable, configDir: fakeCli.configDir, env }), workspace: fakeCli.workspace, release };
    },
  },
];

let dirs = 0;

describe.each(providers)("$name", (provider) => {
  it("a prepared run publishes run.completed while its process still runs, and close() leaves no process", async () => {
    const { driver, workspace, release } = provider.make(join(root, `d${dirs++}`));
    const agent = createAgent(driver, { workspace });
    try {
      expect((await agent.prepare()).process).toBe("ready");
      const [prepared] = driver.processes().live;
      const stream = agent.stream(provider.lingerPrompt);
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types.at(-1)).toBe("run.completed");
      expect((await stream.result).status).toBe("completed");
      // The run used the standby's process, which has not exited: the terminal did not wait for it.
      expect(driver.processes()).toEqual({ live: [prepared], started: 1 });
      expect(groupAlive(prepared!)).toBe(true);
      await agent.close();
      expect(driver.processes().live).toEqual([]);
      expect(groupAlive(prepared!)).toBe(false);
    } finally {
      writeFileSync(release, "");
      await agent.close();
    }
  });
});
