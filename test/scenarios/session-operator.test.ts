/**
 * A demanding operator drives a session from outside: bursts, holds, pauses, resumes, archives,
 * budgets, two owners, and options it misspells — on a driver whose runs the test ends by hand
 * (test/session/harness.ts), so "while a run is in flight" is a state the test holds.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, type Agent } from "../../src/index.js";
import { createSession, openSession } from "../../src/session/index.js";
import { memorySessionStore } from "../../src/session/stores/memory.js";
import type { Session, SessionStore } from "../../src/session/types.js";
import { heldDriver, kinds, logOf, noticesOf, until, type HeldDriver } from "../session/harness.js";

let agent: Agent | undefined;
let sessions: Session[] = [];
afterEach(async () => {
  for (const s of sessions) await s.close();
  await agent?.close();
  sessions = [];
  agent = undefined;
});

async function start(driver: HeldDriver, options: Parameters<typeof createSession>[1] = {}): Promise<Session> {
  agent = createAgent(driver);
  const s = await createSession(agent, options);
  sessions.push(s);
  return s;
}

/** Lets pending callbacks and store writes run, so "nothing started" is observed after the fact. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("bursts while busy", () => {
  it("twenty submits issued in one tick while a run is in flight join one next run, in call order, each id listed once", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("busy");
    const busy = await driver.nextRun();
    const texts = Array.from({ length: 20 }, (_, i) => `m${i}`);
    const ids = (await Promise.all(texts.map((text, i) => s.submit(text, { from: `user-${i % 3}` })))).map((r) => r.promptId);
    expect(new Set(ids).size).toBe(20);
    expect(s.status().queued).toEqual(ids);
    busy.finish();
    const next = await driver.nextRun();
    expect(next.prompt).toBe(texts.join("\n\n"));
    expect(s.status().inFlight?.promptIds).toEqual(ids);
    next.finish();
    await until(() => s.state() === "idle");
    const admitted = noticesOf(await logOf(s), "session.run_admitted");
    expect(admitted).toHaveLength(2);
    expect(admitted[1]).toMatchObject({ promptIds: ids, from: "user-1" });
    expect(driver.runs).toHaveLength(2);
  });
});

describe("interrupt, hold, pause, resume", () => {
  it("interrupt called five times at once while the run unwinds cancels it once; afterwards it answers false", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("job");
    const run = await driver.nextRun();
    const answers = await Promise.all([s.interrupt(), s.interrupt(), s.interrupt(), s.interrupt(), s.interrupt()]);
    expect(answers).toEqual([true, true, true, true, true]);
    await run.ended;
    await until(() => s.state() === "idle");
    await expect(s.interrupt()).resolves.toBe(false);
    const log = await logOf(s);
    expect(kinds(log).filter((k) => k === "run.cancelled" || k === "run.failed" || k === "run.completed")).toHaveLength(1);
  });

  it("interruptAndHold, then submit (does not run), then resume steer: the steer leads the held prompt in one run", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("job");
    const run = await driver.nextRun();
    await expect(s.interruptAndHold("operator looks")).resolves.toBe(true);
    await run.ended;
    const held = await s.submit("after the hold");
    await settle();
    expect(driver.runs).toHaveLength(1);
    expect(s.status().queued).toEqual([held.promptId]);
    await s.resume({ mode: "steer", message: "do it this way" });
    const next = await driver.nextRun();
    expect(next.prompt).toBe("do it this way\n\nafter the hold");
    next.finish();
    await until(() => s.state() === "idle");
  });

  it("pause while a run is in flight, then submit: the run ends, nothing starts, resume continue runs the queue", async () => {
    const driver = heldDriver();
    const s = await start(driver, { idleSleepMs: 60_000 });
    await s.submit("job");
    const run = await driver.nextRun();
    await s.pause("lunch");
    const queued = await s.submit("later");
    run.finish();
    await until(() => s.state() === "idle");
    await settle();
    expect(driver.runs).toHaveLength(1);
    expect(run.cancelled).toBe(false);
    await s.resume({ mode: "continue" });
    const next = await driver.nextRun();
    expect(next.prompt).toBe("later");
    expect(s.status().inFlight?.promptIds).toEqual([queued.promptId]);
    next.finish();
  });

  it("resume abandon while paused drops every queued prompt (each reported) and runs only its message", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.pause("wait");
    const a = await s.submit("a");
    const b = await s.submit("b", { wake: false });
    await s.resume({ mode: "abandon", message: "only this" });
    const run = await driver.nextRun();
    expect(run.prompt).toBe("only this");
    run.finish();
    await until(() => s.state() === "idle");
    const dropped = noticesOf(await logOf(s), "session.prompt_dropped");
    expect(dropped).toEqual([
      { type: "session.prompt_dropped", promptId: a.promptId, reason: "abandoned" },
      { type: "session.prompt_dropped", promptId: b.promptId, reason: "abandoned" },
    ]);
  });

  it("a hold while sleeping keeps the session asleep with its queue; resume wakes it and runs", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.sleep();
    await s.interruptAndHold("night");
    await s.submit("morning task");
    await settle();
    expect(s.state()).toBe("sleeping");
    expect(driver.runs).toHaveLength(0);
    await s.resume({ mode: "continue" });
    const run = await driver.nextRun();
    expect(run.prompt).toBe("morning task");
    run.finish();
    await until(() => s.state() === "idle");
  });
});

describe("steer and follow-up", () => {
  it("steer with nothing running on a natively steering driver leads a new run (next_run), not a lost native call", async () => {
    const driver = heldDriver({ steer: true });
    const s = await start(driver);
    await expect(s.steer("look at the tests")).resolves.toBe("next_run");
    const run = await driver.nextRun();
    expect(run.prompt).toBe("look at the tests");
    expect(driver.steered).toEqual([]);
    run.finish();
    await until(() => s.state() === "idle");
  });

  it("followUp while idle starts a run with it", async () => {
    const driver = heldDriver({ followUp: true });
    const s = await start(driver);
    await s.followUp("and then this");
    const run = await driver.nextRun();
    expect(run.prompt).toBe("and then this");
    expect(driver.followedUp).toEqual([]);
    run.finish();
    await until(() => s.state() === "idle");
  });
});

describe("archive and close", () => {
  it("after archive every verb rejects with session_archived; archive again resolves; reads still answer", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionUsd: 1, runUsd: 1 } });
    await s.submit("job");
    const run = await driver.nextRun();
    await s.archive();
    expect(run.cancelled).toBe(true);
    const verbs: [string, () => Promise<unknown>][] = [
      ["submit", () => s.submit("x")],
      ["submit context", () => s.submit("x", { wake: false })],
      ["steer", () => s.steer("x")],
      ["followUp", () => s.followUp("x")],
      ["interrupt", () => s.interrupt()],
      ["interruptAndHold", () => s.interruptAndHold("x")],
      ["pause", () => s.pause("x")],
      ["resume", () => s.resume({ mode: "continue" })],
      ["clear", () => s.clear()],
      ["compact", () => s.compact()],
      ["goal", () => s.goal()],
      ["configure", () => s.configure({ model: "m" })],
      ["sleep", () => s.sleep()],
      ["addBudget", () => s.addBudget(1)],
      ["resetRunCeiling", () => s.resetRunCeiling()],
    ];
    for (const [name, call] of verbs) await expect(call(), name).rejects.toMatchObject({ name: "SessionError", code: "session_archived" });
    await expect(s.archive()).resolves.toBeUndefined();
    expect(s.state()).toBe("archived");
    expect(s.status().state).toBe("archived");
  });

  it("close() ends every subscriber's iteration after the events logged so far; verbs then reject with session_closed", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("job");
    const run = await driver.nextRun();
    const readers = Array.from({ length: 3 }, async () => {
      const seen: number[] = [];
      for await (const entry of s.events()) seen.push(entry.seq);
      return seen;
    });
    await settle();
    await s.close();
    const seen = await Promise.all(readers);
    expect(run.cancelled).toBe(true);
    const last = s.status().lastSeq;
    for (const seqs of seen) expect(seqs).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    await expect(s.submit("x")).rejects.toMatchObject({ code: "session_closed" });
    // Not an empty log as if nothing had happened.
    expect(() => s.events()).toThrow(expect.objectContaining({ code: "session_closed" }));
    await expect(s.close()).resolves.toBeUndefined();
  });
});

describe("ownership in one process", () => {
  it("a second openSession of a session this process drives is refused with session_owned, and works after close", async () => {
    const store: SessionStore = memorySessionStore();
    const driver = heldDriver();
    const s = await start(driver, { id: "shared", store });
    await expect(openSession(agent!, "shared", { store })).rejects.toMatchObject({ code: "session_owned" });
    await s.close();
    const again = await openSession(agent!, "shared", { store });
    sessions.push(again);
    expect(again.state()).toBe("created");
    await store.close();
  });
});

describe("budgets", () => {
  it("addBudget refuses 0, -1, NaN, Infinity, a string and an empty object with ConfigError, and changes nothing", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionUsd: 1, sessionTokens: 100 } });
    const before = s.status().guardrails;
    for (const amount of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, "1" as unknown as number, {}, { usd: 1, tokens: -1 }, { usd: 0 }]) {
      await expect(s.addBudget(amount), JSON.stringify(amount)).rejects.toMatchObject({ code: "config_invalid" });
    }
    expect(s.status().guardrails).toEqual(before);
  });

  it("a session ceiling tripped by reported cost refuses submit and steer; wake:false context is still filed; addBudget reopens", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionUsd: 1 } });
    await s.submit("spend");
    (await driver.nextRun()).finish({ usage: { cost_usd: 1.5 } });
    await until(() => s.status().guardrails.tripped !== undefined);
    await expect(s.submit("more")).rejects.toMatchObject({ code: "budget_exhausted" });
    await expect(s.steer("more")).rejects.toMatchObject({ code: "budget_exhausted" });
    await expect(s.followUp("more")).rejects.toMatchObject({ code: "budget_exhausted" });
    await expect(s.resume({ mode: "continue", message: "more" })).rejects.toMatchObject({ code: "budget_exhausted" });
    const context = await s.submit("note", { wake: false });
    await s.addBudget(0.25);
    expect(s.status().guardrails.tripped).toBeDefined(); // 1.5 spent, ceiling 1.25
    await s.addBudget(1);
    expect(s.status().guardrails.tripped).toBeUndefined();
    expect(s.status().guardrails.spentUsd).toBe(1.5);
    await s.submit("go");
    const run = await driver.nextRun();
    expect(run.prompt).toBe("note\n\ngo");
    expect(s.status().inFlight?.promptIds[0]).toBe(context.promptId);
    run.finish();
  });
});

describe("misspelt options", () => {
  it("events() refuses a misspelt option with ConfigError naming it", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    expect(() => s.events({ aftr: 3 } as never)).toThrow(/aftr/);
  });

  it("createSession refuses a misspelt watchdog or run option at once, naming it, instead of failing every run", async () => {
    const driver = heldDriver();
    agent = createAgent(driver);
    await expect(createSession(agent, { watchdogs: { hardCapMS: 5 } as never })).rejects.toThrow(/hardCapMS/);
    await expect(createSession(agent, { run: { modle: "x" } as never })).rejects.toThrow(/modle/);
    await expect(createSession(agent, { run: { signal: new AbortController().signal } as never })).rejects.toMatchObject({ code: "config_invalid" });
    const store = memorySessionStore();
    sessions.push(await createSession(agent, { id: "kept", store }));
    await sessions.pop()!.close();
    await expect(openSession(agent, "kept", { store, watchdogs: { repeatToolLimit: 1.5 } })).rejects.toMatchObject({ code: "config_invalid" });
    await expect(openSession(agent, "kept", { store, run: { effrot: "high" } as never })).rejects.toThrow(/effrot/);
    sessions.push(await openSession(agent, "kept", { store, watchdogs: { repeatToolLimit: 3 } }));
    await store.close();
  });
});

describe("the inbox cap", () => {
  it("a resume steer queued at the front of a full inbox stays; the oldest queued prompt is dropped instead", async () => {
    const driver = heldDriver();
    const s = await start(driver, { inboxCap: 2 });
    await s.pause("review");
    const a = await s.submit("a");
    await s.submit("b");
    await s.resume({ mode: "steer", message: "steer first" });
    const run = await driver.nextRun();
    expect(run.prompt).toBe("steer first\n\nb");
    run.finish();
    await until(() => s.state() === "idle");
    expect(noticesOf(await logOf(s), "session.prompt_dropped")).toEqual([{ type: "session.prompt_dropped", promptId: a.promptId, reason: "inbox_full" }]);
    expect(s.status().queued).toEqual([]);
  });
});

describe("a bad submit does not take others' prompts down", () => {
  it("submit refuses inputs that are not input references at once, and the prompts queued with it still run", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("busy");
    const busy = await driver.nextRun();
    const other = await s.submit("another user's prompt");
    await expect(s.submit("mine", { inputs: [{ path: "/etc/hosts" } as never] })).rejects.toMatchObject({ code: "input_invalid" });
    expect(s.status().queued).toEqual([other.promptId]);
    busy.finish();
    const next = await driver.nextRun();
    expect(next.prompt).toBe("another user's prompt");
    next.finish();
    await until(() => s.state() === "idle");
    expect(noticesOf(await logOf(s), "session.error")).toEqual([]);
  });
});

describe("restart recovery, reopened again", () => {
  it("a run left in flight is recorded host_restart once: a second reopen after a clean close records nothing more and replays nothing", async () => {
    const store = memorySessionStore();
    const driver = heldDriver();
    agent = createAgent(driver);
    const thread = await agent.startThread({ id: "crashed-thread" });
    await store.create({
      id: "crashed",
      threadId: thread.id,
      driver: agent.driver.id,
      workspace: (await thread.info()).workspace,
      state: "running",
      gate: { open: true },
      guardrails: { spentUsd: 0, spentTokens: 0, budget: {} },
      queue: [{ promptId: "prm_next", text: "next", wake: true, kind: "prompt", inputCount: 0, queuedAt: new Date(0).toISOString() }],
      inFlight: { runId: "run_dead", promptIds: ["prm_dead"], startedAt: new Date(0).toISOString() },
      settings: { idleSleepMs: 0, inboxCap: 10 },
      metadata: {},
    });
    const first = await openSession(agent, "crashed", { store });
    const run = await driver.nextRun();
    expect(run.prompt).toBe("next"); // the queue, never the prompt that was in flight
    run.finish();
    await until(() => first.state() === "idle");
    await first.close();
    const second = await openSession(agent, "crashed", { store });
    sessions.push(second);
    const interrupted = noticesOf(await logOf(second), "session.run_interrupted");
    expect(interrupted).toEqual([{ type: "session.run_interrupted", runId: "run_dead", code: "host_restart" }]);
    expect(driver.runs.map((r) => r.prompt)).toEqual(["next"]);
    expect(second.state()).toBe("idle");
  });
});

describe("input racing an archive", () => {
  it("a submit made while the archive stops the run in flight is refused with session_archived, not queued for good", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("job");
    await driver.nextRun();
    const archiving = s.archive();
    const late = s.submit("too late").then(
      (value) => value,
      (error: unknown) => error,
    );
    await archiving;
    expect(await late).toMatchObject({ code: "session_archived" });
    expect(s.status().queued).toEqual([]);
  });
});

describe("a session ceiling of zero", () => {
  it("sessionUsd: 0 is reached before any spend: the first submit is refused, and addBudget opens it", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionUsd: 0, sessionTokens: 10 } });
    expect(s.status().guardrails.tripped).toMatchObject({ ceiling: "sessionUsd" });
    await expect(s.submit("spend")).rejects.toMatchObject({ code: "budget_exhausted" });
    await settle();
    expect(driver.runs).toHaveLength(0);
    await s.addBudget(0.5);
    await s.submit("spend");
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
  });

  it("sessionTokens: 0 likewise", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionTokens: 0 } });
    await expect(s.steer("go")).rejects.toMatchObject({ code: "budget_exhausted" });
    expect(driver.runs).toHaveLength(0);
  });
});

describe("both session ceilings reached", () => {
  it("raising the tripped cost ceiling leaves the reached token ceiling tripped: no run starts past it", async () => {
    const driver = heldDriver();
    const s = await start(driver, { budget: { sessionUsd: 1, sessionTokens: 100 } });
    await s.submit("spend");
    (await driver.nextRun()).finish({ usage: { cost_usd: 1, input_tokens: 100, output_tokens: 0 } });
    await until(() => s.state() === "idle" && s.status().guardrails.tripped !== undefined);
    expect(s.status().guardrails.tripped).toMatchObject({ ceiling: "sessionUsd" });
    await s.addBudget(5);
    expect(s.status().guardrails.tripped).toMatchObject({ ceiling: "sessionTokens" });
    await expect(s.submit("more")).rejects.toMatchObject({ code: "budget_exhausted" });
    await s.addBudget({ tokens: 1000 });
    expect(s.status().guardrails.tripped).toBeUndefined();
  });
});
