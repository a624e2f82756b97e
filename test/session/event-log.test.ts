/**
 * The session event log: seq assignment, batched durable writes, store failures (typed on flush,
 * logged as a notice), fan-out to many subscribers with one slow one dropped typed, replay from
 * the store then live with no gap or duplicate, retention in the background.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, describe, expect, it, vi } from "vitest";

import { LeaseLostError, StoreError, SubscriberTooSlowError } from "../../src/errors/index.js";
import { openEventLog, type EventLog } from "../../src/session/event-log.js";
import { memorySessionStore } from "../../src/session/stores/memory.js";
import { sqliteSessionStore } from "../../src/session/stores/sqlite.js";
import type { SessionEvent, SessionNotice, SessionStore } from "../../src/session/types.js";
import { newSessionRecord } from "../../src/testing/session-store-suite.js";

const dir = mkdtempSync(join(tmpdir(), "aa-event-log-"));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const note = (n: number): SessionNotice => ({ type: "session.prompt_queued", promptId: `p-${n}`, wake: true });

/** A session owned by "host" in `store`. */
async function ownedSession(store: SessionStore): Promise<string> {
  const record = newSessionRecord();
  await store.create(record);
  await store.acquireOwner(record.id, "host", 600_000);
  return record.id;
}

async function collect(iterable: AsyncIterable<SessionEvent>, limit = Infinity): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const event of iterable) {
    out.push(event);
    if (out.length >= limit) break;
  }
  return out;
}

/** A store whose appends fail as `fail(callIndex)` says; every other call passes through. */
function faultyStore(inner: SessionStore, fail: (call: number) => Error | undefined): SessionStore & { appends: number } {
  const wrapped = Object.create(inner) as SessionStore & { appends: number };
  wrapped.appends = 0;
  wrapped.appendEvents = async (id, owner, events) => {
    const error = fail(wrapped.appends++);
    if (error !== undefined) throw error;
    return inner.appendEvents(id, owner, events);
  };
  return wrapped;
}

describe("event log: appending and durability", () => {
  it("assigns seq synchronously after the store's last, and flush makes them durable", async () => {
    const store = memorySessionStore();
    const id = await ownedSession(store);
    await store.appendEvents(id, "host", [{ seq: 1, sessionId: id, at: 1, event: note(0) }]);
    const log = await openEventLog({ store, sessionId: id, owner: "host" });
    const a = log.append(note(1));
    const b = log.append(note(2));
    expect([a.seq, b.seq, log.lastSeq]).toEqual([2, 3, 3]);
    expect(a.sessionId).toBe(id);
    expect(log.durableSeq).toBe(1);
    await log.flush();
    expect(log.durableSeq).toBe(3);
    expect((await store.readEvents(id, { after: 1 })).map((e) => e.event)).toEqual([note(1), note(2)]);
    await log.close();
    await expect(Promise.resolve().then(() => log.append(note(3)))).rejects.toMatchObject({ code: "store_closed" });
  });

  it("stamps the appends of one turn with one reading of the default clock, 64 at most; a given clock is read for each", async () => {
    const store = memorySessionStore();
    const id = await ownedSession(store);
    let reads = 0;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => 1_000_000 + ++reads);
    try {
      const log = await openEventLog({ store, sessionId: id, owner: "host" });
      reads = 0;
      const first = Array.from({ length: 100 }, (_, i) => log.append(note(i)).at);
      expect(reads).toBe(2);
      expect(first).toEqual([...Array<number>(64).fill(1_000_001), ...Array<number>(36).fill(1_000_002)]);
      await tick();
      expect(log.append(note(100)).at).toBe(1_000_003);
      await log.close();
    } finally {
      clock.mockRestore();
    }
    let at = 0;
    const log = await openEventLog({ store, sessionId: id, owner: "host", now: () => ++at });
    expect([log.append(note(1)).at, log.append(note(2)).at, log.append(note(3)).at]).toEqual([1, 2, 3]);
    await log.close();
  });

  it("writes what one turn of the event loop appends in batches of at most maxBatch", async () => {
    const store = faultyStore(memorySessionStore(), () => undefined);
    const id = await ownedSession(store);
    const log = await openEventLog({ store, sessionId: id, owner: "host", maxBatch: 400 });
    for (let i = 0; i < 1000; i++) log.append(note(i));
    await log.flush();
    expect(store.appends).toBe(3);
    for (let i = 0; i < 10; i++) log.append(note(i));
    await log.flush();
    expect(store.appends).toBe(4);
    expect(await store.lastSeq(id)).toBe(1010);
    await log.close();
  });

  it("retries a retryable store failure: flush rejects typed, a session.error notice is logged, then everything is stored", async () => {
    const inner = memorySessionStore();
    const store = faultyStore(inner, (call) => (call < 2 ? new StoreError("store_busy", "busy", { retryable: true }) : undefined));
    const id = await ownedSession(inner);
    const log = await openEventLog({ store, sessionId: id, owner: "host" });
    log.append(note(1));
    await expect(log.flush()).rejects.toMatchObject({ code: "store_busy" });
    expect(log.failure).toBeUndefined();
    const live = log.subscribe({ after: 0 })[Symbol.asyncIterator]();
    const deadline = Date.now() + 10_000;
    while (log.durableSeq < log.lastSeq && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await log.flush();
    const stored = await inner.readEvents(id, { after: 0 });
    expect(stored.map((e) => e.event.type)).toEqual(["session.prompt_queued", "session.error"]);
    expect(stored[1]!.event).toMatchObject({ type: "session.error", code: "store_busy" });
    expect((await live.next()).value?.seq).toBe(1);
    await log.close();
  });

  it("breaks on a non-retryable failure: flush keeps rejecting typed, events still go out live, replay past the stored part fails typed", async () => {
    const inner = memorySessionStore();
    let lost = false;
    const store = faultyStore(inner, () => (lost ? new LeaseLostError("the session's ownership was lost") : undefined));
    const id = await ownedSession(inner);
    const log = await openEventLog({ store, sessionId: id, owner: "host" });
    log.append(note(1));
    await log.flush();
    const live = log.subscribe({ after: 1 })[Symbol.asyncIterator]();
    const first = live.next();
    lost = true;
    log.append(note(2));
    expect((await first).value?.seq).toBe(2);
    await expect(log.flush()).rejects.toBeInstanceOf(LeaseLostError);
    expect(log.failure?.code).toBe("lease_lost");
    const notice = await live.next();
    expect(notice.value?.event).toMatchObject({ type: "session.error", code: "lease_lost" });
    log.append(note(3));
    expect((await live.next()).value?.seq).toBe(4);
    await expect(log.flush()).rejects.toMatchObject({ code: "lease_lost" });
    const replay = log.subscribe({ after: 0 })[Symbol.asyncIterator]();
    expect((await replay.next()).value?.seq).toBe(1);
    await expect(replay.next()).rejects.toMatchObject({ code: "lease_lost" });
    await expect(log.close()).rejects.toMatchObject({ code: "lease_lost" });
    expect(await live.next()).toEqual({ done: true, value: undefined });
  });

  it("on SQLite, an event that cannot be stored breaks the log after it went out live; what was stored before stays", async () => {
    const store = sqliteSessionStore({ path: join(dir, `log-${++files}.db`) });
    try {
      const id = await ownedSession(store);
      let at = 1000;
      const log = await openEventLog({ store, sessionId: id, owner: "host", now: () => at });
      log.append(note(1));
      await log.flush();
      const live = log.subscribe({ after: 1 })[Symbol.asyncIterator]();
      const first = live.next();
      await tick(); // live: waiting at the head
      log.append(note(2));
      at = 1000.5;
      log.append(note(3));
      at = 1001;
      log.append(note(4));
      expect((await first).value?.seq).toBe(2);
      const rest = [(await live.next()).value, (await live.next()).value, (await live.next()).value] as SessionEvent[];
      expect(rest.map((e) => [e.seq, e.event.type])).toEqual([
        [3, "session.prompt_queued"],
        [4, "session.error"],
        [5, "session.prompt_queued"],
      ]);
      expect(rest[1]!.event).toMatchObject({ code: "config_invalid" });
      await expect(log.flush()).rejects.toMatchObject({ code: "config_invalid" });
      expect((await store.readEvents(id, { after: 0 })).map((e) => e.seq)).toEqual([1]);
      await expect(log.close()).rejects.toMatchObject({ code: "config_invalid" });
    } finally {
      await store.close();
    }
  });

  it("applies retention in the background as the log grows", async () => {
    const store = memorySessionStore();
    const id = await ownedSession(store);
    const log = await openEventLog({ store, sessionId: id, owner: "host", retention: { maxEvents: 100 } });
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 50; i++) log.append(note(i));
      await log.flush();
      await tick();
    }
    await log.trim();
    const kept = await store.readEvents(id, { after: 0, limit: 10_000 });
    expect(kept.length).toBe(100);
    expect(kept[0]!.seq).toBe(901);
    expect(await store.lastSeq(id)).toBe(1000);
    // A replay from the start begins at the oldest kept event and goes live after it.
    const replay = await collect(log.subscribe({ after: 0 }), 100);
    expect(replay.map((e) => e.seq)).toEqual(kept.map((e) => e.seq));
    await log.close();
  });

  it("refuses bad options with config_invalid", async () => {
    const store = memorySessionStore();
    const id = await ownedSession(store);
    await expect(openEventLog({ store, sessionId: id, owner: "host", maxBatch: 0 })).rejects.toMatchObject({ code: "config_invalid" });
    await expect(openEventLog({ store, sessionId: id, owner: "host", retention: { maxEvents: -1 } })).rejects.toMatchObject({ code: "config_invalid" });
    const log = await openEventLog({ store, sessionId: id, owner: "host" });
    expect(() => log.subscribe({ after: -1 })).toThrow(expect.objectContaining({ code: "config_invalid" }));
    await log.close();
  });
});

describe("event log: subscribers", () => {
  it("ten subscribers on SQLite, one slow: the slow one is dropped with subscriber_too_slow, the others complete and equal", async () => {
    const store = sqliteSessionStore({ path: join(dir, `log-${++files}.db`) });
    const id = await ownedSession(store);
    const log = await openEventLog({ store, sessionId: id, owner: "host", bufferSize: 500 });
    const total = 20_000;
    const fast = Array.from({ length: 9 }, () => collect(log.subscribe(), total));
    const slow = log.subscribe()[Symbol.asyncIterator]();
    const slowFirst = slow.next();
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    const slowDone = (async () => {
      const first = await slowFirst;
      await stalled; // a reader that stops reading
      try {
        for (;;) if ((await slow.next()).done) return { first, error: undefined };
      } catch (error) {
        return { first, error };
      }
    })();
    await tick();
    const appended: SessionEvent[] = [];
    for (let i = 0; i < total; i++) {
      appended.push(log.append(note(i)));
      if (i % 100 === 99) await tick();
    }
    const results = await Promise.all(fast);
    for (const got of results) expect(got).toEqual(appended);
    expect(log.subscriberCount, "the fast ones are done, the slow one was dropped").toBe(0);
    release();
    const { first, error } = await slowDone;
    expect(first.value?.seq).toBe(1);
    expect(error).toBeInstanceOf(SubscriberTooSlowError);
    expect(error).toMatchObject({ code: "subscriber_too_slow", lastSeq: 1, bufferSize: 500 });
    // It resumes from where it was dropped without a gap, from the store.
    await log.flush();
    const resumed = await collect(log.subscribe({ after: (error as SubscriberTooSlowError).lastSeq }), total - 1);
    expect(resumed).toEqual(appended.slice(1));
    await log.close();
    await store.close();
  });

  it("ends iterations quietly on abort, on break and on close", async () => {
    const store = memorySessionStore();
    const id = await ownedSession(store);
    const log = await openEventLog({ store, sessionId: id, owner: "host" });
    const controller = new AbortController();
    const aborted = collect(log.subscribe({ signal: controller.signal }));
    const closed = collect(log.subscribe());
    await tick();
    log.append(note(1));
    await tick();
    controller.abort();
    expect((await aborted).map((e) => e.seq)).toEqual([1]);
    expect(await collect(log.subscribe(), 1)).toHaveLength(1);
    await log.close();
    expect((await closed).map((e) => e.seq)).toEqual([1]);
    expect(log.subscriberCount).toBe(0);
    expect(await collect(log.subscribe())).toEqual([]);
    const already = new AbortController();
    already.abort();
    expect(await collect(log.subscribe({ signal: already.signal }))).toEqual([]);
  });

  it("a subscriber after the head gets only the events past its `after`", async () => {
    const store = memorySessionStore();
    const id = await ownedSession(store);
    const log: EventLog = await openEventLog({ store, sessionId: id, owner: "host" });
    log.append(note(1));
    const ahead = collect(log.subscribe({ after: 3 }), 2);
    await tick();
    for (let i = 2; i <= 5; i++) log.append(note(i));
    expect((await ahead).map((e) => e.seq)).toEqual([4, 5]);
    await log.close();
  });
});
