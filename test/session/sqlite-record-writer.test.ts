/**
 * The SQLite session store's record updates on its writer thread: updates of one record made at
 * once by the same owner all land (each is applied to the body it read, or read and applied again
 * — none is lost), the result is what another connection reads, and the refusals stay typed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { LeaseLostError, SessionNotFoundError } from "../../src/errors/index.js";
import { sqliteSessionStore } from "../../src/session/stores/sqlite.js";
import { newSessionRecord } from "../../src/testing/session-store-suite.js";

const dir = mkdtempSync(join(tmpdir(), "aa-sqlite-record-writer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("sqliteSessionStore record updates on the writer thread", () => {
  it("concurrent updates of different fields all land, and another connection reads them", async () => {
    const path = join(dir, "concurrent.db");
    const store = sqliteSessionStore({ path });
    const other = sqliteSessionStore({ path, eventWriter: "inline" });
    try {
      const record = newSessionRecord();
      await store.create(record);
      expect(await store.acquireOwner(record.id, "host", 60_000)).toBe(true);
      const keys = Array.from({ length: 24 }, (_, i) => `k${i}`);
      // Each update replaces one whole field, so a patch applied to a stale body would undo others.
      await Promise.all([
        ...keys.map((key, i) => store.update(record.id, "host", { metadata: { [key]: String(i) } }).then(() => undefined)),
        store.update(record.id, "host", { gate: { open: false, by: "pause", reason: "paused", since: "2026-01-01T00:00:00.000Z" } }),
        store.update(record.id, "host", { settings: { idleSleepMs: 5, inboxCap: 7 } }),
        store.update(record.id, "host", { state: "idle" }),
      ]);
      const seen = await other.get(record.id);
      expect(seen?.gate).toEqual({ open: false, by: "pause", reason: "paused", since: "2026-01-01T00:00:00.000Z" });
      expect(seen?.settings).toEqual({ idleSleepMs: 5, inboxCap: 7 });
      expect(seen?.state).toBe("idle");
      // The metadata updates replace each other; one of them is the last.
      expect(Object.keys(seen?.metadata ?? {})).toHaveLength(1);
      expect(keys).toContain(Object.keys(seen!.metadata)[0]);
    } finally {
      await store.close();
      await other.close();
    }
  });

  it("refuses typed: an unknown session, and an owner that lost the record", async () => {
    const store = sqliteSessionStore({ path: join(dir, "refusals.db") });
    try {
      await expect(store.update("nope", "host", { state: "idle" })).rejects.toBeInstanceOf(SessionNotFoundError);
      const record = newSessionRecord();
      await store.create(record);
      await store.acquireOwner(record.id, "host", 60_000);
      await store.releaseOwner(record.id, "host");
      await expect(store.update(record.id, "host", { state: "idle" })).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.acquireOwner(record.id, "other", 60_000)).toBe(true);
      await expect(store.update(record.id, "host", { state: "idle" })).rejects.toBeInstanceOf(LeaseLostError);
      expect((await store.update(record.id, "other", { state: "idle" })).state).toBe("idle");
    } finally {
      await store.close();
    }
  });
});
