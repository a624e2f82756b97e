import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

import { runThreadStoreSuite } from "../../src/testing/thread-store-suite.js";
import type { ThreadStore } from "../../src/thread/store.js";
import { SQLITE_THREAD_SCHEMA_VERSION, sqliteThreadStore, type SqliteThreadStore } from "../../src/thread/stores/sqlite.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
const dir = mkdtempSync(join(tmpdir(), "aa-sqlite-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = (): string => join(dir, `threads-${++files}.db`);

runThreadStoreSuite(() => sqliteThreadStore(freshPath()), {
  runner: { describe, it },
  reopen: (store: ThreadStore) => sqliteThreadStore((store as SqliteThreadStore).path),
});

const record = (id: string) => ({ id, driver: "d", fingerprint: "f", fingerprintParts: {}, workspace: "/w", metadata: {} });

describe("sqliteThreadStore", () => {
  it("uses WAL, full synchronous commits and a busy timeout, and records the schema version", async () => {
    const path = freshPath();
    const store = sqliteThreadStore(path, { busyTimeoutMs: 1234 });
    expect(store.schemaVersion).toBe(SQLITE_THREAD_SCHEMA_VERSION);
    await store.close();
    const db = new Database(path);
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("user_version", { simple: true })).toBe(SQLITE_THREAD_SCHEMA_VERSION);
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      db.close();
    }
  });

  it("migrates once and reopens an up-to-date database without touching it", async () => {
    const path = freshPath();
    const first = sqliteThreadStore(path);
    await first.create(record("t"));
    await first.close();
    const second = sqliteThreadStore(path);
    expect(second.schemaVersion).toBe(SQLITE_THREAD_SCHEMA_VERSION);
    expect((await second.get("t"))?.id).toBe("t");
    await second.close();
  });

  it("refuses a database written by a newer schema", async () => {
    const path = freshPath();
    const db = new Database(path);
    db.pragma(`user_version = ${SQLITE_THREAD_SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => sqliteThreadStore(path)).toThrow(expect.objectContaining({ code: "store_schema_newer" }));
  });

  it("expires leases on the clock it is given", async () => {
    let now = 5_000;
    const store = sqliteThreadStore(freshPath(), { now: () => now });
    await store.create(record("t"));
    expect(await store.acquireLease("t", "a", 100)).toEqual({ owner: "a", expiresAt: 5_100 });
    now = 5_099;
    expect(await store.acquireLease("t", "b", 100)).toBeUndefined();
    now = 5_100;
    expect(await store.acquireLease("t", "b", 100)).toEqual({ owner: "b", expiresAt: 5_200 });
    await store.close();
  });

  it("reports a database locked past the busy timeout as store_busy, retryable", async () => {
    const path = freshPath();
    const store = sqliteThreadStore(path, { busyTimeoutMs: 50 });
    await store.create(record("t"));
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    try {
      await expect(store.acquireLease("t", "a", 1000)).rejects.toMatchObject({ code: "store_busy", retryable: true });
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(await store.acquireLease("t", "a", 1000)).toEqual({ owner: "a", expiresAt: expect.any(Number) });
    await store.close();
    await expect(store.get("t")).rejects.toMatchObject({ code: "store_closed" });
  });

  it("works on a private in-memory database", async () => {
    const store = sqliteThreadStore(":memory:");
    await store.create(record("t"));
    expect((await store.list()).map((r) => r.id)).toEqual(["t"]);
    await store.close();
  });
});
