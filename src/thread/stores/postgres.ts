/**
 * The PostgreSQL thread store (`pg`): for hosts that outgrow one machine. Any number of
 * processes on any number of hosts share one schema; the lease gives one writer per thread
 * across all of them.
 *
 * Clock: every time the store decides or records — lease expiry, `createdAt`, `updatedAt` — is
 * taken from the database server's clock (`clock_timestamp()`), never from a host's, so hosts
 * whose clocks disagree still agree on who holds a lease. `ThreadLease.expiresAt` is epoch
 * milliseconds on the database clock.
 *
 * Atomicity: each lease decision is one conditional `UPDATE … RETURNING`; under PostgreSQL's
 * row locking, concurrent updates of one row are serialised and each re-checks the condition
 * against the row the previous one committed, so exactly one contender wins.
 *
 * Migrations run when the store connects, under an advisory lock so that hosts starting together
 * migrate once; every step is idempotent (`IF NOT EXISTS`) and recorded in a version table.
 */
import { LeaseLostError, ThreadBusyError, ThreadExistsError, ThreadNotFoundError } from "../../errors/index.js";
import type {
  HistoryOptions,
  HistoryPage,
  HistoryTurn,
  NewHistoryTurn,
  NewThreadRecord,
  ThreadCheckpoint,
  ThreadLease,
  ThreadListOptions,
  ThreadRecord,
  ThreadStore,
} from "../store.js";
import {
  checkHistoryOptions,
  checkLimit,
  checkNewRecord,
  checkNewTurn,
  checkOwner,
  checkProviderState,
  checkTtl,
  checkUpdate,
  historyPage,
  storeClosed,
  turnBody,
  turnFromBody,
} from "./common.js";
import { connectPostgresStore, ISO, NOW_MS, NOW_TS, quoteSchema, threadMigrationLock, type PostgresPoolLike } from "./postgres-client.js";

export type { PostgresClientLike, PostgresPoolLike, PostgresQuery, PostgresQueryResult } from "./postgres-client.js";

export interface PostgresThreadStoreOptions {
  /** A `postgres://` URL; the store creates (and on `close()` ends) its own pool. */
  connectionString?: string;
  /** An existing pool to use instead; it stays open after `close()`. */
  pool?: PostgresPoolLike;
  /** The schema holding the store's tables (default `"agent_adaptor"`); created when missing. */
  schema?: string;
  /** Connections in the store's own pool (default 10). */
  maxConnections?: number;
  /**
   * How long a call waits for a connection of the store's own pool — a free one, or a new one to
   * be established — before failing with `store_busy` or `store_unavailable` (default 10000 ms).
   */
  connectTimeoutMs?: number;
}

export interface PostgresThreadStore extends ThreadStore {
  /** The schema holding the tables. */
  readonly schema: string;
  /** The schema version the database is at after connecting. */
  readonly schemaVersion: number;
}

/** Forward migrations, in order; each is idempotent. Never edit a released entry: append. */
const MIGRATIONS: readonly ((s: string) => string)[] = [
  // 1: the threads table.
  (s) => `
    CREATE TABLE IF NOT EXISTS ${s}.threads (
      id                  text PRIMARY KEY,
      driver              text NOT NULL,
      fingerprint         text NOT NULL,
      fingerprint_parts   jsonb NOT NULL,
      provider_session_id text,
      workspace           text NOT NULL,
      checkpoint          jsonb NOT NULL,
      metadata            jsonb NOT NULL,
      parent_id           text,
      lease_owner         text,
      lease_expires_at    bigint,        -- epoch ms on the database clock
      created_at          timestamptz NOT NULL,
      updated_at          timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS threads_by_updated ON ${s}.threads (updated_at DESC, id);
    CREATE INDEX IF NOT EXISTS threads_by_driver ON ${s}.threads (driver, updated_at DESC, id);`,
  // 2: thread history, one row per ended run, deleted with its thread. The body is JSON text,
  // not jsonb: jsonb refuses the NUL character a model's text may contain and reorders keys.
  (s) => `
    CREATE TABLE IF NOT EXISTS ${s}.thread_turns (
      thread_id text NOT NULL REFERENCES ${s}.threads (id) ON DELETE CASCADE,
      turn      integer NOT NULL,
      run_id    text NOT NULL,
      status    text NOT NULL,
      body      text NOT NULL,
      PRIMARY KEY (thread_id, turn)
    );`,
  // 3: each thread's provider state, the driver's opaque document, deleted with its thread. Text
  // for the same reasons as the history body.
  (s) => `
    CREATE TABLE IF NOT EXISTS ${s}.thread_provider_state (
      thread_id text PRIMARY KEY REFERENCES ${s}.threads (id) ON DELETE CASCADE,
      body      text NOT NULL
    );`,
];

/** The schema version this code writes. */
export const POSTGRES_THREAD_SCHEMA_VERSION = MIGRATIONS.length;

const COLUMNS = `id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata, parent_id, lease_owner, lease_expires_at, ${ISO("created_at")} AS created_at, ${ISO("updated_at")} AS updated_at,
  ${NOW_MS} AS db_now`;

interface Row {
  id: string;
  driver: string;
  fingerprint: string;
  fingerprint_parts: Record<string, string>;
  provider_session_id: string | null;
  workspace: string;
  checkpoint: ThreadCheckpoint;
  metadata: Record<string, string>;
  parent_id: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  db_now: string;
}

function toRecord(raw: Record<string, unknown>): ThreadRecord {
  const row = raw as unknown as Row;
  const record: ThreadRecord = {
    id: row.id,
    driver: row.driver,
    fingerprint: row.fingerprint,
    fingerprintParts: row.fingerprint_parts,
    workspace: row.workspace,
    checkpoint: row.checkpoint,
    metadata: row.metadata,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.provider_session_id !== null) record.providerSessionId = row.provider_session_id;
  if (row.parent_id !== null) record.parentId = row.parent_id;
  if (row.lease_owner !== null && row.lease_expires_at !== null && Number(row.lease_expires_at) > Number(row.db_now)) {
    record.lease = { owner: row.lease_owner, expiresAt: Number(row.lease_expires_at) };
  }
  return record;
}

/**
 * Connect to PostgreSQL, bring the store's schema up to date, and return the store. Give either
 * `connectionString` (the store owns its pool) or `pool` (the host owns it).
 */
// long-function: the ThreadStore port's methods over one pool and schema; each method is short
export async function postgresThreadStore(options: PostgresThreadStoreOptions): Promise<PostgresThreadStore> {
  const schema = options.schema ?? "agent_adaptor";
  const s = quoteSchema(schema, "thread");
  const { schemaVersion, query, close } = await connectPostgresStore(options, schema, {
    kind: "thread",
    statementPrefix: "agent_adaptor_",
    migrations: { table: "schema_migrations", steps: MIGRATIONS, lock: threadMigrationLock(schema), newerThan: "the thread schema is at version" },
    closedError: storeClosed,
  });

  const t = `${s}.threads`;
  const exists = async (id: string): Promise<boolean> => (await query(`SELECT 1 FROM ${t} WHERE id = $1`, [id])).rowCount === 1;

  return {
    schema,
    get schemaVersion() {
      return schemaVersion;
    },

    async create(input: NewThreadRecord): Promise<ThreadRecord> {
      const f = checkNewRecord(input);
      const { rows } = await query(
        `INSERT INTO ${t} (id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata,
           parent_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, ${NOW_TS}, ${NOW_TS})
         ON CONFLICT (id) DO NOTHING
         RETURNING ${COLUMNS}`,
        [
          f.id,
          f.driver,
          f.fingerprint,
          JSON.stringify(f.fingerprintParts),
          f.providerSessionId ?? null,
          f.workspace,
          JSON.stringify(f.checkpoint),
          JSON.stringify(f.metadata),
          f.parentId ?? null,
        ],
      );
      if (rows[0] === undefined) throw new ThreadExistsError();
      return toRecord(rows[0]);
    },

    async get(id: string): Promise<ThreadRecord | undefined> {
      const { rows } = await query(`SELECT ${COLUMNS} FROM ${t} WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },

    async list(listOptions: ThreadListOptions = {}): Promise<ThreadRecord[]> {
      const limit = checkLimit(listOptions.limit);
      const { rows } =
        listOptions.driver === undefined
          ? await query(`SELECT ${COLUMNS} FROM ${t} ORDER BY updated_at DESC, id LIMIT $1`, [limit])
          : await query(`SELECT ${COLUMNS} FROM ${t} WHERE driver = $1 ORDER BY updated_at DESC, id LIMIT $2`, [
              listOptions.driver,
              limit,
            ]);
      return rows.map(toRecord);
    },

    async delete(id: string): Promise<boolean> {
      const { rowCount } = await query(`DELETE FROM ${t} WHERE id = $1 AND (lease_owner IS NULL OR lease_expires_at <= ${NOW_MS})`, [id]);
      if (rowCount === 1) return true;
      if (!(await exists(id))) return false;
      throw new ThreadBusyError();
    },

    async acquireLease(id: string, owner: string, ttlMs: number): Promise<ThreadLease | undefined> {
      checkOwner(owner);
      const ttl = checkTtl(ttlMs);
      // A contender blocked on the row lock re-evaluates the WHERE clause against the winner's
      // committed row, and clock_timestamp() is read when the row is (re)checked.
      const { rows } = await query(
        `UPDATE ${t} SET lease_owner = $2, lease_expires_at = ${NOW_MS} + $3
         WHERE id = $1 AND (lease_owner IS NULL OR lease_expires_at <= ${NOW_MS} OR lease_owner = $2)
         RETURNING lease_expires_at`,
        [id, owner, ttl],
      );
      if (rows[0] !== undefined) return { owner, expiresAt: Number(rows[0].lease_expires_at) };
      if (!(await exists(id))) throw new ThreadNotFoundError();
      return undefined;
    },

    async renewLease(id: string, owner: string, ttlMs: number): Promise<boolean> {
      const ttl = checkTtl(ttlMs);
      const { rowCount } = await query(
        `UPDATE ${t} SET lease_expires_at = ${NOW_MS} + $3
         WHERE id = $1 AND lease_owner = $2 AND lease_expires_at > ${NOW_MS}`,
        [id, owner, ttl],
      );
      return rowCount === 1;
    },

    async releaseLease(id: string, owner: string): Promise<void> {
      await query(`UPDATE ${t} SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2`, [id, owner]);
    },

    async saveCheckpoint(
      id: string,
      owner: string,
      update: { providerSessionId?: string; checkpoint: ThreadCheckpoint },
    ): Promise<ThreadRecord> {
      const { checkpoint, providerSessionId } = checkUpdate(update);
      const { rows } = await query(
        `UPDATE ${t} SET checkpoint = $3,
           provider_session_id = COALESCE($4, provider_session_id),
           updated_at = greatest(${NOW_TS}, updated_at)
         WHERE id = $1 AND lease_owner = $2 AND lease_expires_at > ${NOW_MS}
         RETURNING ${COLUMNS}`,
        [id, owner, JSON.stringify(checkpoint), providerSessionId ?? null],
      );
      if (rows[0] !== undefined) return toRecord(rows[0]);
      if (!(await exists(id))) throw new ThreadNotFoundError();
      throw new LeaseLostError();
    },

    async appendTurn(id: string, owner: string, input: NewHistoryTurn): Promise<HistoryTurn> {
      const body = checkNewTurn(input);
      // The lease check and the insert are one statement, so a writer whose lease lapsed appends
      // nothing. One owner appends one turn at a time (a thread appends once per run).
      const { rows } = await query(
        `WITH holder AS (
           SELECT id FROM ${t} WHERE id = $1 AND lease_owner = $2 AND lease_expires_at > ${NOW_MS} FOR UPDATE
         )
         INSERT INTO ${s}.thread_turns (thread_id, turn, run_id, status, body)
         SELECT holder.id, coalesce((SELECT max(turn) FROM ${s}.thread_turns WHERE thread_id = $1), 0) + 1, $3, $4, $5 FROM holder
         RETURNING turn`,
        [id, owner, body.runId, body.status, turnBody(body)],
      );
      if (rows[0] !== undefined) return turnFromBody(Number(rows[0].turn), body);
      if (!(await exists(id))) throw new ThreadNotFoundError();
      throw new LeaseLostError();
    },

    async history(id: string, historyOptions?: HistoryOptions): Promise<HistoryPage> {
      const { before, limit } = checkHistoryOptions(historyOptions);
      const { rows } = await query(
        `SELECT turn, body FROM ${s}.thread_turns WHERE thread_id = $1 AND turn < $2 ORDER BY turn DESC LIMIT $3`,
        [id, Math.min(before ?? Infinity, 2 ** 31 - 1), limit + 1],
      );
      return historyPage(rows.map((row) => turnFromBody(Number(row.turn), row.body as string)), limit);
    },

    async loadProviderState(id: string): Promise<string | undefined> {
      const { rows } = await query(`SELECT body FROM ${s}.thread_provider_state WHERE thread_id = $1`, [id]);
      return rows[0] === undefined ? undefined : (rows[0].body as string);
    },

    async saveProviderState(id: string, owner: string, state: string): Promise<void> {
      const text = checkProviderState(state);
      // The lease check and the write are one statement, like appendTurn's.
      const { rows } = await query(
        `WITH holder AS (
           SELECT id FROM ${t} WHERE id = $1 AND lease_owner = $2 AND lease_expires_at > ${NOW_MS} FOR UPDATE
         )
         INSERT INTO ${s}.thread_provider_state (thread_id, body)
         SELECT holder.id, $3 FROM holder
         ON CONFLICT (thread_id) DO UPDATE SET body = EXCLUDED.body
         RETURNING thread_id`,
        [id, owner, text],
      );
      if (rows[0] !== undefined) return;
      if (!(await exists(id))) throw new ThreadNotFoundError();
      throw new LeaseLostError();
    },

    close,
  };
}
