/**
 * Restart recovery and ownership (issue #18 item 9), in one process: a record left by a host that
 * died mid-run is reopened; a second host is refused while the first owns the session. The
 * SIGKILL version with a real child process is restart-child.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, memorySessionStore, memoryThreadStore, SessionNotFoundError, type Agent } from "../../src/index.js";
import { createSession, openSession } from "../../src/session/index.js";
import { OPEN_GATE } from "../../src/session/gate.js";
import type { Session, SessionRecord, SessionStore } from "../../src/session/types.js";
import { heldDriver, logOf, noticesOf, until } from "./harness.js";

const agents: Agent[] = [];
const sessions: Session[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
  for (const a of agents.splice(0)) await a.close();
});

function agentOn(threadStore = memoryThreadStore(), driver = heldDriver()) {
  const agent = createAgent(driver, { threadStore });
  agents.push(agent);
  return { agent, driver };
}

/** What a host that died mid-run leaves behind: a run in flight, a queue, a closed gate, some spend. */
async function deadHostRecord(store: SessionStore, agent: Agent, id: string): Promise<void> {
  const thread = await agent.startThread({ id: `${id}-thread` });
  const record: Omit<SessionRecord, "createdAt" | "updatedAt" | "owner"> = {
    id,
    threadId: thread.id,
    driver: agent.driver.id,
    workspace: (await thread.info()).workspace,
    state: "running",
    gate: { open: false, by: "pause", reason: "night", since: new Date(0).toISOString() },
    guardrails: { spentUsd: 0.25, spentTokens: 900, budget: { sessionUsd: 5 } },
    queue: [
      { promptId: "prm_plain", text: "carry on", wake: true, kind: "prompt", inputCount: 0, queuedAt: new Date(0).toISOString() },
      { promptId: "prm_image", text: "look at this", wake: true, kind: "prompt", inputCount: 1, queuedAt: new Date(0).toISOString() },
    ],
    inFlight: { runId: "run_dead", promptIds: ["prm_old"], startedAt: new Date(0).toISOString() },
    settings: { idleSleepMs: 0, inboxCap: 10 },
    metadata: {},
  };
  await store.create(record);
  // The dead host's ownership has run out.
  expect(await store.acquireOwner(id, "dead-host", 1000)).toBe(true);
  await store.releaseOwner(id, "dead-host");
}

describe("restart recovery", () => {
  it("a run in flight at the crash is recorded as host_restart (never replayed); gate, guardrails and queue are restored; prompts whose inputs were lost are dropped", async () => {
    const store = memorySessionStore();
    const { agent, driver } = agentOn();
    await deadHostRecord(store, agent, "crashed");
    const s = await openSession(agent, "crashed", { store });
    sessions.push(s);
    const log = await logOf(s);
    expect(noticesOf(log, "session.run_interrupted")).toEqual([{ type: "session.run_interrupted", runId: "run_dead", code: "host_restart" }]);
    expect(noticesOf(log, "session.prompt_dropped")).toEqual([{ type: "session.prompt_dropped", promptId: "prm_image", reason: "inputs_lost" }]);
    expect(s.state()).toBe("idle");
    expect(s.status()).toMatchObject({
      gate: { open: false, by: "pause", reason: "night" },
      guardrails: { spentUsd: 0.25, spentTokens: 900, budget: { sessionUsd: 5 } },
      queued: ["prm_plain"],
    });
    expect(s.status().inFlight).toBeUndefined();
    const stored = await store.get("crashed");
    expect(stored?.inFlight).toBeUndefined();
    expect(stored?.queue.map((entry) => entry.promptId)).toEqual(["prm_plain"]);
    // Nothing was replayed: the gate is still closed, so nothing runs until resume.
    expect(driver.runs).toHaveLength(0);
    await s.resume({ mode: "continue" });
    const run = await driver.nextRun();
    expect(run.prompt).toBe("carry on");
    run.finish();
  });

  it("openSession of an unknown id is refused with SessionNotFoundError", async () => {
    const { agent } = agentOn();
    await expect(openSession(agent, "nope", { store: memorySessionStore() })).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it("a second host is refused with session_owned while the first drives the session, and takes over once it is closed", async () => {
    const store = memorySessionStore();
    const threads = memoryThreadStore();
    const first = agentOn(threads);
    const second = agentOn(threads);
    const a = await createSession(first.agent, { id: "shared", store });
    await expect(openSession(second.agent, "shared", { store })).rejects.toMatchObject({ code: "session_owned" });
    await a.submit("from host a");
    (await first.driver.nextRun()).finish();
    await until(() => a.state() === "idle");
    await a.close();
    const b = await openSession(second.agent, "shared", { store });
    sessions.push(b);
    await b.submit("from host b");
    const run = await second.driver.nextRun();
    expect(run.thread?.providerSessionId).toBe("held_session_1"); // the conversation host a started
    run.finish();
  });

  it("a second host takes over once the first's ownership expires without renewal", async () => {
    let now = Date.now();
    const store = memorySessionStore({ now: () => now });
    const { agent } = agentOn();
    await deadHostRecord(store, agent, "expiring");
    // A host that is alive (as far as the store knows) holds it.
    expect(await store.acquireOwner("expiring", "live-host", 5000)).toBe(true);
    await expect(openSession(agent, "expiring", { store })).rejects.toMatchObject({ code: "session_owned" });
    now += 5001;
    const s = await openSession(agent, "expiring", { store });
    sessions.push(s);
    expect(s.state()).toBe("idle");
  });
});
