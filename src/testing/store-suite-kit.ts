/**
 * What the store suites (thread and session, and the case groups they register) share. Internal
 * to the testing kit: nothing here is exported from `agent-adaptor/testing`.
 */
import assert from "node:assert/strict";

import { AdaptorError } from "../errors/index.js";

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** An `assert.rejects` check: the failure is an `AdaptorError` with `code`. */
export function hasCode(code: string): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(AdaptorError.is(err), `expected an AdaptorError with code ${code}, got ${String(err)}`);
    assert.equal(err.code, code);
    return true;
  };
}

/** A case body: the fresh store, and the list of stores to close afterwards (it holds `store`). */
export type StoreCase<S> = (store: S, opened: S[]) => Promise<void>;

/** Wraps a case body: runs it with a fresh store and closes that store, and every one it opened, afterwards. */
export function storeCases<S extends { close(): Promise<void> }>(makeStore: () => S | Promise<S>): (body: StoreCase<S>) => () => Promise<void> {
  return (body) => async () => {
    const store = await makeStore();
    const opened: S[] = [store];
    try {
      await body(store, opened);
    } finally {
      for (const s of opened) await s.close();
    }
  };
}

/**
 * The instances a contention case races through: `store` and, with `reopen`, `extra` more over
 * the same data (as other processes would hold), each added to `opened` to be closed.
 */
export async function contenderStores<S>(store: S, reopen: ((store: S) => S | Promise<S>) | undefined, extra: number, opened: S[]): Promise<S[]> {
  const stores: S[] = [store];
  if (!reopen) return stores;
  for (let i = 0; i < extra; i++) {
    const other = await reopen(store);
    opened.push(other);
    stores.push(other);
  }
  return stores;
}
