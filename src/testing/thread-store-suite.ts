/**
 * The thread store suite: one set of tests every `ThreadStore` — the built-in in-memory, SQLite
 * and PostgreSQL stores, or a host's own — runs with the host's own test runner. It checks the
 * contract of `ThreadStore` through its public methods only: records and their copies, typed
 * errors, the single-writer lease (acquire, renew, release, takeover after expiry, atomic
 * acquisition under contention), durable checkpoints, the history of ended runs (appended
 * under the lease, paged newest first) and, for a store that keeps it, the drivers' provider state.
 *
 * ```ts
 * import { describe, it } from "vitest";
 * import { runThreadStoreSuite } from "agent-adaptor/testing";
 *
 * runThreadStoreSuite(() => myStore(freshLocation()), {
 *   runner: { describe, it },
 *   reopen: (store) => myStore(locationOf(store)),
 * });
 * ```
 */
import assert from "node:assert/strict";

import type { NewThreadRecord, ThreadLease, ThreadStore } from "../thread/store.js";
import type { ConformanceRunner } from "./conformance.js";
import { registerHistoryCases } from "./thread-store-history-suite.js";
import { registerProviderStateCases } from "./thread-store-state-suite.js";
import { contenderStores, hasCode, sleep, storeCases } from "./store-suite-kit.js";

export interface ThreadStoreSuiteOptions {
  /** The `describe`/`it` pair of any runner (vitest, node:test, jest, mocha). */
  runner: ConformanceRunner;
  /**
   * Opens another store over the same data as `store` (the same file, database, schema, ...),
   * as a second process would. With it the suite also checks that records, leases and
   * checkpoints survive closing the store, and races contenders through several store
   * instances at once. The suite closes `store` itself when it is done with it.
   */
  reopen?: (store: ThreadStore) => ThreadStore | Promise<ThreadStore>;
  /** Contenders in the concurrent-acquire test (default 16). */
  contenders?: number;
  /** Per-test timeout in ms (default 30 000). */
  timeoutMs?: number;
}

let counter = 0;
function newRecord(overrides: Partial<NewThreadRecord> = {}): NewThreadRecord {
  counter += 1;
  return {
    id: `thread-${counter}-${Math.random().toString(36).slice(2, 8)}`,
    driver: "fake",
    fingerprint: "fp-1",
    fingerprintParts: { driver: "d1", workspace: "w1" },
    workspace: "/workspace/project",
    metadata: { tenant: "42" },
    ...overrides,
  };
}

function assertIsoTimestamp(value: unknown, what: string): void {
  assert.equal(typeof value, "string", `${what} is a string`);
  assert.ok(!Number.isNaN(Date.parse(value as string)), `${what} is an ISO-8601 timestamp`);
}

/** Waits until the lease on `id` has expired on the store's clock, by trying to take it over. */
async function takeOverAfterExpiry(store: ThreadStore, id: string, taker: string, ttlMs: number, waitedMs: number): Promise<ThreadLease> {
  await sleep(waitedMs);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lease = await store.acquireLease(id, taker, ttlMs);
    if (lease !== undefined) return lease;
    assert.ok(Date.now() < deadline, "an expired lease can be taken over");
    await sleep(25);
  }
}

/** Register the thread store suite for `makeStore` (a new, empty store on every call). */
// long-function: registers the suite's test cases one after another; each case is short and stands alone
export function runThreadStoreSuite(
  makeStore: () => ThreadStore | Promise<ThreadStore>,
  options: ThreadStoreSuiteOptions,
): void {
  const { describe, it } = options.runner;
  const timeout = options.timeoutMs ?? 30_000;
  const contenders = options.contenders ?? 16;
  const reopen = options.reopen;

  const withStore = storeCases(makeStore);

  describe("thread store", () => {
    describe("records", () => {
      it("creates a record with defaults and reads it back", withStore(async (store) => {
        const input = newRecord();
        const created = await store.create(input);
        assert.equal(created.id, input.id);
        assert.equal(created.driver, "fake");
        assert.equal(created.fingerprint, "fp-1");
        assert.deepEqual(created.fingerprintParts, { driver: "d1", workspace: "w1" });
        assert.equal(created.workspace, "/workspace/project");
        assert.deepEqual(created.metadata, { tenant: "42" });
        assert.deepEqual(created.checkpoint, { turns: 0 }, "a new thread has no turns");
        assert.equal(created.lease, undefined, "a new thread is not leased");
        assert.equal(created.providerSessionId, undefined);
        assert.equal(created.parentId, undefined);
        assertIsoTimestamp(created.createdAt, "createdAt");
        assertIsoTimestamp(created.updatedAt, "updatedAt");
        assert.deepEqual(await store.get(input.id), created, "get returns what create returned");
      }), timeout);

      it("keeps every optional field", withStore(async (store) => {
        const input = newRecord({
          providerSessionId: "session-1",
          parentId: "parent-thread",
          checkpoint: { turns: 3, lastStatus: "failed", lastRunId: "run-3", forkPending: true },
          metadata: { a: "1", b: "two", "with space": "ü ✓" },
          fingerprintParts: { driver: "x", "driver.config": "y", workspace: "z" },
        });
        const created = await store.create(input);
        const got = await store.get(input.id);
        assert.deepEqual(got, created);
        assert.equal(got?.providerSessionId, "session-1");
        assert.equal(got?.parentId, "parent-thread");
        assert.deepEqual(got?.checkpoint, { turns: 3, lastStatus: "failed", lastRunId: "run-3", forkPending: true });
        assert.deepEqual(got?.metadata, { a: "1", b: "two", "with space": "ü ✓" });
        assert.deepEqual(got?.fingerprintParts, { driver: "x", "driver.config": "y", workspace: "z" });
      }), timeout);

      it("rejects a duplicate id with thread_exists and keeps the original", withStore(async (store) => {
        const input = newRecord();
        const created = await store.create(input);
        await assert.rejects(store.create({ ...input, driver: "other" }), hasCode("thread_exists"));
        assert.deepEqual(await store.get(input.id), created);
      }), timeout);

      it("answers unknown ids: get → undefined, delete → false, lease and checkpoint → thread_not_found", withStore(async (store) => {
        assert.equal(await store.get("no-such-thread"), undefined);
        assert.equal(await store.delete("no-such-thread"), false);
        await assert.rejects(store.acquireLease("no-such-thread", "owner", 1000), hasCode("thread_not_found"));
        await assert.rejects(
          store.saveCheckpoint("no-such-thread", "owner", { checkpoint: { turns: 1 } }),
          hasCode("thread_not_found"),
        );
        assert.equal(await store.renewLease("no-such-thread", "owner", 1000), false);
        await store.releaseLease("no-such-thread", "owner");
      }), timeout);

      it("detaches records from the host's objects, in and out", withStore(async (store) => {
        const input = newRecord({ checkpoint: { turns: 1 } });
        const created = await store.create(input);
        const snapshot = structuredClone(created);
        // Mutate what was passed in and what came back.
        input.metadata.tenant = "mutated";
        input.fingerprintParts.driver = "mutated";
        input.checkpoint!.turns = 99;
        created.metadata.tenant = "mutated";
        created.checkpoint.turns = 99;
        created.fingerprintParts.workspace = "mutated";
        const got = await store.get(input.id);
        assert.deepEqual(got, snapshot, "host mutation never reaches the store");
        got!.metadata.extra = "x";
        got!.checkpoint.lastStatus = "failed";
        const [listed] = await store.list();
        assert.deepEqual(listed, snapshot, "a record read earlier is a detached copy");
        listed!.metadata.tenant = "mutated";
        assert.deepEqual(await store.get(input.id), snapshot, "list returns detached copies");

        await store.acquireLease(input.id, "owner", 60_000);
        const update = { providerSessionId: "s-1", checkpoint: { turns: 2 } };
        const saved = await store.saveCheckpoint(input.id, "owner", update);
        update.checkpoint.turns = 77;
        saved.checkpoint.turns = 78;
        assert.equal((await store.get(input.id))?.checkpoint.turns, 2, "the saved checkpoint is a copy");
      }), timeout);

      it("deletes an unleased record, after which the id is free again", withStore(async (store) => {
        const input = newRecord();
        await store.create(input);
        const other = await store.create(newRecord());
        assert.equal(await store.delete(input.id), true);
        assert.equal(await store.get(input.id), undefined);
        assert.equal(await store.delete(input.id), false, "a second delete finds nothing");
        assert.deepEqual((await store.list()).map((r) => r.id), [other.id]);
        const again = await store.create(input);
        assert.equal(again.id, input.id, "a deleted id can be created again");
      }), timeout);

      it("refuses to delete a leased thread with thread_busy", withStore(async (store) => {
        const input = newRecord();
        await store.create(input);
        await store.acquireLease(input.id, "owner", 60_000);
        await assert.rejects(store.delete(input.id), hasCode("thread_busy"));
        assert.ok(await store.get(input.id), "the record is still there");
        await store.releaseLease(input.id, "owner");
        assert.equal(await store.delete(input.id), true, "released, it can be deleted");
      }), timeout);
    });

    describe("list", () => {
      it("orders newest updatedAt first, honours limit and filters by driver", withStore(async (store) => {
        const ids: string[] = [];
        for (const driver of ["codex", "claude", "codex", "claude", "codex"]) {
          ids.push((await store.create(newRecord({ driver }))).id);
          await sleep(5); // distinct timestamps on any clock with millisecond resolution
        }
        let listed = await store.list();
        assert.deepEqual(listed.map((r) => r.id), [...ids].reverse(), "newest first");

        // A checkpoint makes a thread the most recently updated.
        await store.acquireLease(ids[0]!, "owner", 60_000);
        await store.saveCheckpoint(ids[0]!, "owner", { checkpoint: { turns: 1 } });
        listed = await store.list();
        assert.deepEqual(listed.map((r) => r.id), [ids[0], ids[4], ids[3], ids[2], ids[1]]);
        for (let i = 1; i < listed.length; i++) {
          assert.ok(Date.parse(listed[i - 1]!.updatedAt) >= Date.parse(listed[i]!.updatedAt), "updatedAt does not increase");
        }

        assert.deepEqual((await store.list({ limit: 2 })).map((r) => r.id), [ids[0], ids[4]]);
        assert.deepEqual(await store.list({ limit: 0 }), []);
        assert.deepEqual((await store.list({ driver: "codex" })).map((r) => r.id), [ids[0], ids[4], ids[2]]);
        assert.deepEqual((await store.list({ driver: "claude", limit: 1 })).map((r) => r.id), [ids[3]]);
        assert.deepEqual(await store.list({ driver: "nobody" }), []);
        const leased = listed.find((r) => r.id === ids[0]);
        assert.equal(leased?.lease?.owner, "owner", "list shows live leases");
      }), timeout);

      it("returns at most 100 records by default", withStore(async (store) => {
        for (let i = 0; i < 103; i++) await store.create(newRecord({ driver: "many" }));
        assert.equal((await store.list()).length, 100);
        assert.equal((await store.list({ limit: 1000 })).length, 103);
      }), timeout);
    });

    describe("leases", () => {
      it("acquires, renews and releases a lease; a second owner gets undefined meanwhile", withStore(async (store) => {
        const { id } = await store.create(newRecord());
        const lease = await store.acquireLease(id, "alice", 60_000);
        assert.ok(lease, "a free thread's lease is granted");
        assert.equal(lease.owner, "alice");
        assert.equal(typeof lease.expiresAt, "number");
        assert.deepEqual((await store.get(id))?.lease, lease, "the record shows the lease");

        assert.equal(await store.acquireLease(id, "bob", 60_000), undefined, "another owner is refused while it is unexpired");
        assert.equal(await store.renewLease(id, "bob", 60_000), false, "another owner cannot renew it");
        await store.releaseLease(id, "bob");
        assert.equal((await store.get(id))?.lease?.owner, "alice", "another owner's release is a no-op");

        const again = await store.acquireLease(id, "alice", 120_000);
        assert.ok(again, "the holder may acquire again");
        assert.ok(again.expiresAt >= lease.expiresAt, "re-acquiring extends the lease");
        assert.equal(await store.renewLease(id, "alice", 180_000), true, "the holder renews");
        const renewed = (await store.get(id))?.lease;
        assert.ok(renewed && renewed.owner === "alice" && renewed.expiresAt >= again.expiresAt, "renewal extends the lease");

        await store.releaseLease(id, "alice");
        assert.equal((await store.get(id))?.lease, undefined, "released");
        assert.equal(await store.renewLease(id, "alice", 60_000), false, "a released lease cannot be renewed");
        const bob = await store.acquireLease(id, "bob", 60_000);
        assert.equal(bob?.owner, "bob", "a released thread can be taken");
        await store.releaseLease(id, "alice");
        assert.equal((await store.get(id))?.lease?.owner, "bob", "a former holder's release does not touch the new lease");
      }), timeout);

      it("lets another owner take over an expired lease, and the old holder loses it", withStore(async (store) => {
        const { id } = await store.create(newRecord());
        const crashed = await store.acquireLease(id, "crashed", 50);
        assert.ok(crashed);
        const taken = await takeOverAfterExpiry(store, id, "successor", 60_000, 80);
        assert.equal(taken.owner, "successor");
        assert.ok(taken.expiresAt > crashed.expiresAt);
        assert.equal((await store.get(id))?.lease?.owner, "successor");
        assert.equal(await store.renewLease(id, "crashed", 60_000), false, "the old holder cannot renew");
        await assert.rejects(
          store.saveCheckpoint(id, "crashed", { checkpoint: { turns: 1 } }),
          hasCode("lease_lost"),
          "the old holder's writes are refused",
        );
        await store.releaseLease(id, "crashed");
        assert.equal((await store.get(id))?.lease?.owner, "successor");
      }), timeout);

      it("does not show an expired lease and lets an unclaimed expired thread be deleted", withStore(async (store) => {
        const { id } = await store.create(newRecord());
        await store.acquireLease(id, "gone", 50);
        // Wait until the store itself no longer reports the lease.
        const deadline = Date.now() + 10_000;
        await sleep(80);
        while ((await store.get(id))?.lease !== undefined) {
          assert.ok(Date.now() < deadline, "an expired lease stops being reported");
          await sleep(25);
        }
        assert.equal(await store.renewLease(id, "gone", 60_000), false, "an expired lease cannot be renewed");
        await assert.rejects(store.saveCheckpoint(id, "gone", { checkpoint: { turns: 1 } }), hasCode("lease_lost"));
        assert.equal(await store.delete(id), true);
      }), timeout);

      it(`grants a contended lease to exactly one of ${contenders} parallel owners`, withStore(async (store, opened) => {
        const instances = await contenderStores(store, reopen, 3, opened);
        for (let round = 0; round < 5; round++) {
          const { id } = await store.create(newRecord());
          const results = await Promise.all(
            Array.from({ length: contenders }, (_, i) => instances[i % instances.length]!.acquireLease(id, `owner-${i}`, 60_000)),
          );
          const winners = results.flatMap((lease, i) => (lease === undefined ? [] : [{ lease, i }]));
          assert.equal(winners.length, 1, `exactly one contender wins (round ${round})`);
          assert.equal(winners[0]!.lease.owner, `owner-${winners[0]!.i}`);
          assert.equal((await store.get(id))?.lease?.owner, winners[0]!.lease.owner, "the record names the winner");
        }
      }), timeout);
    });

    describe("checkpoints", () => {
      it("saves the holder's checkpoint and provider session id", withStore(async (store) => {
        const created = await store.create(newRecord());
        await store.acquireLease(created.id, "owner", 60_000);
        const first = await store.saveCheckpoint(created.id, "owner", {
          providerSessionId: "session-1",
          checkpoint: { turns: 1, lastStatus: "completed", lastRunId: "run-1" },
        });
        assert.equal(first.providerSessionId, "session-1");
        assert.deepEqual(first.checkpoint, { turns: 1, lastStatus: "completed", lastRunId: "run-1" });
        assert.equal(first.createdAt, created.createdAt, "createdAt never changes");
        assert.ok(Date.parse(first.updatedAt) >= Date.parse(created.updatedAt), "updatedAt moves forward");
        assert.equal(first.lease?.owner, "owner");
        assert.deepEqual(await store.get(created.id), first, "saveCheckpoint returns the stored record");

        const second = await store.saveCheckpoint(created.id, "owner", { checkpoint: { turns: 2, forkPending: false } });
        assert.equal(second.providerSessionId, "session-1", "an update without a session id keeps the known one");
        assert.deepEqual(second.checkpoint, { turns: 2, forkPending: false }, "the checkpoint is replaced as a whole");
        const third = await store.saveCheckpoint(created.id, "owner", { providerSessionId: "session-2", checkpoint: { turns: 3, lastStatus: "cancelled" } });
        assert.equal(third.providerSessionId, "session-2");
        assert.deepEqual((await store.get(created.id))?.checkpoint, { turns: 3, lastStatus: "cancelled" });
      }), timeout);

      it("refuses a checkpoint from anyone but the lease holder with lease_lost", withStore(async (store) => {
        const { id } = await store.create(newRecord());
        await assert.rejects(store.saveCheckpoint(id, "nobody", { checkpoint: { turns: 1 } }), hasCode("lease_lost"), "no lease at all");
        await store.acquireLease(id, "holder", 60_000);
        await assert.rejects(store.saveCheckpoint(id, "intruder", { checkpoint: { turns: 1 } }), hasCode("lease_lost"), "not the holder");
        await store.releaseLease(id, "holder");
        await assert.rejects(store.saveCheckpoint(id, "holder", { checkpoint: { turns: 1 } }), hasCode("lease_lost"), "after release");
        assert.deepEqual((await store.get(id))?.checkpoint, { turns: 0 }, "nothing was written");
      }), timeout);

      if (reopen) {
        it("keeps records, leases and checkpoints after the store is closed and reopened", async () => {
          const first = await makeStore();
          let second: ThreadStore | undefined;
          try {
            const { id } = await first.create(newRecord({ metadata: { k: "v" } }));
            const lease = await first.acquireLease(id, "owner", 60_000);
            const saved = await first.saveCheckpoint(id, "owner", {
              providerSessionId: "session-9",
              checkpoint: { turns: 9, lastStatus: "completed", lastRunId: "run-9" },
            });
            await first.close();
            second = await reopen(first);
            const got = await second.get(id);
            assert.deepEqual(got, saved, "the record is as it was acknowledged");
            assert.deepEqual(got?.lease, lease, "the lease survives too");
            assert.equal(await second.acquireLease(id, "someone-else", 60_000), undefined, "and still excludes others");
            const next = await second.saveCheckpoint(id, "owner", { checkpoint: { turns: 10 } });
            assert.equal(next.checkpoint.turns, 10, "the holder carries on through the reopened store");
            assert.deepEqual((await second.list()).map((r) => r.id), [id]);
          } finally {
            await first.close();
            await second?.close();
          }
        }, timeout);
      }
    });

    registerHistoryCases({ runner: options.runner, timeout, withStore, makeStore, reopen, newRecord });
    registerProviderStateCases({ runner: options.runner, timeout, withStore, makeStore, reopen, newRecord });

    it("close() is idempotent", async () => {
      const store = await makeStore();
      await store.close();
      await store.close();
    }, timeout);
  });
}
