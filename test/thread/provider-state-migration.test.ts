/**
 * A database made by the previous schema (version 2: threads and history, no provider state)
 * opens with the current stores: it migrates to the current version, keeps its threads and their
 * history as they were, and a driver's provider state can then be saved, read and is deleted with
 * its thread.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

import { sampleTurn } from "../../src/testing/thread-store-history-suite.js";
import type { ThreadStore } from "../../src/thread/store.js";
import { POSTGRES_THREAD_SCHEMA_VERSION, postgresThreadStore } from "../../src/thread/stores/postgres.js";
import { SQLITE_THREAD_SCHEMA_VERSION, sqliteThreadStore } from "../../src/thread/stores/sqlite.js";
import { V1_THREAD } from "./fixtures/schema-v1.js";
import { postgresSchemaV2, SQLITE_SCHEMA_V2 } from "./fixtures/schema-v2.js";
import { dropSchemas, PG_REQUIRED, PG_URL, uniqueSchema } from "./helpers.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
const dir = mkdtempSync(join(tmpdir(), "aa-state-migration-"));
const schemas = new Set<string>();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (PG_URL !== undefined) await dropSchemas(PG_URL, schemas);
});

const OLD_TURN = sampleTurn("run-old-2");

/** The old thread and its history read as they were written; provider state works from here on. */
async function expectMigratedThread(store: ThreadStore): Promise<void> {
  expect(await store.get(V1_THREAD.id)).toMatchObject({ id: V1_THREAD.id, providerSessionId: "session-old", checkpoint: { turns: 2 } });
  expect(await store.history(V1_THREAD.id)).toEqual({ turns: [{ turn: 1, ...OLD_TURN }] });
  expect(await store.loadProviderState!(V1_THREAD.id)).toBeUndefined();
  await store.acquireLease(V1_THREAD.id, "owner", 60_000);
  await store.saveProviderState!(V1_THREAD.id, "owner", '{"conversation":["hello"]}');
  expect(await store.loadProviderState!(V1_THREAD.id)).toBe('{"conversation":["hello"]}');
  await store.releaseLease(V1_THREAD.id, "owner");
  expect(await store.delete(V1_THREAD.id)).toBe(true);
  expect(await store.loadProviderState!(V1_THREAD.id)).toBeUndefined();
}

describe("provider state on a database of the previous schema", () => {
  it("SQLite: a version 2 database migrates to the current version and keeps its threads and history", async () => {
    const path = join(dir, "v2.db");
    const db = new Database(path);
    db.exec(SQLITE_SCHEMA_V2);
    db.prepare(
      `INSERT INTO threads (id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata, created_at, updated_at)
       VALUES (@id, @driver, @fingerprint, @fingerprint_parts, @provider_session_id, @workspace, @checkpoint, @metadata, @created_at, @updated_at)`,
    ).run(V1_THREAD);
    db.prepare(`INSERT INTO thread_turns (thread_id, turn, run_id, status, body) VALUES (?, 1, ?, ?, ?)`).run(V1_THREAD.id, OLD_TURN.runId, OLD_TURN.status, JSON.stringify(OLD_TURN));
    db.close();

    const store = sqliteThreadStore(path);
    try {
      expect(SQLITE_THREAD_SCHEMA_VERSION).toBe(3);
      expect(store.schemaVersion).toBe(3);
      await expectMigratedThread(store);
    } finally {
      await store.close();
    }
    const check = new Database(path);
    try {
      expect(check.pragma("user_version", { simple: true })).toBe(3);
      expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      check.close();
    }
  });

  it.skipIf(PG_URL === undefined && !PG_REQUIRED)("PostgreSQL: a version 2 schema migrates to the current version and keeps its threads and history", async () => {
    const schema = uniqueSchema("aa_state_mig");
    schemas.add(schema);
    const pg = (await import("pg")).default;
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    try {
      await pool.query(postgresSchemaV2(`"${schema}"`));
      await pool.query(
        `INSERT INTO "${schema}".threads (id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [V1_THREAD.id, V1_THREAD.driver, V1_THREAD.fingerprint, V1_THREAD.fingerprint_parts, V1_THREAD.provider_session_id, V1_THREAD.workspace,
          V1_THREAD.checkpoint, V1_THREAD.metadata, V1_THREAD.created_at, V1_THREAD.updated_at],
      );
      await pool.query(`INSERT INTO "${schema}".thread_turns (thread_id, turn, run_id, status, body) VALUES ($1, 1, $2, $3, $4)`, [V1_THREAD.id, OLD_TURN.runId, OLD_TURN.status, JSON.stringify(OLD_TURN)]);
    } finally {
      await pool.end();
    }
    const store = await postgresThreadStore({ connectionString: PG_URL!, schema });
    try {
      expect(POSTGRES_THREAD_SCHEMA_VERSION).toBe(3);
      expect(store.schemaVersion).toBe(3);
      await expectMigratedThread(store);
    } finally {
      await store.close();
    }
  });
});
