/**
 * A database made by the previous schema (release 1, before history) opens with the current
 * stores: it migrates to the current version, keeps its threads as they were, and their history
 * starts empty and grows from turn 1.
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
import { postgresSchemaV1, SQLITE_SCHEMA_V1, V1_THREAD } from "./fixtures/schema-v1.js";
import { dropSchemas, PG_REQUIRED, PG_URL, uniqueSchema } from "./helpers.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
const dir = mkdtempSync(join(tmpdir(), "aa-history-migration-"));
const schemas = new Set<string>();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (PG_URL !== undefined) await dropSchemas(PG_URL, schemas);
});

/** The old thread reads as it was written, and its history works from turn 1. */
async function expectMigratedThread(store: ThreadStore): Promise<void> {
  const record = await store.get(V1_THREAD.id);
  expect(record).toMatchObject({
    id: V1_THREAD.id,
    providerSessionId: "session-old",
    checkpoint: { turns: 2, lastStatus: "completed", lastRunId: "run-old-2" },
    metadata: { owner: "ana" },
  });
  expect(await store.history(V1_THREAD.id)).toEqual({ turns: [] });
  await store.acquireLease(V1_THREAD.id, "owner", 60_000);
  const appended = await store.appendTurn(V1_THREAD.id, "owner", sampleTurn("run-new-1"));
  expect(appended.turn).toBe(1);
  expect(await store.history(V1_THREAD.id)).toEqual({ turns: [appended] });
  await store.releaseLease(V1_THREAD.id, "owner");
  expect(await store.delete(V1_THREAD.id)).toBe(true);
  expect(await store.history(V1_THREAD.id)).toEqual({ turns: [] });
}

describe("history on a database of the previous schema", () => {
  it("SQLite: a version 1 database migrates to the current version and keeps its threads", async () => {
    const path = join(dir, "v1.db");
    const db = new Database(path);
    db.exec(SQLITE_SCHEMA_V1);
    db.prepare(
      `INSERT INTO threads (id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata, created_at, updated_at)
       VALUES (@id, @driver, @fingerprint, @fingerprint_parts, @provider_session_id, @workspace, @checkpoint, @metadata, @created_at, @updated_at)`,
    ).run(V1_THREAD);
    db.close();

    const store = sqliteThreadStore(path);
    try {
      expect(SQLITE_THREAD_SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
      expect(store.schemaVersion).toBe(SQLITE_THREAD_SCHEMA_VERSION);
      await expectMigratedThread(store);
    } finally {
      await store.close();
    }
    const check = new Database(path);
    try {
      expect(check.pragma("user_version", { simple: true })).toBe(SQLITE_THREAD_SCHEMA_VERSION);
      expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      check.close();
    }
  });

  it.skipIf(PG_URL === undefined && !PG_REQUIRED)("PostgreSQL: a version 1 schema migrates to the current version and keeps its threads", async () => {
    const schema = uniqueSchema("aa_hist_mig");
    schemas.add(schema);
    const pg = (await import("pg")).default;
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    try {
      await pool.query(postgresSchemaV1(`"${schema}"`));
      await pool.query(
        `INSERT INTO "${schema}".threads (id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [V1_THREAD.id, V1_THREAD.driver, V1_THREAD.fingerprint, V1_THREAD.fingerprint_parts, V1_THREAD.provider_session_id, V1_THREAD.workspace,
          V1_THREAD.checkpoint, V1_THREAD.metadata, V1_THREAD.created_at, V1_THREAD.updated_at],
      );
    } finally {
      await pool.end();
    }
    const store = await postgresThreadStore({ connectionString: PG_URL!, schema });
    try {
      expect(POSTGRES_THREAD_SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
      expect(store.schemaVersion).toBe(POSTGRES_THREAD_SCHEMA_VERSION);
      await expectMigratedThread(store);
    } finally {
      await store.close();
    }
  });
});
