/**
 * Session lifecycle (issue #18 item 1), clear and the missing-conversation handoff (item 10,
 * session half): one named test per rule, on a driver whose runs the test ends by hand. The idle
 * timer runs on vitest's fake timers.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentClosedError, ConfigError, createAgent, SessionError, type Agent } from "../../src/index.js";
import { createSession, openSession } from "../../src/session/index.js";
import { memorySessionStore } from "../../src/session/stores/memory.js";
import type { OpenSessionOptions, Session, SessionOptions } from "../../src/session/types.js";
import { heldDriver, kinds, logOf, noticesOf, until, type HeldDriver } from "./harness.js";

let agent: Agent | undefined;
let session: Session | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await session?.close();
  await agent?.close();
  session = agent = undefined;
});

async function start(driver: HeldDriver, options: SessionOptions = {}): Promise<Session> {
  agent = createAgent(driver);
  session = await createSession(agent, options);
  return session;
}

describe("session lifecycle", () => {
  it("created → running → idle, each change a session.state notice", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    expect(s.state()).toBe("created");
    await s.submit("hi");
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
    expect(noticesOf(await logOf(s), "session.state").map((n) => n.state)).toEqual(["created", "running", "idle"]);
  });

  it("idleSleepMs below 60 s is refused with ConfigError; 0 and 60000 are accepted", async () => {
    agent = createAgent(heldDriver());
    await expect(createSession(agent, { idleSleepMs: 59_999 })).rejects.toBeInstanceOf(ConfigError);
    await expect(createSession(agent, { idleSleepMs: 1000 })).rejects.toThrow(/idleSleepMs/);
    await (await createSession(agent, { idleSleepMs: 0 })).close();
    await (await createSession(agent, { idleSleepMs: 60_000 })).close();
  });

  it("a misspelt option is refused with ConfigError naming it, by createSession and by openSession", async () => {
    agent = createAgent(heldDriver());
    const typo = { idleSleepMS: 60_000 } as unknown as SessionOptions;
    await expect(createSession(agent, typo)).rejects.toBeInstanceOf(ConfigError);
    await expect(createSession(agent, typo)).rejects.toThrow(/unknown option idleSleepMS/);
    const store = memorySessionStore();
    await (await createSession(agent, { id: "kept", store })).close();
    const openTypo = { store, ownerTTLMs: 1000 } as unknown as OpenSessionOptions;
    await expect(openSession(agent, "kept", openTypo)).rejects.toThrow(/unknown option ownerTTLMs/);
    await (await openSession(agent, "kept", { store })).close();
  });

  it("the idle timeout sleeps the session only after idleSleepMs with an empty queue and no run in flight (reason idle_timeout)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const driver = heldDriver();
    const s = await start(driver, { idleSleepMs: 60_000 });
    await s.submit("job");
    const run = await driver.nextRun();
    vi.advanceTimersByTime(10 * 60_000);
    expect(s.state()).toBe("running"); // a run in flight never sleeps
    run.finish();
    await until(() => s.state() === "idle");
    vi.advanceTimersByTime(59_999);
    expect(s.state()).toBe("idle");
    vi.advanceTimersByTime(1);
    await until(() => s.state() === "sleeping");
    expect(s.status().sleepReason).toBe("idle_timeout");
  });

  it("queued context keeps an idle session awake (the queue must be empty)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const driver = heldDriver();
    const s = await start(driver, { idleSleepMs: 60_000 });
    await s.submit("job");
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
    await s.submit("for later", { wake: false });
    vi.advanceTimersByTime(10 * 60_000);
    expect(s.state()).toBe("idle");
  });

  it("idleSleepMs 0 never sleeps on its own", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const driver = heldDriver();
    const s = await start(driver, { idleSleepMs: 0 });
    await s.submit("job");
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
    vi.advanceTimersByTime(7 * 24 * 3_600_000);
    expect(s.state()).toBe("idle");
  });

  it("sleep releases the thread's warm process, and input wakes it on the same provider conversation", async () => {
    const driver = heldDriver({ writers: true });
    const s = await start(driver);
    await s.submit("first");
    const first = await driver.nextRun();
    first.finish();
    await until(() => s.state() === "idle" && driver.writers.handed === 1);
    expect(driver.writers.closed).toBe(0);
    await s.sleep();
    expect(s.state()).toBe("sleeping");
    expect(s.status().sleepReason).toBe("manual");
    expect(driver.writers.closed).toBe(1);
    await s.submit("wake up", { wake: false });
    expect(s.state()).toBe("sleeping"); // context never wakes
    await s.submit("second");
    const second = await driver.nextRun();
    const states = noticesOf(await logOf(s), "session.state");
    expect(states.slice(-3)).toEqual([
      { type: "session.state", state: "sleeping", reason: "manual" },
      { type: "session.state", state: "idle", reason: "input" },
      { type: "session.state", state: "running" },
    ]);
    expect(second.thread?.providerSessionId).toBeDefined();
    expect(second.thread?.providerSessionId).toBe(first.thread?.providerSessionId ?? "held_session_1");
    second.finish();
  });

  it("sleep while a run is in flight is refused with session_busy", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("job");
    const run = await driver.nextRun();
    await expect(s.sleep()).rejects.toMatchObject({ code: "session_busy" });
    run.finish();
  });

  it("archived refuses all input with SessionError session_archived; reads still work", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("job");
    const run = await driver.nextRun();
    await s.archive();
    await run.ended;
    expect(run.cancelled).toBe(true);
    expect(s.state()).toBe("archived");
    for (const call of [() => s.submit("x"), () => s.steer("x"), () => s.followUp("x"), () => s.resume({ mode: "continue" }), () => s.sleep(), () => s.clear()]) {
      const refusal = await call().then(() => undefined, (error: unknown) => error);
      expect(refusal).toBeInstanceOf(SessionError);
      expect(refusal).toMatchObject({ code: "session_archived" });
    }
    expect(s.status().state).toBe("archived");
    expect(kinds(await logOf(s))).toContain("run.cancelled");
  });

  it("a closed session refuses calls with session_closed", async () => {
    const s = await start(heldDriver());
    await s.close();
    await expect(s.submit("x")).rejects.toMatchObject({ code: "session_closed" });
    session = undefined;
  });

  it("submit, steer and followUp after the session's agent was closed reject with AgentClosedError; a prompt queued before the close is reported in session.error", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("first");
    await driver.nextRun();
    const { promptId: queued } = await s.submit("queued behind the run");
    await agent!.close();
    await until(async () => noticesOf(await logOf(s), "session.error").length > 0);
    expect(noticesOf(await logOf(s), "session.error")).toEqual([expect.objectContaining({ code: "agent_closed", promptIds: [queued] })]);
    for (const options of [{}, { wake: false }]) {
      const refusal = await s.submit("after the close", options).then(() => undefined, (error: unknown) => error);
      expect(refusal).toBeInstanceOf(AgentClosedError);
      expect(refusal).toMatchObject({ code: "agent_closed" });
    }
    await expect(s.steer("steer after the close")).rejects.toBeInstanceOf(AgentClosedError);
    await expect(s.followUp("follow up after the close")).rejects.toBeInstanceOf(AgentClosedError);
    expect(driver.runs.map((run) => run.prompt)).toEqual(["first"]);
  });
});

describe("clear and handoff", () => {
  it("clear starts a fresh thread on the same agent: the session keeps its id and rebinds (session.handoff reason clear)", async () => {
    const driver = heldDriver();
    const s = await start(driver, { id: "clear-me" });
    await s.submit("first");
    const first = await driver.nextRun();
    first.finish();
    await until(() => s.state() === "idle");
    const before = s.status().threadId;
    await s.clear();
    expect(s.id).toBe("clear-me");
    expect(s.status().threadId).not.toBe(before);
    expect(noticesOf(await logOf(s), "session.handoff")).toEqual([{ type: "session.handoff", fromThreadId: before, toThreadId: s.status().threadId, reason: "clear" }]);
    await s.submit("second");
    const second = await driver.nextRun();
    expect(second.thread?.id).toBe(s.status().threadId);
    expect(second.thread?.providerSessionId).toBeUndefined(); // a fresh provider conversation
    second.finish();
  });

  it("a run failing with provider_session_not_found hands off once to a fresh thread led by a summary of the old one", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("remember the number 42");
    (await driver.nextRun()).finish({ text: "noted: 42" });
    await until(() => s.state() === "idle");
    const before = s.status().threadId;
    await s.submit("what was the number?");
    (await driver.nextRun()).finish({ fail: { code: "provider_session_not_found" } });
    const retry = await driver.nextRun();
    expect(retry.thread?.id).not.toBe(before);
    expect(retry.thread?.providerSessionId).toBeUndefined();
    expect(retry.prompt).toContain("User: remember the number 42");
    expect(retry.prompt).toContain("Assistant: noted: 42");
    expect(retry.prompt.endsWith("what was the number?")).toBe(true);
    retry.finish();
    await until(() => s.state() === "idle");
    const handoffs = noticesOf(await logOf(s), "session.handoff");
    expect(handoffs).toEqual([{ type: "session.handoff", fromThreadId: before, toThreadId: retry.thread!.id, reason: "provider_session_missing" }]);
    expect(s.status().threadId).toBe(retry.thread!.id);
  });

  it("other launch failures stay errors and keep the saved identity", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("a");
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
    const before = s.status().threadId;
    await s.submit("b");
    (await driver.nextRun()).finish({ fail: { code: "provider_exited" } });
    await until(() => s.state() === "idle");
    expect(driver.runs).toHaveLength(2);
    expect(s.status().threadId).toBe(before);
    const log = await logOf(s);
    expect(noticesOf(log, "session.handoff")).toEqual([]);
    expect(log.some((entry) => entry.event.type === "run.failed")).toBe(true);
  });
});
