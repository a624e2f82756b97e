/**
 * The warm writer on Codex (issue #14 item 4): a thread's completed turn leaves its app-server
 * running with the thread loaded, and the thread's next turn starts on it — no spawn, no
 * `thread/resume`. Anything else retires it: the agent's close, a call with other settings,
 * another lease holder advancing the thread; a writer that died between turns falls back to the
 * normal cold resume. Spawn counts and requests come from the fake app-server's log.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent, type Agent, type AgentOptions } from "../../../src/index.js";
import { codex, type CodexDriver } from "../../../src/drivers/codex/index.js";
import { memoryThreadStore } from "../../../src/thread/stores/memory.js";
import { readFakeLog, writeFakeCodex, type FakeLogEntry } from "./harness.js";

const root = mkdtempSync(join(tmpdir(), "codex-writer-"));
const executable = writeFakeCodex(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

let fixtures = 0;
/** A driver and agent on the fake; agents given the same `dir` share the workspace and Codex home. */
function fixture(options: AgentOptions = {}, dir = join(root, `f${fixtures++}`)): { driver: CodexDriver; agent: Agent; log: () => FakeLogEntry[] } {
  const workspace = join(dir, "workspace");
  const home = join(dir, "home");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true });
  const logFile = join(dir, "log.jsonl");
  const driver = codex({ executable, home, env: { FAKE_CODEX_LOG: logFile } });
  return { driver, agent: createAgent(driver, { workspace, ...options }), log: () => readFakeLog(logFile) };
}

const spawns = (log: FakeLogEntry[]) => log.filter((e) => e.event === "spawn").map((e) => e.pid);
const requests = (log: FakeLogEntry[], method: string) => log.filter((e) => e.event === "request" && e.method === method).map((e) => e.pid);

/** Resolves once the driver no longer counts `pid` as live (its exit was observed). */
async function untilGone(driver: CodexDriver, pid: number): Promise<void> {
  while (driver.processes().live.includes(pid)) await new Promise((resolve) => setImmediate(resolve));
}

describe("codex: a warm writer per thread", () => {
  it("runs the thread's second turn on the first turn's process, without a spawn or a resume", async () => {
    const { driver, agent, log } = fixture();
    try {
      const thread = await agent.startThread();
      const first = await thread.run("hello");
      const [pid] = driver.processes().live;
      expect(driver.processes().live).toHaveLength(1);
      const second = await thread.run("hello again");
      expect(second.providerSessionId).toBe(first.providerSessionId);
      expect(spawns(log())).toEqual([pid]);
      expect(requests(log(), "thread/resume")).toEqual([]);
      expect(requests(log(), "turn/start")).toEqual([pid, pid]);
      expect((await thread.info()).checkpoint.turns).toBe(2);
    } finally {
      await agent.close();
    }
    expect(driver.processes().live).toEqual([]);
  });

  it("a stateless run does not keep its process", async () => {
    const { driver, agent } = fixture();
    try {
      await agent.run("hello");
      // Not kept: the finished turn's process retires in the background (issue #14 item 3).
      await expect.poll(() => driver.processes().live, { timeout: 5_000 }).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it("is retired by the agent's close", async () => {
    const { driver, agent } = fixture();
    const thread = await agent.startThread();
    await thread.run("hello");
    expect(driver.processes().live).toHaveLength(1);
    await agent.close();
    expect(driver.processes().live).toEqual([]);
  });

  it("is retired by a call with other settings, which launches and resumes cold", async () => {
    const { driver, agent, log } = fixture();
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const [warm] = driver.processes().live;
      await thread.run("hello again", { model: "another-model" });
      const [first, second] = spawns(log());
      expect(first).toBe(warm);
      expect(second).not.toBe(warm);
      expect(requests(log(), "thread/resume")).toEqual([second]);
      // The new turn's process is the thread's writer now; the old one is gone.
      expect(driver.processes().live).toEqual([second]);
    } finally {
      await agent.close();
    }
  });

  it("is retired when another lease holder advanced the thread in between", async () => {
    const store = memoryThreadStore();
    const shared = join(root, "shared");
    const a = fixture({ threadStore: store }, shared);
    const b = fixture({ threadStore: store }, shared);
    try {
      const thread = await a.agent.startThread();
      await thread.run("hello");
      const [warmA] = a.driver.processes().live;
      await (await b.agent.resumeThread(thread.id)).run("from another agent");
      await thread.run("back again");
      // One log for both: A's first turn, B's turn, then A's again. A's writer no longer held the
      // thread's latest turn, so A resumed on a fresh process.
      const [first, ofB, third] = spawns(a.log());
      expect(first).toBe(warmA);
      expect(spawns(a.log())).toHaveLength(3);
      expect(requests(a.log(), "thread/resume")).toEqual([ofB, third]);
      expect(requests(a.log(), "turn/start")).toEqual([first, ofB, third]);
      expect(a.driver.processes().live).not.toContain(warmA);
      expect((await thread.info()).checkpoint.turns).toBe(3);
    } finally {
      await a.agent.close();
      await b.agent.close();
      await store.close();
    }
  });

  it("is not used by a fork, which forks the session on its own process", async () => {
    const { driver, agent, log } = fixture();
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const [warm] = driver.processes().live;
      const child = await thread.fork();
      await child.run("in the fork");
      const forkedOn = requests(log(), "thread/fork");
      expect(forkedOn).toHaveLength(1);
      expect(forkedOn[0]).not.toBe(warm);
      expect(spawns(log())).toHaveLength(2);
    } finally {
      await agent.close();
    }
    expect(driver.processes().live).toEqual([]);
  });

  it("falls back to the normal resume when the writer died between turns", async () => {
    const { driver, agent, log } = fixture();
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const [warm] = driver.processes().live;
      process.kill(warm!, "SIGKILL");
      await untilGone(driver, warm!);
      const result = await thread.run("hello again");
      expect(result.status).toBe("completed");
      const [, second] = spawns(log());
      expect(second).toBeDefined();
      expect(requests(log(), "thread/resume")).toEqual([second]);
    } finally {
      await agent.close();
    }
  });

  it("keeps nothing with threadWriterIdleMs: 0", async () => {
    const { driver, agent, log } = fixture({ threadWriterIdleMs: 0 });
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      await expect.poll(() => driver.processes().live, { timeout: 5_000 }).toEqual([]);
      await thread.run("hello again");
      expect(spawns(log())).toHaveLength(2);
      expect(requests(log(), "thread/resume")).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });
});
