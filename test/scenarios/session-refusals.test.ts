/**
 * What a session refuses, and with which typed error: arguments of the wrong type, a compaction
 * while a person holds the gate, a second session on one thread, answers on an archived session,
 * inputs the driver does not take — and a session never used that sleeps on its own.
 */
import { Readable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigError, createAgent, InputError, SessionError, SessionExistsError, type Agent } from "../../src/index.js";
import { input } from "../../src/input/index.js";
import { createSession } from "../../src/session/index.js";
import { memorySessionStore } from "../../src/session/stores/memory.js";
import type { Session, SessionOptions } from "../../src/session/types.js";
import { heldDriver, logOf, noticesOf, until, type HeldDriver } from "../session/harness.js";

let agent: Agent | undefined;
let sessions: Session[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const s of sessions) await s.close();
  await agent?.close();
  sessions = [];
  agent = undefined;
});

async function start(driver: HeldDriver, options: SessionOptions = {}): Promise<Session> {
  agent ??= createAgent(driver);
  const s = await createSession(agent, options);
  sessions.push(s);
  return s;
}

describe("argument types", () => {
  it("a hold or pause reason that is not a string is a ConfigError naming the verb, and closes no gate", async () => {
    const s = await start(heldDriver());
    const pause = s.pause(42 as unknown as string);
    await expect(pause).rejects.toBeInstanceOf(ConfigError);
    await expect(s.pause({} as unknown as string)).rejects.toThrow(/pause reason/);
    await expect(s.interruptAndHold(undefined as unknown as string)).rejects.toBeInstanceOf(ConfigError);
    await expect(s.interruptAndHold(null as unknown as string)).rejects.toThrow(/interruptAndHold reason/);
    expect(s.status().gate).toEqual({ open: true });
  });

  it("text that is not a string is a ConfigError for submit, steer, followUp and a resume message", async () => {
    const s = await start(heldDriver());
    await expect(s.submit(1 as unknown as string)).rejects.toThrow(ConfigError);
    await expect(s.steer([] as unknown as string)).rejects.toThrow(/steer text/);
    await expect(s.followUp(undefined as unknown as string)).rejects.toThrow(/followUp text/);
    await expect(s.resume({ mode: "continue", message: 7 as unknown as string })).rejects.toThrow(/resume message/);
    expect(s.status().queued).toEqual([]);
  });
});

describe("compaction and the gate", () => {
  it("compact is refused as session_busy while a person holds or pauses the session, and nothing is launched", async () => {
    const driver = heldDriver();
    const s = await start(driver);
    await s.interruptAndHold("reviewing");
    await expect(s.compact()).rejects.toMatchObject({ code: "session_busy", message: expect.stringMatching(/held \(reviewing\)/) });
    await s.resume({ mode: "continue" });
    await s.pause("lunch");
    const paused = s.compact();
    await expect(paused).rejects.toBeInstanceOf(SessionError);
    await expect(paused).rejects.toThrow(/paused \(lunch\)/);
    expect(driver.runs).toHaveLength(0);
    expect(s.state()).toBe("created");
  });
});

describe("one session per thread", () => {
  it("a second session on a thread a live session of the store drives is refused, naming the thread and the session", async () => {
    const store = memorySessionStore();
    const driver = heldDriver();
    await start(driver, { id: "first", store, threadId: "shared" });
    const second = start(driver, { id: "second", store, threadId: "shared" });
    await expect(second).rejects.toBeInstanceOf(SessionExistsError);
    await expect(start(driver, { id: "second", store, threadId: "shared" })).rejects.toThrow(/thread "shared" is already driven by session "first"/);
    // A thread named like another session is free unless a session drives it ("first" drives "shared").
    await expect(start(driver, { id: "third", store, threadId: "first" })).resolves.toBeDefined();
    await expect(start(driver, { id: "fourth", store, threadId: "first" })).rejects.toThrow(/session "third"/);
    expect((await store.list()).map((r) => r.id).sort()).toEqual(["first", "third"]);
  });

  it("an archived session's thread may be taken by a new session (the archived one never drives it again)", async () => {
    const store = memorySessionStore();
    const driver = heldDriver();
    const first = await start(driver, { id: "first", store, threadId: "shared" });
    await first.archive();
    const next = await start(driver, { id: "next", store, threadId: "shared" });
    expect(next.status().threadId).toBe("shared");
    await next.submit("go on");
    (await driver.nextRun()).finish();
    await until(() => next.state() === "idle");
    await expect(first.submit("me too")).rejects.toMatchObject({ code: "session_archived" });
  });
});

describe("answers on an archived session", () => {
  it("respond, answer and decline say session_archived, not request_not_pending", async () => {
    const s = await start(heldDriver());
    await s.archive();
    expect(() => s.respond("req_1", { decision: "allow" } as never)).toThrow(expect.objectContaining({ code: "session_archived" }));
    expect(() => s.answer("req_1", { q: "yes" })).toThrow(expect.objectContaining({ code: "session_archived" }));
    expect(() => s.decline("req_1")).toThrow(expect.objectContaining({ code: "session_archived" }));
  });
});

describe("inputs the driver cannot take", () => {
  it("are refused at submit with InputError, without launching anything, so the prompts queued with them still run", async () => {
    const driver = heldDriver(); // declares no input kinds
    const s = await start(driver);
    await s.submit("busy");
    const busy = await driver.nextRun();
    const { promptId: other } = await s.submit("another user's prompt");
    let opened = false;
    const picture = input.fromOpener("image", "pic.png", () => {
      opened = true;
      throw new Error("never opened");
    });
    const refused = s.submit("look at this", { inputs: [picture] });
    await expect(refused).rejects.toBeInstanceOf(InputError);
    await expect(s.submit("look at this", { inputs: [picture] })).rejects.toMatchObject({ code: "input_kind_unsupported" });
    expect(s.status().queued).toEqual([other]);
    busy.finish();
    const next = await driver.nextRun();
    expect(next.prompt).toBe("another user's prompt");
    next.finish();
    await until(() => s.state() === "idle");
    expect(noticesOf(await logOf(s), "session.error")).toEqual([]);
    expect(driver.runs).toHaveLength(2);
    expect(opened).toBe(false);
  });

  it("inputs of a kind the driver declares pass the submit check", async () => {
    const held = heldDriver();
    const declared: HeldDriver = { ...held, descriptor: () => ({ ...held.descriptor(), inputs: { image: { modes: ["workspace_reference"] }, file: { modes: [] }, audio: { modes: [] } } }) };
    const s = await start(declared);
    const picture = input.fromOpener("image", "pic.png", () => Readable.from([Buffer.from([1, 2, 3])]));
    const { promptId } = await s.submit("look at this", { inputs: [picture], wake: false });
    expect(s.status().queued).toEqual([promptId]);
  });
});

describe("a session never used", () => {
  it("sleeps on its own after idleSleepMs (reason idle_timeout) and wakes on input", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const driver = heldDriver();
    const s = await start(driver, { idleSleepMs: 60_000 });
    expect(s.state()).toBe("created");
    vi.advanceTimersByTime(59_999);
    expect(s.state()).toBe("created");
    vi.advanceTimersByTime(1);
    await until(() => s.state() === "sleeping");
    expect(s.status().sleepReason).toBe("idle_timeout");
    await s.submit("hello");
    (await driver.nextRun()).finish();
    await until(() => s.state() === "idle");
  });

  it("with context queued (wake: false) it stays awake", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const s = await start(heldDriver(), { idleSleepMs: 60_000 });
    await s.submit("for later", { wake: false });
    vi.advanceTimersByTime(10 * 60_000);
    expect(s.state()).toBe("created");
  });
});
