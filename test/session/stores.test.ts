/**
 * The built-in session stores against the shared suite: in memory, SQLite (a temp file, reopened
 * as a second process would) and PostgreSQL (AGENT_ADAPTOR_TEST_PG_URL; skipped locally without
 * it, required in CI), plus what only a SQL store has: shared files and pools with the thread
 * store, schema versions, a database handle owned by the host.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

import { memorySessionStore } from "../../src/session/stores/memory.js";
import { POSTGRES_SESSION_SCHEMA_VERSION, postgresSessionStore, type PostgresSessionStore } from "../../src/session/stores/postgres.js";
import { SQLITE_SESSION_SCHEMA_VERSION, sqliteSessionStore, type SqliteSessionStore } from "../../src/session/stores/sqlite.js";
import type { SessionStore } from "../../src/session/types.js";
import { newSessionRecord, runSessionStoreSuite } from "../../src/testing/session-store-suite.js";
import { postgresThreadStore } from "../../src/thread/stores/postgres.js";
import { sqliteThreadStore } from "../../src/thread/stores/sqlite.js";
import { dropSchemas, PG_MISSING, PG_REQUIRED, PG_URL, uniqueSchema } from "../thread/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "aa-session-stores-"));
let files = 0;
const freshPath = (): string => join(dir, `sessions-${++files}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const thread = (id: string) => ({ id, driver: "d", fingerprint: "f", fingerprintParts: {}, workspace: "/w", metadata: {} });

describe("memorySessionStore", () => {
  runSessionStoreSuite(() => memorySessionStore(), { runner: { describe, it } });
});

describe("sqliteSessionStore", () => {
  runSessionStoreSuite(() => sqliteSessionStore({ path: freshPath() }), {
    runner: { describe, it },
    reopen: (store: SessionStore) => sqliteSessionStore({ path: (store as SqliteSessionStore).path }),
  });

  describe("with event batches written inline", () => {
    runSessionStoreSuite(() => sqliteSessionStore({ path: freshPath(), eventWriter: "inline" }), {
      runner: { describe, it },
      reopen: (store: SessionStore) => sqliteSessionStore({ path: (store as SqliteSessionStore).path, eventWriter: "inline" }),
    });
  });

  it("shares one file with the SQLite thread store, each with its own schema version", async () => {
    const path = freshPath();
    const threads = sqliteThreadStore(path);
    const sessions = sqliteSessionStore({ path });
    const sessionsFirst = sqliteSessionStore({ path: freshPath() });
    try {
      await threads.create(thread("t1"));
      const record = newSessionRecord({ threadId: "t1" });
      await sessions.create(record);
      expect((await threads.get("t1"))?.id).toBe("t1");
      expect((await sessions.get(record.id))?.threadId).toBe("t1");
      expect(sessions.schemaVersion).toBe(SQLITE_SESSION_SCHEMA_VERSION);
      // Opened in the other order too: the thread store migrates a file that already has session tables.
      const threadsAfter = sqliteThreadStore(sessionsFirst.path);
      await threadsAfter.create(thread("t2"));
      await threadsAfter.close();
    } finally {
      await Promise.all([threads.close(), sessions.close(), sessionsFirst.close()]);
    }
  });

  it("uses a database handle the host owns and leaves it open", async () => {
    const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
    const db = new Database(freshPath());
    try {
      const store = sqliteSessionStore({ database: db });
      const record = newSessionRecord();
      await store.create(record);
      await store.close();
      expect(db.open).toBe(true);
      expect(db.prepare("SELECT count(*) FROM sessions").pluck().get()).toBe(1);
    } finally {
      db.close();
    }
    expect(() => sqliteSessionStore({ database: db })).toThrow(expect.objectContaining({ code: "config_invalid" }));
    expect(() => sqliteSessionStore({})).toThrow(expect.objectContaining({ code: "config_invalid" }));
  });

  it("refuses session tables written by a newer version with store_schema_newer", async () => {
    const path = freshPath();
    await sqliteSessionStore({ path }).close();
    const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
    const db = new Database(path);
    db.prepare("INSERT INTO session_schema_migrations (version, applied_at) VALUES (?, ?)").run(SQLITE_SESSION_SCHEMA_VERSION + 1, "x");
    db.close();
    expect(() => sqliteSessionStore({ path })).toThrow(expect.objectContaining({ code: "store_schema_newer" }));
  });

  it("names no path in its failures", () => {
    const missing = join(dir, "no-such-dir", "secret-name.db");
    let error: unknown;
    try {
      sqliteSessionStore({ path: missing });
    } catch (err) {
      error = err;
    }
    expect(error).toMatchObject({ code: "store_unavailable" });
    expect(String((error as Error).message)).not.toContain("secret-name");
  });
});

if (PG_URL === undefined) {
  if (PG_REQUIRED) {
    it("postgres session store: a PostgreSQL server is required in CI", () => {
      throw new Error(PG_MISSING);
    });
  } else {
    console.warn(`skipping the PostgreSQL session store tests: ${PG_MISSING}`);
    it.skip(`postgres session store (${PG_MISSING})`, () => undefined);
  }
} else {
  const url = PG_URL;
  const created = new Set<string>();
  afterAll(() => dropSchemas(url, created));
  const fresh = (): Promise<PostgresSessionStore> => {
    const schema = uniqueSchema("aa_sess");
    created.add(schema);
    return postgresSessionStore({ connectionString: url, schema, maxConnections: 4 });
  };

  describe("postgresSessionStore", () => {
    runSessionStoreSuite(fresh, {
      runner: { describe, it },
      reopen: (store: SessionStore) =>
        postgresSessionStore({ connectionString: url, schema: (store as PostgresSessionStore).schema, maxConnections: 4 }),
    });

    it("shares a schema and a pool with the PostgreSQL thread store", async () => {
      const schema = uniqueSchema("aa_sess");
      created.add(schema);
      const pg = (await import("pg")).default;
      const pool = new pg.Pool({ connectionString: url, max: 3 });
      try {
        const [threads, sessions] = await Promise.all([postgresThreadStore({ pool, schema }), postgresSessionStore({ pool, schema })]);
        await threads.create(thread("t1"));
        const record = newSessionRecord({ threadId: "t1" });
        await sessions.create(record);
        expect((await sessions.get(record.id))?.threadId).toBe("t1");
        expect(sessions.schemaVersion).toBe(POSTGRES_SESSION_SCHEMA_VERSION);
        await Promise.all([threads.close(), sessions.close()]);
        const { rows } = await pool.query(`SELECT version FROM "${schema}".session_schema_migrations`);
        expect(rows.map((r: { version: number }) => r.version)).toEqual([1]);
      } finally {
        await pool.end();
      }
    });

    it("migrates once when many stores connect to a new schema at once", async () => {
      const schema = uniqueSchema("aa_sess");
      created.add(schema);
      const stores = await Promise.all(Array.from({ length: 5 }, () => postgresSessionStore({ connectionString: url, schema, maxConnections: 1 })));
      try {
        for (const store of stores) expect(store.schemaVersion).toBe(POSTGRES_SESSION_SCHEMA_VERSION);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it("refuses session tables written by a newer version", async () => {
      const store = await fresh();
      await store.close();
      const pg = (await import("pg")).default;
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        await pool.query(`INSERT INTO "${store.schema}".session_schema_migrations (version) VALUES ($1)`, [POSTGRES_SESSION_SCHEMA_VERSION + 1]);
      } finally {
        await pool.end();
      }
      await expect(postgresSessionStore({ connectionString: url, schema: store.schema })).rejects.toMatchObject({ code: "store_schema_newer" });
    });
  });
}
