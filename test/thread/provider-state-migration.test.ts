/**
 * A database made by the previous schema (version 2: threads and history, no provider state)
 * opens with the current stores: it migrates to the current version, keeps its threads and their
 * history as they were, and a driver's provider state can then be saved, read and is deleted with
 * its thread.
 */
import { describe, expect, it } from "vitest";

import { sampleTurn } from "../../src/testing/thread-store-history-suite.js";
import type { ThreadStore } from "../../src/thread/store.js";
import { POSTGRES_THREAD_SCHEMA_VERSION } from "../../src/thread/stores/postgres.js";
import { SQLITE_THREAD_SCHEMA_VERSION } from "../../src/thread/stores/sqlite.js";
import { V1_THREAD } from "./fixtures/schema-v1.js";
import { postgresSchemaV2, SQLITE_SCHEMA_V2 } from "./fixtures/schema-v2.js";
import { PG_REQUIRED, PG_URL } from "./helpers.js";
import { migratePostgres, migrateSqlite, useOldDatabases, type OldDatabase } from "./old-database.js";

const scratch = useOldDatabases("state-migration");

const OLD_TURN = sampleTurn("run-old-2");
const V2: OldDatabase = { sqliteSchema: SQLITE_SCHEMA_V2, postgresSchema: postgresSchemaV2, turns: [OLD_TURN] };

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
    expect(SQLITE_THREAD_SCHEMA_VERSION).toBe(3);
    await migrateSqlite(scratch.sqlitePath("v2.db"), V2, expectMigratedThread);
  });

  it.skipIf(PG_URL === undefined && !PG_REQUIRED)("PostgreSQL: a version 2 schema migrates to the current version and keeps its threads and history", async () => {
    expect(POSTGRES_THREAD_SCHEMA_VERSION).toBe(3);
    await migratePostgres(scratch.postgresSchema(), V2, expectMigratedThread);
  });
});
