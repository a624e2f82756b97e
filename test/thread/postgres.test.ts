/**
 * The PostgreSQL store against a real server (AGENT_ADAPTOR_TEST_PG_URL; see
 * scripts/ci-postgres.sh). Without one the tests skip locally and fail in CI.
 */
import { afterAll, describe, expect, it } from "vitest";

import { runThreadStoreSuite } from "../../src/testing/thread-store-suite.js";
import type { ThreadStore } from "../../src/thread/store.js";
import {
  POSTGRES_THREAD_SCHEMA_VERSION,
  postgresThreadStore,
  type PostgresThreadStore,
} from "../../src/thread/stores/postgres.js";
import { dropSchemas, PG_MISSING, PG_REQUIRED, PG_URL, uniqueSchema } from "./helpers.js";

const record = (id: string) => ({ id, driver: "d", fingerprint: "f", fingerprintParts: {}, workspace: "/w", metadata: {} });

if (PG_URL === undefined) {
  if (PG_REQUIRED) {
    it("postgres thread store: a PostgreSQL server is required in CI", () => {
      throw new Error(PG_MISSING);
    });
  } else {
    console.warn(`skipping the PostgreSQL thread store tests: ${PG_MISSING}`);
    it.skip(`postgres thread store (${PG_MISSING})`, () => undefined);
  }
} else {
  const url = PG_URL;
  const created = new Set<string>();
  afterAll(() => dropSchemas(url, created));
  const fresh = (): Promise<PostgresThreadStore> => {
    const schema = uniqueSchema();
    created.add(schema);
    return postgresThreadStore({ connectionString: url, schema });
  };

  describe("postgresThreadStore", () => {
    runThreadStoreSuite(fresh, {
      runner: { describe, it },
      reopen: (store: ThreadStore) => postgresThreadStore({ connectionString: url, schema: (store as PostgresThreadStore).schema }),
    });

    it("migrates idempotently when many stores connect to a new schema at once", async () => {
      const schema = uniqueSchema();
      created.add(schema);
      const stores = await Promise.all(Array.from({ length: 6 }, () => postgresThreadStore({ connectionString: url, schema, maxConnections: 2 })));
      try {
        for (const store of stores) expect(store.schemaVersion).toBe(POSTGRES_THREAD_SCHEMA_VERSION);
        const pg = (await import("pg")).default;
        const pool = new pg.Pool({ connectionString: url, max: 1 });
        try {
          const { rows } = await pool.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
          expect(rows.map((r: { version: number }) => r.version)).toEqual(
            Array.from({ length: POSTGRES_THREAD_SCHEMA_VERSION }, (_, i) => i + 1),
          );
        } finally {
          await pool.end();
        }
        await stores[0]!.create(record("t"));
        expect((await stores[5]!.get("t"))?.id).toBe("t");
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it("refuses a schema written by a newer version", async () => {
      const store = await fresh();
      await store.close();
      const pg = (await import("pg")).default;
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        await pool.query(`INSERT INTO "${store.schema}".schema_migrations (version) VALUES ($1)`, [POSTGRES_THREAD_SCHEMA_VERSION + 1]);
      } finally {
        await pool.end();
      }
      await expect(postgresThreadStore({ connectionString: url, schema: store.schema })).rejects.toMatchObject({ code: "store_schema_newer" });
    });

    it("takes lease times from the database clock", async () => {
      const store = await fresh();
      const pg = (await import("pg")).default;
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      try {
        await store.create(record("t"));
        const before = Number((await pool.query(`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000) AS ms`)).rows[0].ms);
        const lease = await store.acquireLease("t", "a", 60_000);
        const after = Number((await pool.query(`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000) AS ms`)).rows[0].ms);
        expect(lease!.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
        expect(lease!.expiresAt).toBeLessThanOrEqual(after + 60_000);
        // A lease set to expire in the database's past is free, whatever this host's clock says.
        await pool.query(`UPDATE "${store.schema}".threads SET lease_expires_at = $1 WHERE id = 't'`, [before - 1]);
        expect((await store.get("t"))?.lease).toBeUndefined();
        expect((await store.acquireLease("t", "b", 1000))?.owner).toBe("b");
      } finally {
        await pool.end();
        await store.close();
      }
    });

    it("uses a host's pool without ending it", async () => {
      const pg = (await import("pg")).default;
      const pool = new pg.Pool({ connectionString: url, max: 3 });
      const schema = uniqueSchema();
      created.add(schema);
      try {
        const store = await postgresThreadStore({ pool, schema });
        await store.create(record("t"));
        await store.close();
        await expect(store.get("t")).rejects.toMatchObject({ code: "store_closed" });
        expect((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".threads`)).rows[0].n).toBe(1);
      } finally {
        await pool.end();
      }
    });

    it("rejects bad options", async () => {
      await expect(postgresThreadStore({ connectionString: url, schema: 'x"; drop' })).rejects.toMatchObject({ code: "config_invalid" });
      await expect(postgresThreadStore({ schema: "x" })).rejects.toMatchObject({ code: "config_invalid" });
    });
  });
}
