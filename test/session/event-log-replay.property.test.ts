/**
 * Property: a subscriber starting at ANY sequence number receives exactly the live stream from
 * there — every event after its `after`, once, in order, equal to what was appended — however its
 * replay (store pages, then unstored events, then live) interleaves with appends, batched writes
 * and flushes. Random schedules on the memory store and on SQLite, with small pages and batches so
 * every handoff is crossed many times. Subscribers reading in bursts (`batch: true`) get non-empty
 * arrays whose concatenation is that same stream.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

import { openEventLog } from "../../src/session/event-log.js";
import { memorySessionStore } from "../../src/session/stores/memory.js";
import { sqliteSessionStore } from "../../src/session/stores/sqlite.js";
import type { SessionEvent, SessionStore } from "../../src/session/types.js";
import { newSessionRecord } from "../../src/testing/session-store-suite.js";

const dir = mkdtempSync(join(tmpdir(), "aa-event-log-prop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Op =
  | { kind: "append"; count: number }
  | { kind: "tick" }
  | { kind: "flush" }
  | { kind: "subscribe"; offset: number; batch: boolean }
  | { kind: "pull"; subscriber: number; count: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("append" as const), count: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("tick" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("flush" as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("subscribe" as const), offset: fc.integer({ min: -3, max: 200 }), batch: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("pull" as const), subscriber: fc.nat({ max: 7 }), count: fc.integer({ min: 1, max: 60 }) }),
  },
);

interface Sub {
  after: number;
  iterator: AsyncIterator<SessionEvent>;
  requested: number;
  pulls: Promise<IteratorResult<SessionEvent>>[];
}

/** A subscriber reading in bursts: one pull at a time, each answered with however many events are at hand. */
interface BatchSub {
  after: number;
  iterator: AsyncIterator<readonly SessionEvent[]>;
  got: SessionEvent[];
  pull: Promise<void> | undefined;
}

/** Runs one schedule; returns each subscriber's `after` and what it received, and everything appended. */
async function runSchedule(store: SessionStore, ops: Op[]): Promise<{ appended: SessionEvent[]; subs: { after: number; got: SessionEvent[] }[] }> {
  const record = newSessionRecord();
  await store.create(record);
  await store.acquireOwner(record.id, "host", 600_000);
  const log = await openEventLog({ store, sessionId: record.id, owner: "host", maxBatch: 5, pageSize: 7, bufferSize: 100_000 });
  const appended: SessionEvent[] = [];
  const subs: Sub[] = [];
  const batchSubs: BatchSub[] = [];
  // A pull is made only while an event it has not got exists, so it cannot wait forever.
  const pullBatch = (sub: BatchSub): Promise<void> | undefined => {
    if (sub.pull !== undefined || sub.after + sub.got.length >= log.lastSeq) return sub.pull;
    sub.pull = sub.iterator.next().then((result) => {
      expect(result.done).toBe(false);
      expect(result.value!.length).toBeGreaterThan(0);
      sub.got.push(...result.value!);
      sub.pull = undefined;
    });
    return sub.pull;
  };
  // Requests never exceed what has been appended, so no pull can wait for an event that never comes.
  const request = (sub: Sub, count: number): void => {
    const open = Math.min(count, log.lastSeq - sub.after - sub.requested);
    for (let i = 0; i < open; i++) sub.pulls.push(sub.iterator.next());
    sub.requested += Math.max(0, open);
  };
  for (const step of ops) {
    if (step.kind === "append") {
      for (let i = 0; i < step.count; i++) appended.push(log.append({ type: "session.prompt_queued", promptId: `p${appended.length}`, wake: i % 2 === 0 }));
    } else if (step.kind === "tick") {
      await new Promise((resolve) => setImmediate(resolve));
    } else if (step.kind === "flush") {
      await log.flush();
    } else if (step.kind === "subscribe") {
      const after = Math.max(0, Math.min(log.lastSeq, log.lastSeq - step.offset));
      if (step.batch) batchSubs.push({ after, iterator: log.subscribe({ after, batch: true })[Symbol.asyncIterator](), got: [], pull: undefined });
      else subs.push({ after, iterator: log.subscribe({ after })[Symbol.asyncIterator](), requested: 0, pulls: [] });
    } else {
      if (subs.length > 0) request(subs[step.subscriber % subs.length]!, step.count);
      if (batchSubs.length > 0) void pullBatch(batchSubs[step.subscriber % batchSubs.length]!);
    }
  }
  const results = [];
  for (const sub of subs) {
    request(sub, Number.MAX_SAFE_INTEGER);
    // A subscriber that misses an event would wait for it forever: fail the run instead.
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`a subscriber after ${sub.after} stalled before receiving every event`)), 10_000);
    });
    const settled = await Promise.race([Promise.all(sub.pulls), stalled]).finally(() => clearTimeout(timer));
    const got = settled.map((r) => {
      expect(r.done).toBe(false);
      return r.value as SessionEvent;
    });
    results.push({ after: sub.after, got });
  }
  for (const sub of batchSubs) {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`a batch subscriber after ${sub.after} stalled before receiving every event`)), 10_000);
    });
    try {
      for (let pull = pullBatch(sub); pull !== undefined; pull = pullBatch(sub)) await Promise.race([pull, stalled]);
    } finally {
      clearTimeout(timer);
    }
    results.push({ after: sub.after, got: sub.got });
  }
  await log.close();
  return { appended, subs: results };
}

function checkProperty(makeStore: () => SessionStore, numRuns: number): Promise<void> {
  const store = makeStore();
  return fc
    .assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 60 }), async (ops) => {
        const { appended, subs } = await runSchedule(store, ops);
        for (const sub of subs) expect(sub.got).toEqual(appended.slice(sub.after));
      }),
      { numRuns },
    )
    .finally(() => store.close());
}

describe("event log replay equals the live stream from any sequence", () => {
  it("on the memory store", () => checkProperty(() => memorySessionStore(), 150), 120_000);
  it("on SQLite", () => checkProperty(() => sqliteSessionStore({ path: join(dir, "prop.db") }), 60), 120_000);
});
