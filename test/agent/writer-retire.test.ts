/**
 * Warm writers are retired, not leaked (issue #14 item 4, "Must show"), on the three fake
 * providers that keep one: the fake Codex app-server, the fake stream-json CLI (Claude Code) and
 * the fake ACP agent. A thread's writer is the process its first turn left running; it is retired
 * — its process group gone, and the thread's next turn started on a new process — by:
 * - the agent's `close()`;
 * - a lost lease: another agent on the same store ran the thread in between;
 * - an incompatible call (other effort, policy or model than the turn that left it).
 * Spawn counts come from the driver's own process accounting; "gone" is the group's absence.
 * Retiring on a lost lease or an incompatible call goes on in the background while the new turn
 * runs, so those wait for the group to go (bounded by the test timeout) rather than race it.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent, type AgentOptions, type CallOptions } from "../../src/index.js";
import { acp } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import type { ProcessStats } from "../../src/driver/kit/processes.js";
import type { Driver } from "../../src/driver/types.js";
import { groupAlive } from "../../src/process/group.js";
import { memoryThreadStore } from "../../src/thread/stores/memory.js";
import { writeFakeCodex } from "../drivers/codex/harness.js";
import { installFakeCli } from "../drivers/fake-cli/install.js";

const root = mkdtempSync(join(tmpdir(), "writer-retire-"));
const fakeCodex = writeFakeCodex(root);
const fakeCli = await installFakeCli("claude");
const fakeAcp = fileURLToPath(new URL("../drivers/acp/fixtures/fake-agent.mjs", import.meta.url));
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await fakeCli.cleanup();
});

type CountedDriver = Driver & { processes(): ProcessStats };

interface Provider {
  name: string;
  /** A driver on the fake; drivers made with the same `dir` share the provider's state and workspace. */
  make(dir: string): { driver: CountedDriver; workspace: string };
  /** Call options the writer's first turn did not run with. */
  incompatible: CallOptions;
}

const providers: Provider[] = [
  {
    name: "codex app-server",
    make(dir) {
      const workspace = join(dir, "workspace");
      const home = join(dir, "home");
      mkdirSync(workspace, { recursive: true });
      mkdirSync(home, { recursive: true });
      return { driver: codex({ executable: fakeCodex, home }), workspace };
    },
    incompatible: { effort: "high" },
  },
  {
    name: "stream-json (Claude Code)",
    make() {
      const env = { ANTHROPIC_API_KEY: "sk-fake-writer-key" };
      return { driver: claude({ executable: fakeCli.executable, configDir: fakeCli.configDir, env }), workspace: fakeCli.workspace };
    },
    incompatible: { policy: { approval: "never" } },
  },
  {
    name: "acp agent",
    make(dir) {
      const workspace = join(dir, "workspace");
      mkdirSync(workspace, { recursive: true });
      return { driver: acp({ command: process.execPath, args: [fakeAcp] }), workspace };
    },
    incompatible: { effort: "high" },
  },
];

let dirs = 0;
const newDir = (): string => join(root, `d${dirs++}`);

function agentOn(provider: Provider, dir: string, options: AgentOptions = {}) {
  const { driver, workspace } = provider.make(dir);
  return { driver, agent: createAgent(driver, { workspace, ...options }) };
}

/** Resolves once the process group is gone and the driver has seen its process exit. */
async function untilGone(driver: CountedDriver, pid: number): Promise<void> {
  while (groupAlive(pid) || driver.processes().live.includes(pid)) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The one live process a finished thread turn left as the thread's writer. */
function writerOf(driver: CountedDriver): number {
  const { live } = driver.processes();
  expect(live).toHaveLength(1);
  expect(groupAlive(live[0]!)).toBe(true);
  return live[0]!;
}

describe.each(providers)("warm writer retirement: $name", (provider) => {
  it("close() retires the writer: its process group is gone", async () => {
    const { driver, agent } = agentOn(provider, newDir());
    let warm: number;
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      warm = writerOf(driver);
    } finally {
      await agent.close();
    }
    expect(driver.processes()).toEqual({ live: [], started: 1 });
    expect(groupAlive(warm)).toBe(false);
  });

  it("a lost lease retires the writer: the thread's next turn starts on a new process", async () => {
    const store = memoryThreadStore();
    const dir = newDir();
    const a = agentOn(provider, dir, { threadStore: store });
    const b = agentOn(provider, dir, { threadStore: store });
    try {
      const thread = await a.agent.startThread();
      await thread.run("hello");
      const warm = writerOf(a.driver);
      // Another lease holder runs the thread's next turn, on its own process.
      await (await b.agent.resumeThread(thread.id)).run("from another agent");
      expect(b.driver.processes().started).toBe(1);
      // A's writer served a turn that is no longer the thread's latest: A starts over.
      const result = await thread.run("back again");
      expect(result.status).toBe("completed");
      expect(a.driver.processes().started).toBe(2);
      await untilGone(a.driver, warm);
      // A keeps writers all along: its next turn runs on the process of the turn before.
      const next = writerOf(a.driver);
      await thread.run("once more");
      expect(a.driver.processes()).toEqual({ live: [next], started: 2 });
      expect((await thread.info()).checkpoint.turns).toBe(4);
    } finally {
      await a.agent.close();
      await b.agent.close();
      await store.close();
    }
    expect(a.driver.processes().live).toEqual([]);
    expect(b.driver.processes().live).toEqual([]);
  });

  it("an incompatible call retires the writer and runs on a new process; a compatible one reuses that", async () => {
    const { driver, agent } = agentOn(provider, newDir());
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const warm = writerOf(driver);
      await thread.run("hello again", provider.incompatible);
      expect(driver.processes().started).toBe(2);
      await untilGone(driver, warm);
      // The new turn's process is the thread's writer now, for calls with the same settings.
      const next = writerOf(driver);
      expect(next).not.toBe(warm);
      await thread.run("and again", provider.incompatible);
      expect(driver.processes()).toEqual({ live: [next], started: 2 });
    } finally {
      await agent.close();
    }
    expect(driver.processes().live).toEqual([]);
  });
});
