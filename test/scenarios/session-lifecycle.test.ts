/**
 * A demanding operator's lifecycle scenarios: idle sleep after the queue is abandoned, compaction
 * against a tripped ceiling, the stored record of a run in flight, and a reader that stops reading
 * while a run floods the log — on a driver whose runs the test ends by hand.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgent, SubscriberTooSlowError, type Agent } from "../../src/index.js";
import type { Driver } from "../../src/driver/types.js";
import { createSession } from "../../src/session/index.js";
import { memorySessionStore } from "../../src/session/stores/memory.js";
import type { Session, SessionEvent } from "../../src/session/types.js";
import { heldDriver, logOf, until, type HeldDriver } from "../session/harness.js";

let agent: Agent | undefined;
let session: Session | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await session?.close();
  await agent?.close();
  session = agent = undefined;
});

async function start(driver: Driver, options: Parameters<typeof createSession>[1] = {}): Promise<Session> {
  agent = createAgent(driver);
  session = await createSession(agent, options);
  return session;
}

/** The held driver with the native compaction feature (its compaction turns are held runs too). */
function compacting(driver: HeldDriver): Driver {
  return {
    ...driver,
    descriptor: () => {
      const d = driver.descriptor();
      return { ...d, features: { ...d.features, compact: "native" } };
    },
  };
}

describe("automatic sleep", () => {
  it("a session whose held queue is abandoned sleeps after idleSleepMs again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const driver = heldDriver();
    const s = await start(driver, { idleSleepMs: 60_000 });
    await s.submit("job");
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
    await s.pause("review");
    await s.submit("held");
    await s.resume({ mode: "abandon" });
    expect(s.status().queued).toEqual([]);
    vi.advanceTimersByTime(60_000);
    expect(s.state()).toBe("sleeping");
    expect(s.status().sleepReason).toBe("idle_timeout");
  });

  it("a session whose queued context is abandoned sleeps after idleSleepMs again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const driver = heldDriver();
    const s = await start(driver, { idleSleepMs: 60_000 });
    await s.submit("job");
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
    await s.submit("note", { wake: false });
    vi.advanceTimersByTime(60_000);
    expect(s.state()).toBe("idle"); // something is queued
    await s.resume({ mode: "abandon" });
    vi.advanceTimersByTime(60_000);
    expect(s.state()).toBe("sleeping");
  });
});

describe("compaction and ceilings", () => {
  it("compact is refused with budget_exhausted while a ceiling is tripped, and nothing runs", async () => {
    const driver = heldDriver();
    const s = await start(compacting(driver), { budget: { sessionUsd: 1 } });
    await s.submit("spend");
    (await driver.nextRun()).finish({ usage: { cost_usd: 2 } });
    await until(() => s.status().guardrails.tripped !== undefined && s.state() === "idle");
    // Were the compaction admitted, its held turn is ended here so the test fails instead of hanging.
    const outcome = await Promise.race([
      s.compact().then(() => "compacted", (error: unknown) => error),
      driver.nextRun().then((turn) => (turn.finish(), "started")),
    ]);
    expect(outcome).toMatchObject({ code: "budget_exhausted" });
    expect(driver.runs).toHaveLength(1);
  });
});

describe("the stored run in flight", () => {
  it("keeps the time its run started across later writes of the record", async () => {
    const store = memorySessionStore();
    const driver = heldDriver();
    const s = await start(driver, { store });
    await s.submit("job");
    const run = await driver.nextRun();
    await until(async () => (await store.get(s.id))?.inFlight !== undefined);
    const first = (await store.get(s.id))!.inFlight!;
    await new Promise((resolve) => setTimeout(resolve, 15));
    await s.submit("queued meanwhile");
    await s.configure({ model: "other" });
    const later = (await store.get(s.id))!.inFlight!;
    expect(later).toEqual(first);
    run.finish();
    await until(() => s.state() === "running" && driver.runs.length === 2);
    driver.runs[1]!.finish();
    await store.close();
  });
});

describe("a reader that stops reading", () => {
  it("is dropped with SubscriberTooSlowError while the run and a reading viewer go on with every event", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.submit("flood");
    const run = await driver.nextRun();
    const stalled = s.events()[Symbol.asyncIterator]();
    await stalled.next(); // subscribed, then never read again
    const seen: SessionEvent[] = [];
    const reader = (async () => {
      for await (const entry of s.events()) {
        seen.push(entry);
        if (entry.event.type === "run.completed") return;
      }
    })();
    for (let i = 0; i < 10_050; i++) await run.emit({ type: "message.delta", itemId: "m1", text: "x" });
    run.finish();
    await reader;
    await expect(stalled.next()).rejects.toBeInstanceOf(SubscriberTooSlowError);
    const log = await logOf(s);
    expect(seen.map((e) => e.seq)).toEqual(log.slice(0, seen.length).map((e) => e.seq));
    expect(seen.filter((e) => e.event.type === "message.delta")).toHaveLength(10_050);
  });
});

describe("watchdogs of the session's runs", () => {
  const call = (callId: string, command = "ls") => ({ type: "tool.started" as const, callId, kind: "command" as const, name: "Bash", title: command, command });
  const done = (callId: string) => ({ type: "tool.completed" as const, callId, status: "completed" as const });

  it("repeatToolLimit trips exactly at the limit; a re-announced call id and a different call in between do not count", async () => {
    const driver = heldDriver();
    const s = await start(driver, { watchdogs: { repeatToolLimit: 3 } });
    await s.submit("loop");
    const run = await driver.nextRun();
    await run.emit(call("a"));
    await run.emit(done("a"));
    await run.emit(call("a")); // the same call announced again
    await run.emit(call("b"));
    await run.emit(done("b"));
    await run.emit(call("x", "pwd")); // a different call resets the count
    await run.emit(done("x"));
    await run.emit(call("c"));
    await run.emit(done("c"));
    await run.emit(call("d"));
    await run.emit(done("d"));
    expect(run.cancelled).toBe(false);
    await run.emit(call("e"));
    await run.ended;
    await until(() => s.state() === "idle");
    const failed = (await logOf(s)).map((e) => e.event).find((e) => e.type === "run.failed");
    expect(failed).toMatchObject({ error: { code: "repeat_tool_loop" } });
  });
});
