/**
 * The warm writer on ACP (issue #14 item 4), on the fake ACP agent: a thread's completed turn
 * leaves the agent running with its session open, and the thread's next turn is one more
 * `session/prompt` on it — no spawn, no `session/load`. A call with other settings or `close()`
 * retires it; a writer that died between turns falls back to the cold `session/load`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { acp, type AcpDriver } from "../../../src/drivers/acp/index.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "acp-writer-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
function fake(): { driver: AcpDriver; workspace: string; log: () => { pid: number; event: string }[] } {
  const dir = join(root, `f${count++}`);
  const workspace = join(dir, "workspace");
  mkdirSync(workspace, { recursive: true });
  const file = join(dir, "log.jsonl");
  const driver = acp({ command: process.execPath, args: [fixture], env: { FAKE_ACP_LOG: file } });
  const log = () => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { pid: number; event: string }) : []);
  return { driver, workspace, log };
}

const pidsOf = (log: { pid: number; event: string }[], event: string) => log.filter((e) => e.event === event).map((e) => e.pid);
/** The processes that bound an existing session (the fake advertises `session/load`). */
const reboundOn = (log: { pid: number; event: string }[]) => [...pidsOf(log, "resume"), ...pidsOf(log, "load")];

/** Resolves once the driver no longer counts `pid` as live (its exit was observed). */
async function untilGone(driver: AcpDriver, pid: number): Promise<void> {
  while (driver.processes().live.includes(pid)) await new Promise((resolve) => setImmediate(resolve));
}

describe("acp: a warm writer per thread", () => {
  it("prompts the thread's second turn on the first turn's process, without a spawn or a resume", async () => {
    const { driver, workspace, log } = fake();
    const agent = createAgent(driver, { workspace });
    try {
      const thread = await agent.startThread();
      const first = await thread.run("hello");
      const [pid] = driver.processes().live;
      const second = await thread.run("hello again");
      expect(second.providerSessionId).toBe(first.providerSessionId);
      expect(driver.processes().started).toBe(1);
      expect(pidsOf(log(), "prompt")).toEqual([pid, pid]);
      expect(reboundOn(log())).toEqual([]);
    } finally {
      await agent.close();
    }
    expect(driver.processes().live).toEqual([]);
  });

  it("is retired by a call with other settings, which loads the session on a new process", async () => {
    const { driver, workspace, log } = fake();
    const agent = createAgent(driver, { workspace });
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const [warm] = driver.processes().live;
      await thread.run("hello again", { model: "fake-a" });
      expect(driver.processes().started).toBe(2);
      const [, cold] = pidsOf(log(), "prompt");
      expect(cold).not.toBe(warm);
      expect(reboundOn(log())).toEqual([cold]);
      expect(driver.processes().live).toEqual([cold]);
    } finally {
      await agent.close();
    }
    expect(driver.processes().live).toEqual([]);
  });

  it("falls back to session/load when the writer died between turns", async () => {
    const { driver, workspace, log } = fake();
    const agent = createAgent(driver, { workspace });
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const [warm] = driver.processes().live;
      process.kill(warm!, "SIGKILL");
      await untilGone(driver, warm!);
      expect((await thread.run("hello again")).status).toBe("completed");
      expect(driver.processes().started).toBe(2);
      const [, cold] = pidsOf(log(), "prompt");
      expect(reboundOn(log())).toEqual([cold]);
    } finally {
      await agent.close();
    }
  });
});
