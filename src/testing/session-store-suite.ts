/**
 * The session store suite: one set of tests every `SessionStore` — the built-in in-memory, SQLite
 * and PostgreSQL stores, or a host's own — runs with the host's own test runner. It checks the
 * contract through the public methods only: records and their copies, typed errors, ownership
 * (acquire, renew, release, takeover after expiry, exactly one winner under contention), patches
 * as the owner, and the event log (contiguous appends refused with `store_seq_conflict` on a gap
 * or duplicate, paged reads, `lastSeq`, trimming by count and age, deletion with the record).
 *
 * ```ts
 * import { describe, it } from "vitest";
 * import { runSessionStoreSuite } from "agent-adaptor/testing";
 *
 * runSessionStoreSuite(() => myStore(freshLocation()), {
 *   runner: { describe, it },
 *   reopen: (store) => myStore(locationOf(store)),
 * });
 * ```
 */
import assert from "node:assert/strict";

import type { NewSessionRecord, SessionStore } from "../session/types.js";
import type { ConformanceRunner } from "./conformance.js";
import { registerSessionLogCases, type SuiteContext } from "./session-store-log-suite.js";
import { contenderStores, hasCode, sleep, storeCases } from "./store-suite-kit.js";

export interface SessionStoreSuiteOptions {
  /** The `describe`/`it` pair of any runner (vitest, node:test, jest, mocha). */
  runner: ConformanceRunner;
  /**
   * Opens another store over the same data as `store` (the same file, database, schema, ...), as
   * a second process would. With it the suite also checks that records and logs survive closing
   * the store and races contenders through several store instances at once. The suite closes
   * `store` itself when it is done with it.
   */
  reopen?: (store: SessionStore) => SessionStore | Promise<SessionStore>;
  /** Contenders in the concurrent-ownership and concurrent-append tests (default 16). */
  contenders?: number;
  /** Per-test timeout in ms (default 30 000). */
  timeoutMs?: number;
}

let counter = 0;
/** A new record with every field set, under a fresh id. */
export function newSessionRecord(overrides: Partial<NewSessionRecord> = {}): NewSessionRecord {
  counter += 1;
  const id = `session-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  return {
    id,
    threadId: `thread-of-${id}`,
    driver: "fake",
    workspace: "/workspace/project",
    state: "created",
    gate: { open: true },
    guardrails: { spentUsd: 0, spentTokens: 0, budget: { sessionUsd: 5 } },
    queue: [],
    settings: { idleSleepMs: 900_000, inboxCap: 100 },
    metadata: { tenant: "42" },
    ...overrides,
  };
}

/** Waits until `owner`'s ownership of `id` has expired on the store's clock, by taking it over. */
async function takeOverAfterExpiry(store: SessionStore, id: string, taker: string, ttlMs: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await store.acquireOwner(id, taker, ttlMs))) {
    assert.ok(Date.now() < deadline, "expired ownership can be taken over");
    await sleep(25);
  }
}

/** Register the session store suite for `makeStore` (a new, empty store on every call). */
export function runSessionStoreSuite(makeStore: () => SessionStore | Promise<SessionStore>, options: SessionStoreSuiteOptions): void {
  const context: SuiteContext = {
    it: options.runner.it,
    timeout: options.timeoutMs ?? 30_000,
    contenders: options.contenders ?? 16,
    reopen: options.reopen,
    withStore: storeCases(makeStore),
  };
  options.runner.describe("session store", () => {
    options.runner.describe("records", () => registerRecordCases(context));
    options.runner.describe("ownership", () => registerOwnershipCases(context));
    options.runner.describe("event log", () => registerSessionLogCases(context));
  });
}

// long-function: registers the suite's record cases one after another; each case is short and stands alone
function registerRecordCases({ it, timeout, withStore, reopen }: SuiteContext): void {
  it("creates a record and reads it back with every field", withStore(async (store) => {
    const input = newSessionRecord({
      sleepReason: "manual",
      state: "sleeping",
      gate: { open: false, by: "hold", reason: "lunch", since: "2026-01-01T00:00:00.000Z" },
      queue: [{ promptId: "p1", text: "hi ✓", from: "ann", wake: true, kind: "prompt", inputCount: 1, queuedAt: "2026-01-01T00:00:00.000Z" }],
      inFlight: { runId: "run-1", promptIds: ["p0"], startedAt: "2026-01-01T00:00:00.000Z" },
      settings: { idleSleepMs: 60_000, inboxCap: 3, retention: { maxEvents: 10, maxAgeMs: 1000 } },
    });
    const created = await store.create(input);
    for (const key of Object.keys(input) as (keyof NewSessionRecord)[]) assert.deepEqual(created[key], input[key], `${key} is kept`);
    assert.equal(created.owner, undefined, "a new session has no owner");
    assert.ok(!Number.isNaN(Date.parse(created.createdAt)) && created.createdAt === created.updatedAt, "ISO timestamps, equal at creation");
    assert.deepEqual(await store.get(input.id), created, "get returns what create returned");
  }), timeout);

  it("rejects a duplicate id with session_exists and keeps the original", withStore(async (store) => {
    const input = newSessionRecord();
    const created = await store.create(input);
    await assert.rejects(store.create({ ...input, driver: "other" }), hasCode("session_exists"));
    assert.deepEqual(await store.get(input.id), created);
  }), timeout);

  it("answers unknown ids: get → undefined, delete → false, acquire/update → session_not_found, reads empty", withStore(async (store) => {
    assert.equal(await store.get("no-such-session"), undefined);
    assert.equal(await store.delete("no-such-session"), false);
    await assert.rejects(store.acquireOwner("no-such-session", "host", 1000), hasCode("session_not_found"));
    await assert.rejects(store.update("no-such-session", "host", { state: "idle" }), hasCode("session_not_found"));
    assert.equal(await store.renewOwner("no-such-session", "host", 1000), false);
    await store.releaseOwner("no-such-session", "host");
    assert.deepEqual(await store.readEvents("no-such-session", { after: 0 }), []);
    assert.equal(await store.lastSeq("no-such-session"), 0);
  }), timeout);

  it("detaches records from the host's objects, in and out", withStore(async (store) => {
    const input = newSessionRecord();
    const created = await store.create(input);
    const snapshot = structuredClone(created);
    input.metadata.tenant = "mutated";
    input.queue.push({ promptId: "x", text: "x", wake: true, kind: "prompt", inputCount: 0, queuedAt: "now" });
    created.guardrails.spentUsd = 99;
    assert.deepEqual(await store.get(input.id), snapshot, "host mutation never reaches the store");
    const [listed] = await store.list();
    listed!.metadata.tenant = "mutated";
    assert.deepEqual(await store.get(input.id), snapshot, "list returns detached copies");
  }), timeout);

  it("lists newest updatedAt first, with a limit and a state filter", withStore(async (store) => {
    const a = await store.create(newSessionRecord());
    await sleep(5);
    const b = await store.create(newSessionRecord({ state: "sleeping" }));
    await sleep(5);
    const c = await store.create(newSessionRecord());
    assert.deepEqual((await store.list()).map((r) => r.id), [c.id, b.id, a.id]);
    assert.deepEqual((await store.list({ limit: 2 })).map((r) => r.id), [c.id, b.id]);
    assert.deepEqual((await store.list({ state: "sleeping" })).map((r) => r.id), [b.id]);
    await sleep(5);
    await store.acquireOwner(a.id, "host", 60_000);
    await store.update(a.id, "host", { state: "idle" });
    assert.equal((await store.list())[0]!.id, a.id, "an update moves the record to the front");
    assert.deepEqual((await store.list({ state: "idle" })).map((r) => r.id), [a.id]);
  }), timeout);

  it("applies a patch as the owner: replaces the named fields, clears inFlight and sleepReason, keeps the rest", withStore(async (store) => {
    const input = newSessionRecord({ sleepReason: "idle_timeout", state: "sleeping" });
    const created = await store.create(input);
    assert.equal(await store.acquireOwner(input.id, "host", 60_000), true);
    await sleep(2);
    const patch = {
      state: "running" as const,
      inFlight: { runId: "run-7", promptIds: ["p1", "p2"], startedAt: "2026-01-01T00:00:00.000Z" },
      guardrails: { spentUsd: 1.5, spentTokens: 300, budget: { sessionUsd: 5 }, tripped: { ceiling: "sessionUsd" as const, at: "t" } },
      clear: ["sleepReason" as const],
    };
    const updated = await store.update(input.id, "host", patch);
    assert.equal(updated.state, "running");
    assert.deepEqual(updated.inFlight, patch.inFlight);
    assert.deepEqual(updated.guardrails, patch.guardrails);
    assert.equal(updated.sleepReason, undefined, "clear removes sleepReason");
    assert.deepEqual(updated.queue, created.queue);
    assert.equal(updated.threadId, created.threadId);
    assert.equal(updated.createdAt, created.createdAt);
    assert.ok(updated.updatedAt >= created.updatedAt, "updatedAt never goes back");
    patch.inFlight.promptIds.push("mutated");
    const got = await store.get(input.id);
    assert.deepEqual(got?.inFlight?.promptIds, ["p1", "p2"], "the patch is copied");
    const settings = { ...created.settings, inboxCap: 7, retention: { maxEvents: 50 } };
    const cleared = await store.update(input.id, "host", { clear: ["inFlight"], threadId: "thread-2", settings, metadata: { a: "b" } });
    assert.equal(cleared.inFlight, undefined);
    assert.equal(cleared.threadId, "thread-2");
    assert.deepEqual(cleared.settings, settings, "settings are patchable");
    assert.deepEqual(cleared.metadata, { a: "b" });
    assert.deepEqual(await store.get(input.id), cleared, "what update returned is what is stored");
  }), timeout);

  it("refuses a patch from anyone but the live owner with lease_lost", withStore(async (store) => {
    const input = newSessionRecord();
    await store.create(input);
    await assert.rejects(store.update(input.id, "host", { state: "idle" }), hasCode("lease_lost"), "no owner yet");
    await store.acquireOwner(input.id, "host-a", 60_000);
    await assert.rejects(store.update(input.id, "host-b", { state: "idle" }), hasCode("lease_lost"));
    assert.equal((await store.get(input.id))?.state, "created");
  }), timeout);

  it("deletes a record, after which the id is free again", withStore(async (store) => {
    const input = newSessionRecord();
    await store.create(input);
    const other = await store.create(newSessionRecord());
    assert.equal(await store.delete(input.id), true);
    assert.equal(await store.get(input.id), undefined);
    assert.equal(await store.delete(input.id), false);
    assert.deepEqual((await store.list()).map((r) => r.id), [other.id]);
    assert.equal((await store.create(input)).id, input.id);
  }), timeout);

  it("refuses every call after close with store_closed", withStore(async (store) => {
    const input = newSessionRecord();
    await store.create(input);
    await store.close();
    await store.close();
    await assert.rejects(store.get(input.id), hasCode("store_closed"));
    await assert.rejects(store.create(newSessionRecord()), hasCode("store_closed"));
    await assert.rejects(store.readEvents(input.id, { after: 0 }), hasCode("store_closed"));
  }), timeout);

  if (reopen) {
    it("keeps records and ownership across closing and reopening", withStore(async (store, opened) => {
      const input = newSessionRecord();
      await store.create(input);
      await store.acquireOwner(input.id, "host", 60_000);
      const updated = await store.update(input.id, "host", { state: "idle", queue: [] });
      const again = await reopen(store);
      opened.push(again);
      assert.deepEqual(await again.get(input.id), updated);
      assert.equal(await again.acquireOwner(input.id, "other", 60_000), false, "the owner is still the owner");
    }), timeout);
  }
}

// long-function: registers the suite's ownership cases one after another; each case is short and stands alone
function registerOwnershipCases({ it, timeout, withStore, reopen, contenders }: SuiteContext): void {
  it("takes free ownership, refuses another owner, re-acquires for the same owner", withStore(async (store) => {
    const input = newSessionRecord();
    await store.create(input);
    assert.equal(await store.acquireOwner(input.id, "host-a", 60_000), true);
    const owned = await store.get(input.id);
    assert.equal(owned?.owner?.id, "host-a");
    assert.ok((owned?.owner?.expiresAt ?? 0) > Date.now() + 30_000, "expiresAt is epoch ms about ttl ahead");
    assert.equal(await store.acquireOwner(input.id, "host-b", 60_000), false);
    assert.equal(await store.acquireOwner(input.id, "host-a", 60_000), true, "the owner may acquire again");
    assert.equal((await store.get(input.id))?.owner?.id, "host-a");
  }), timeout);

  it("renews only the live owner's ownership, and release frees it for another", withStore(async (store) => {
    const input = newSessionRecord();
    await store.create(input);
    await store.acquireOwner(input.id, "host-a", 60_000);
    assert.equal(await store.renewOwner(input.id, "host-a", 120_000), true);
    assert.equal(await store.renewOwner(input.id, "host-b", 120_000), false);
    await store.releaseOwner(input.id, "host-b");
    assert.equal((await store.get(input.id))?.owner?.id, "host-a", "only the owner releases");
    await store.releaseOwner(input.id, "host-a");
    assert.equal((await store.get(input.id))?.owner, undefined);
    assert.equal(await store.renewOwner(input.id, "host-a", 1000), false, "a released ownership is not renewed");
    assert.equal(await store.acquireOwner(input.id, "host-b", 60_000), true);
  }), timeout);

  it("lets another host take over once ownership expires; the old owner's writes are refused", withStore(async (store) => {
    const input = newSessionRecord();
    await store.create(input);
    assert.equal(await store.acquireOwner(input.id, "dead-host", 150), true);
    assert.equal(await store.acquireOwner(input.id, "host-b", 60_000), false, "not before expiry");
    await takeOverAfterExpiry(store, input.id, "host-b", 60_000);
    assert.equal((await store.get(input.id))?.owner?.id, "host-b");
    assert.equal(await store.renewOwner(input.id, "dead-host", 60_000), false);
    await assert.rejects(store.update(input.id, "dead-host", { state: "idle" }), hasCode("lease_lost"));
    await assert.rejects(
      store.appendEvents(input.id, "dead-host", [{ seq: 1, sessionId: input.id, at: Date.now(), event: { type: "session.state", state: "idle" } }]),
      hasCode("lease_lost"),
    );
  }), timeout);

  it("an expired owner no longer shows on the record", withStore(async (store) => {
    const input = newSessionRecord();
    await store.create(input);
    await store.acquireOwner(input.id, "host", 100);
    const deadline = Date.now() + 10_000;
    while ((await store.get(input.id))?.owner !== undefined) {
      assert.ok(Date.now() < deadline, "the owner disappears after expiry");
      await sleep(25);
    }
  }), timeout);

  it(`gives ownership to exactly one of ${contenders} concurrent contenders`, withStore(async (store, opened) => {
    const input = newSessionRecord();
    await store.create(input);
    const stores = await contenderStores(store, reopen, Math.min(contenders, 4) - 1, opened);
    const results = await Promise.all(
      Array.from({ length: contenders }, (_, i) => stores[i % stores.length]!.acquireOwner(input.id, `contender-${i}`, 60_000)),
    );
    assert.equal(results.filter(Boolean).length, 1, "exactly one contender owns the session");
    const winner = `contender-${results.indexOf(true)}`;
    assert.equal((await store.get(input.id))?.owner?.id, winner);
  }), timeout);
}
