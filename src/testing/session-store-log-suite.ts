/**
 * The event-log half of the session store suite (`runSessionStoreSuite`): contiguous appends as
 * the owner, gaps and duplicates refused, paged reads, `lastSeq`, trimming by count and by age,
 * and the log deleted with its record.
 */
import assert from "node:assert/strict";

import type { NewSessionRecord, SessionEvent, SessionStore } from "../session/types.js";
import type { ConformanceRunner } from "./conformance.js";
import { contenderStores, hasCode, type StoreCase } from "./store-suite-kit.js";

/** What the suite's case groups share. */
export interface SuiteContext {
  it: ConformanceRunner["it"];
  timeout: number;
  contenders: number;
  reopen: ((store: SessionStore) => SessionStore | Promise<SessionStore>) | undefined;
  withStore: (body: StoreCase<SessionStore>) => () => Promise<void>;
}

let counter = 0;
function record(): NewSessionRecord {
  counter += 1;
  const id = `log-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  return {
    id,
    threadId: id,
    driver: "fake",
    workspace: "/w",
    state: "idle",
    gate: { open: true },
    guardrails: { spentUsd: 0, spentTokens: 0, budget: {} },
    queue: [],
    settings: { idleSleepMs: 0, inboxCap: 100 },
    metadata: {},
  };
}

/** Events `from … to` of session `id`, each a distinct, JSON-shaped value. */
export function sessionEvents(id: string, from: number, to: number, at: number = Date.now()): SessionEvent[] {
  const out: SessionEvent[] = [];
  for (let seq = from; seq <= to; seq++) {
    out.push({
      seq,
      sessionId: id,
      at,
      event: { type: "session.prompt_queued", promptId: `p-${seq}`, from: `user ✓ ${"x".repeat(seq % 7)}\u0000`, wake: seq % 2 === 0 },
    });
  }
  return out;
}

/** A session owned by `host`, created in `store`. */
async function ownedSession(store: SessionStore): Promise<string> {
  const input = record();
  await store.create(input);
  assert.equal(await store.acquireOwner(input.id, "host", 60_000), true);
  return input.id;
}

// long-function: registers the suite's event-log cases one after another; each case is short and stands alone
export function registerSessionLogCases({ it, timeout, withStore, reopen, contenders }: SuiteContext): void {
  it("appends contiguous batches and reads them back in order, equal to what was appended", withStore(async (store) => {
    const id = await ownedSession(store);
    assert.equal(await store.lastSeq(id), 0);
    const events = sessionEvents(id, 1, 25);
    await store.appendEvents(id, "host", events.slice(0, 1));
    await store.appendEvents(id, "host", events.slice(1, 10));
    await store.appendEvents(id, "host", []);
    await store.appendEvents(id, "host", events.slice(10));
    assert.equal(await store.lastSeq(id), 25);
    assert.deepEqual(await store.readEvents(id, { after: 0 }), events);
    assert.deepEqual(await store.readEvents(id, { after: 10, limit: 5 }), events.slice(10, 15));
    assert.deepEqual(await store.readEvents(id, { after: 25 }), []);
    assert.deepEqual(await store.readEvents(id, { after: 24, limit: 100 }), events.slice(24));
  }), timeout);

  it("pages through a long log with the default limit of 1000", withStore(async (store) => {
    const id = await ownedSession(store);
    await store.appendEvents(id, "host", sessionEvents(id, 1, 1500));
    const first = await store.readEvents(id, { after: 0 });
    assert.equal(first.length, 1000);
    const second = await store.readEvents(id, { after: first[first.length - 1]!.seq });
    assert.deepEqual([...first, ...second].map((e) => e.seq), Array.from({ length: 1500 }, (_, i) => i + 1));
  }), timeout);

  it("refuses a gap or a duplicate with store_seq_conflict and stores nothing of that batch", withStore(async (store) => {
    const id = await ownedSession(store);
    await store.appendEvents(id, "host", sessionEvents(id, 1, 3));
    await assert.rejects(store.appendEvents(id, "host", sessionEvents(id, 5, 6)), hasCode("store_seq_conflict"), "a gap");
    await assert.rejects(store.appendEvents(id, "host", sessionEvents(id, 3, 4)), hasCode("store_seq_conflict"), "a duplicate");
    await assert.rejects(store.appendEvents(id, "host", sessionEvents(id, 1, 1)), hasCode("store_seq_conflict"), "a replay");
    const gapInside = [...sessionEvents(id, 4, 4), ...sessionEvents(id, 6, 6)];
    await assert.rejects(store.appendEvents(id, "host", gapInside), hasCode("store_seq_conflict"), "a gap inside the batch");
    assert.equal(await store.lastSeq(id), 3);
    assert.deepEqual((await store.readEvents(id, { after: 0 })).map((e) => e.seq), [1, 2, 3]);
    await store.appendEvents(id, "host", sessionEvents(id, 4, 4));
    assert.equal(await store.lastSeq(id), 4);
  }), timeout);

  it("refuses events of another session and appends from a non-owner", withStore(async (store) => {
    const id = await ownedSession(store);
    await assert.rejects(store.appendEvents(id, "host", sessionEvents("other", 1, 1)), hasCode("config_invalid"));
    await assert.rejects(store.appendEvents(id, "intruder", sessionEvents(id, 1, 1)), hasCode("lease_lost"));
    await assert.rejects(store.appendEvents("no-such-session", "host", sessionEvents("no-such-session", 1, 1)), hasCode("session_not_found"));
    assert.equal(await store.lastSeq(id), 0);
  }), timeout);

  it(`lets exactly one of ${contenders} concurrent appends of the same seq through`, withStore(async (store, opened) => {
    const id = await ownedSession(store);
    await store.appendEvents(id, "host", sessionEvents(id, 1, 2));
    const stores = await contenderStores(store, reopen, Math.min(contenders, 4) - 1, opened);
    const results = await Promise.allSettled(
      Array.from({ length: contenders }, (_, i) => stores[i % stores.length]!.appendEvents(id, "host", sessionEvents(id, 3, 4 + (i % 3)))),
    );
    const won = results.filter((r) => r.status === "fulfilled").length;
    assert.equal(won, 1, "exactly one batch continues the log");
    for (const r of results) if (r.status === "rejected") hasCode("store_seq_conflict")(r.reason);
    const seqs = (await store.readEvents(id, { after: 0 })).map((e) => e.seq);
    assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), "the log stays contiguous");
    assert.equal(await store.lastSeq(id), seqs.length);
  }), timeout);

  it("trims by count, keeping the newest and lastSeq, and the log continues after it", withStore(async (store) => {
    const id = await ownedSession(store);
    await store.appendEvents(id, "host", sessionEvents(id, 1, 50));
    assert.equal(await store.trimEvents(id, { maxEvents: 20 }), 30);
    assert.deepEqual((await store.readEvents(id, { after: 0 })).map((e) => e.seq), Array.from({ length: 20 }, (_, i) => i + 31));
    assert.equal(await store.trimEvents(id, { maxEvents: 20 }), 0, "nothing more to trim");
    assert.equal(await store.trimEvents(id, { maxEvents: 0 }), 20, "maxEvents 0 drops everything");
    assert.equal(await store.lastSeq(id), 50, "lastSeq survives trimming");
    assert.deepEqual(await store.readEvents(id, { after: 0 }), []);
    await assert.rejects(store.appendEvents(id, "host", sessionEvents(id, 1, 1)), hasCode("store_seq_conflict"), "seq is never reused");
    await store.appendEvents(id, "host", sessionEvents(id, 51, 52));
    assert.deepEqual((await store.readEvents(id, { after: 0 })).map((e) => e.seq), [51, 52]);
    assert.equal(await store.trimEvents("no-such-session", { maxEvents: 1 }), 0);
  }), timeout);

  it("trims by age: the oldest events up to the first young enough", withStore(async (store) => {
    const id = await ownedSession(store);
    const now = Date.now();
    await store.appendEvents(id, "host", sessionEvents(id, 1, 10, now - 3_600_000));
    await store.appendEvents(id, "host", sessionEvents(id, 11, 15, now));
    assert.equal(await store.trimEvents(id, { maxAgeMs: 600_000 }), 10);
    assert.deepEqual((await store.readEvents(id, { after: 0 })).map((e) => e.seq), [11, 12, 13, 14, 15]);
    assert.equal(await store.trimEvents(id, { maxAgeMs: 600_000, maxEvents: 3 }), 2, "both limits apply");
    assert.deepEqual((await store.readEvents(id, { after: 0 })).map((e) => e.seq), [13, 14, 15]);
  }), timeout);

  it("deletes the log with its record; a new session under the id starts at seq 1", withStore(async (store) => {
    const id = await ownedSession(store);
    await store.appendEvents(id, "host", sessionEvents(id, 1, 5));
    assert.equal(await store.delete(id), true);
    assert.deepEqual(await store.readEvents(id, { after: 0 }), []);
    assert.equal(await store.lastSeq(id), 0);
    await store.create({ ...record(), id });
    await store.acquireOwner(id, "host", 60_000);
    await store.appendEvents(id, "host", sessionEvents(id, 1, 1));
    assert.deepEqual((await store.readEvents(id, { after: 0 })).map((e) => e.seq), [1]);
  }), timeout);

  it("validates read and trim options with config_invalid", withStore(async (store) => {
    const id = await ownedSession(store);
    await assert.rejects(store.readEvents(id, { after: -1 }), hasCode("config_invalid"));
    await assert.rejects(store.readEvents(id, { after: 0, limit: 0 }), hasCode("config_invalid"));
    await assert.rejects(store.readEvents(id, { after: 1.5 }), hasCode("config_invalid"));
    await assert.rejects(store.trimEvents(id, { maxEvents: -1 }), hasCode("config_invalid"));
  }), timeout);

  if (reopen) {
    it("keeps the log across closing and reopening", withStore(async (store, opened) => {
      const id = await ownedSession(store);
      const events = sessionEvents(id, 1, 30);
      await store.appendEvents(id, "host", events);
      const again = await reopen(store);
      opened.push(again);
      assert.deepEqual(await again.readEvents(id, { after: 0 }), events);
      assert.equal(await again.lastSeq(id), 30);
      await again.appendEvents(id, "host", sessionEvents(id, 31, 31));
      assert.equal(await store.lastSeq(id), 31, "both instances see one log");
    }), timeout);
  }
}
