/**
 * The migration tests' common steps: a database made by an earlier schema holding the release-1
 * thread (and, from version 2, history turns), opened by the current store, which must report the
 * current schema version and pass the test's checks; a SQLite file is then checked for its
 * version and integrity. Scratch files and PostgreSQL schemas are removed after the test file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type BetterSqlite3 from "better-sqlite3";
import { afterAll, expect } from "vitest";

import type { NewHistoryTurn, ThreadStore } from "../../src/thread/store.js";
import { POSTGRES_THREAD_SCHEMA_VERSION, postgresThreadStore } from "../../src/thread/stores/postgres.js";
import { SQLITE_THREAD_SCHEMA_VERSION, sqliteThreadStore } from "../../src/thread/stores/sqlite.js";
import { V1_THREAD } from "./fixtures/schema-v1.js";
import { dropSchemas, PG_URL, uniqueSchema } from "./helpers.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;

/** What the old release wrote: its schema, and the history turns of V1_THREAD (numbered from 1; none before version 2). */
export interface OldDatabase {
  sqliteSchema: string;
  postgresSchema: (schema: string) => string;
  turns?: readonly NewHistoryTurn[];
}

/** Where this file's old databases go; registers their removal after the file's tests. */
export function useOldDatabases(prefix: string): { sqlitePath(name: string): string; postgresSchema(): string } {
  const dir = mkdtempSync(join(tmpdir(), `aa-${prefix}-`));
  const schemas = new Set<string>();
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (PG_URL !== undefined) await dropSchemas(PG_URL, schemas);
  });
  return {
    sqlitePath: (name) => join(dir, name),
    postgresSchema: () => {
      const schema = uniqueSchema(`aa_${prefix.replace(/-/g, "_")}`);
      schemas.add(schema);
      return schema;
    },
  };
}

/** Makes the old SQLite database at `path`, opens it with the current store and runs `check` on it. */
export async function migrateSqlite(path: string, old: OldDatabase, check: (store: ThreadStore) => Promise<void>): Promise<void> {
  const db = new Database(path);
  db.exec(old.sqliteSchema);
  db.prepare(
    `INSERT INTO threads (id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata, created_at, updated_at)
     VALUES (@id, @driver, @fingerprint, @fingerprint_parts, @provider_session_id, @workspace, @checkpoint, @metadata, @created_at, @updated_at)`,
  ).run(V1_THREAD);
  for (const [i, t] of (old.turns ?? []).entries()) {
    db.prepare(`INSERT INTO thread_turns (thread_id, turn, run_id, status, body) VALUES (?, ?, ?, ?, ?)`).run(V1_THREAD.id, i + 1, t.runId, t.status, JSON.stringify(t));
  }
  db.close();

  const store = sqliteThreadStore(path);
  try {
    expect(store.schemaVersion).toBe(SQLITE_THREAD_SCHEMA_VERSION);
    await check(store);
  } finally {
    await store.close();
  }
  const after = new Database(path);
  try {
    expect(after.pragma("user_version", { simple: true })).toBe(SQLITE_THREAD_SCHEMA_VERSION);
    expect(after.pragma("integrity_check", { simple: true })).toBe("ok");
  } finally {
    after.close();
  }
}

/** Makes the old tables in PostgreSQL `schema`, opens them with the current store and runs `check` on it. */
export async function migratePostgres(schema: string, old: OldDatabase, check: (store: ThreadStore) => Promise<void>): Promise<void> {
  const pg = (await import("pg")).default;
  const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
  try {
    await pool.query(old.postgresSchema(`"${schema}"`));
    await pool.query(
      `INSERT INTO "${schema}".threads (id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [V1_THREAD.id, V1_THREAD.driver, V1_THREAD.fingerprint, V1_THREAD.fingerprint_parts, V1_THREAD.provider_session_id, V1_THREAD.workspace,
        V1_THREAD.checkpoint, V1_THREAD.metadata, V1_THREAD.created_at, V1_THREAD.updated_at],
    );
    for (const [i, t] of (old.turns ?? []).entries()) {
      await pool.query(`INSERT INTO "${schema}".thread_turns (thread_id, turn, run_id, status, body) VALUES ($1, $2, $3, $4, $5)`, [V1_THREAD.id, i + 1, t.runId, t.status, JSON.stringify(t)]);
    }
  } finally {
    await pool.end();
  }
  const store = await postgresThreadStore({ connectionString: PG_URL!, schema });
  try {
    expect(store.schemaVersion).toBe(POSTGRES_THREAD_SCHEMA_VERSION);
    await check(store);
  } finally {
    await store.close();
  }
}
