/**
 * The provider-state cases of the thread store suite (`runThreadStoreSuite` registers them): a
 * thread's opaque driver document saved as the lease holder and read back exactly, replaced
 * whole, refused to anyone else and over the size limit (nothing written), deleted with its
 * thread and, with `reopen`, durable. A store without the optional methods must lack both.
 */
import assert from "node:assert/strict";

import { PROVIDER_STATE_MAX_BYTES, type ThreadStore } from "../thread/store.js";
import type { HistoryCaseContext } from "./thread-store-history-suite.js";
import { hasCode } from "./store-suite-kit.js";

type StateStore = ThreadStore & Required<Pick<ThreadStore, "loadProviderState" | "saveProviderState">>;

/** Whether the store keeps provider state; a store with one of the two methods fails the suite. */
function keepsState(store: ThreadStore): store is StateStore {
  const load = typeof store.loadProviderState === "function";
  const save = typeof store.saveProviderState === "function";
  assert.equal(load, save, "loadProviderState and saveProviderState are present together or not at all");
  return load;
}

/** A document with what JSON text may hold: unicode, an escaped NUL, quotes, nesting. */
const SAMPLE = JSON.stringify({ kind: "sample", text: "ü ✓ \u0000 \"quoted\" \\ back", nested: [{ a: 1 }, null, true], big: "x".repeat(100_000) });

/** Register the provider-state cases (inside the suite's `describe`). */
// long-function: registers the provider-state cases one after another; each case is short and stands alone
export function registerProviderStateCases(ctx: HistoryCaseContext): void {
  const { describe, it } = ctx.runner;
  const { timeout, withStore, newRecord, reopen } = ctx;

  describe("provider state", () => {
    it("a new or unknown thread has none; the holder's save is read back exactly and replaced whole", withStore(async (store) => {
      if (!keepsState(store)) return;
      const { id } = await store.create(newRecord());
      assert.equal(await store.loadProviderState(id), undefined, "a new thread has no provider state");
      assert.equal(await store.loadProviderState("no-such-thread"), undefined);
      await store.acquireLease(id, "owner", 60_000);
      await store.saveProviderState(id, "owner", SAMPLE);
      assert.equal(await store.loadProviderState(id), SAMPLE, "read back byte for byte");
      await store.saveProviderState(id, "owner", "{\"second\":true}");
      assert.equal(await store.loadProviderState(id), "{\"second\":true}", "a save replaces the document");
      const other = await store.create(newRecord());
      assert.equal(await store.loadProviderState(other.id), undefined, "each thread has its own");
      assert.deepEqual((await store.get(id))?.checkpoint, { turns: 0 }, "saving state leaves the checkpoint alone");
    }), timeout);

    it("refuses a save from anyone but the lease holder, and for unknown threads, writing nothing", withStore(async (store) => {
      if (!keepsState(store)) return;
      const { id } = await store.create(newRecord());
      await assert.rejects(store.saveProviderState(id, "nobody", "{}"), hasCode("lease_lost"), "no lease at all");
      await store.acquireLease(id, "holder", 60_000);
      await store.saveProviderState(id, "holder", "{\"kept\":1}");
      await assert.rejects(store.saveProviderState(id, "intruder", "{}"), hasCode("lease_lost"), "not the holder");
      await store.releaseLease(id, "holder");
      await assert.rejects(store.saveProviderState(id, "holder", "{}"), hasCode("lease_lost"), "after release");
      await assert.rejects(store.saveProviderState("no-such-thread", "holder", "{}"), hasCode("thread_not_found"));
      assert.equal(await store.loadProviderState(id), "{\"kept\":1}", "the refused saves wrote nothing");
    }), timeout);

    it("refuses a save once the holder's lease has expired", withStore(async (store) => {
      if (!keepsState(store)) return;
      const { id } = await store.create(newRecord());
      await store.acquireLease(id, "brief", 50);
      const deadline = Date.now() + 10_000;
      // Expiry is on the store's clock: wait until another owner can take the lease.
      while ((await store.acquireLease(id, "taker", 60_000)) === undefined) {
        assert.ok(Date.now() < deadline, "an expired lease can be taken over");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await assert.rejects(store.saveProviderState(id, "brief", "{}"), hasCode("lease_lost"));
      assert.equal(await store.loadProviderState(id), undefined);
    }), timeout);

    it("refuses a document over the size limit with provider_state_too_large, keeping the one before", withStore(async (store) => {
      if (!keepsState(store)) return;
      const { id } = await store.create(newRecord());
      await store.acquireLease(id, "owner", 60_000);
      await store.saveProviderState(id, "owner", "{\"before\":1}");
      // Over the limit in UTF-8 bytes though not in characters: each "é" is two bytes.
      const tooLarge = `"${"é".repeat(PROVIDER_STATE_MAX_BYTES / 2)}"`;
      await assert.rejects(store.saveProviderState(id, "owner", tooLarge), hasCode("provider_state_too_large"));
      assert.equal(await store.loadProviderState(id), "{\"before\":1}");
      await assert.rejects(store.saveProviderState(id, "owner", 42 as unknown as string), hasCode("config_invalid"), "a non-string is refused");
    }), timeout * 2);

    it("deletes a thread's provider state with the thread", withStore(async (store) => {
      if (!keepsState(store)) return;
      const { id } = await store.create(newRecord());
      await store.acquireLease(id, "owner", 60_000);
      await store.saveProviderState(id, "owner", SAMPLE);
      await store.releaseLease(id, "owner");
      assert.equal(await store.delete(id), true);
      assert.equal(await store.loadProviderState(id), undefined, "gone with its thread");
      await store.create(newRecord({ id }));
      assert.equal(await store.loadProviderState(id), undefined, "a new thread under the same id starts without it");
    }), timeout);

    if (reopen !== undefined) {
      it("keeps provider state across closing and reopening the store", withStore(async (store, opened) => {
        if (!keepsState(store)) return;
        const { id } = await store.create(newRecord());
        await store.acquireLease(id, "owner", 60_000);
        await store.saveProviderState(id, "owner", SAMPLE);
        await store.close();
        const again = await reopen(store);
        opened.push(again);
        assert.ok(keepsState(again));
        assert.equal(await again.loadProviderState(id), SAMPLE, "another store over the same data reads it");
        await assert.rejects(again.saveProviderState(id, "someone-else", "{}"), hasCode("lease_lost"), "the lease holds across stores");
      }), timeout);
    }
  });
}
