/**
 * A database made by the previous schema (release 1, before history) opens with the current
 * stores: it migrates to the current version, keeps its threads as they were, and their history
 * starts empty and grows from turn 1.
 */
import { describe, expect, it } from "vitest";

import { sampleTurn } from "../../src/testing/thread-store-history-suite.js";
import type { ThreadStore } from "../../src/thread/store.js";
import { POSTGRES_THREAD_SCHEMA_VERSION } from "../../src/thread/stores/postgres.js";
import { SQLITE_THREAD_SCHEMA_VERSION } from "../../src/thread/stores/sqlite.js";
import { postgresSchemaV1, SQLITE_SCHEMA_V1, V1_THREAD } from "./fixtures/schema-v1.js";
import { PG_REQUIRED, PG_URL } from "./helpers.js";
import { migratePostgres, migrateSqlite, useOldDatabases, type OldDatabase } from "./old-database.js";

const scratch = useOldDatabases("history-migration");
const V1: OldDatabase = { sqliteSchema: SQLITE_SCHEMA_V1, postgresSchema: postgresSchemaV1 };

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
    expect(SQLITE_THREAD_SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
    await migrateSqlite(scratch.sqlitePath("v1.db"), V1, expectMigratedThread);
  });

  it.skipIf(PG_URL === undefined && !PG_REQUIRED)("PostgreSQL: a version 1 schema migrates to the current version and keeps its threads", async () => {
    expect(POSTGRES_THREAD_SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
    await migratePostgres(scratch.postgresSchema(), V1, expectMigratedThread);
  });
});
