/**
 * The PostgreSQL session store (`pg`): for hosts that share sessions across machines. Its tables
 * live beside the PostgreSQL thread store's (same default schema `agent_adaptor`; give both the
 * same URL, or the same `pool`), with a schema version of their own.
 *
 * Ownership: each decision is one conditional `UPDATE`; concurrent updates of one row are
 * serialised by its row lock and each re-checks the condition against the committed row, so two
 * hosts never own one session. Times are the database server's clock (`clock_timestamp()`).
 *
 * Appends: the ownership check, the contiguity check (`last_seq` must be one below the first new
 * `seq`) and the insert of the batch are one statement, so a host that lost ownership appends
 * nothing and a gap or duplicate is refused with `store_seq_conflict`.
 */
import { LeaseLostError, SessionExistsError, SessionNotFoundError } from "../../errors/index.js";
import { connectPostgresStore, ISO, NOW_MS, NOW_TS, quoteSchema, type PostgresPoolLike } from "../../thread/stores/postgres-client.js";
import type { NewSessionRecord, SessionEvent, SessionPatch, SessionRecord, SessionState, SessionStore } from "../types.js";
import {
  applyPatch,
  checkEvents,
  checkListOptions,
  checkNewSession,
  checkOwner,
  checkReadOptions,
  checkRetention,
  checkTtl,
  seqConflict,
  storeClosed,
  toEvent,
  toRecord,
  type RecordBody,
} from "./common.js";

export interface PostgresSessionStoreOptions {
  /** A `postgres://` URL (may be the thread store's); the store creates (and on `close()` ends) its own pool. */
  connectionString?: string;
  /** An existing pool to use instead (may be the thread store's); it stays open after `close()`. */
  pool?: PostgresPoolLike;
  /** The schema holding the tables (default `"agent_adaptor"`, the thread store's); created when missing. */
  schema?: string;
  /** Connections in the store's own pool (default 10). */
  maxConnections?: number;
  /** How long a call waits for a connection of the store's own pool (default 10000 ms). */
  connectTimeoutMs?: number;
}

export interface PostgresSessionStore extends SessionStore {
  readonly schema: string;
  /** The session schema version the database is at after connecting. */
  readonly schemaVersion: number;
}

/** Forward migrations of the session tables, in order; each is idempotent. Never edit a released entry: append. */
const MIGRATIONS: readonly ((s: string) => string)[] = [
  // 1: records and their event logs. Bodies are JSON text, not jsonb: jsonb refuses the NUL
  // character a model's text may contain and reorders keys.
  (s) => `
    CREATE TABLE IF NOT EXISTS ${s}.sessions (
      id               text PRIMARY KEY,
      state            text NOT NULL,
      body             text NOT NULL,
      owner            text,
      owner_expires_at bigint,
      last_seq         bigint NOT NULL DEFAULT 0,
      created_at       timestamptz NOT NULL,
      updated_at       timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS sessions_by_updated ON ${s}.sessions (updated_at DESC, id);
    CREATE TABLE IF NOT EXISTS ${s}.session_events (
      session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
      seq        bigint NOT NULL,
      at         bigint NOT NULL,
      json       text NOT NULL,
      PRIMARY KEY (session_id, seq)
    );`,
];

/** The session schema version this code writes. */
export const POSTGRES_SESSION_SCHEMA_VERSION = MIGRATIONS.length;

const COLUMNS = `id, body, owner, owner_expires_at, ${ISO("created_at")} AS created_at, ${ISO("updated_at")} AS updated_at, ${NOW_MS} AS db_now`;

function rowToRecord(row: Record<string, unknown>): SessionRecord {
  return toRecord(JSON.parse(row.body as string) as RecordBody, {
    owner: row.owner as string | null,
    ownerExpiresAt: row.owner_expires_at === null ? null : Number(row.owner_expires_at),
    now: Number(row.db_now),
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  });
}

/**
 * Connect to PostgreSQL, bring the session tables up to date, and return the store. Give either
 * `connectionString` (the store owns its pool) or `pool` (the host owns it).
 */
// long-function: the SessionStore port's methods over one pool and schema; each method is short
export async function postgresSessionStore(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
  const schema = options.schema ?? "agent_adaptor";
  const s = quoteSchema(schema, "session");
  const { schemaVersion, query, close } = await connectPostgresStore(options, schema, {
    kind: "session",
    statementPrefix: "agent_adaptor_s_",
    migrations: { table: "session_schema_migrations", steps: MIGRATIONS, lock: `agent-adaptor/sessions/${schema}`, newerThan: "the session tables are at schema version" },
    closedError: storeClosed,
  });

  const t = `${s}.sessions`;
  const e = `${s}.session_events`;
  /** Why `owner` may not write session `id`, from its row as now; no `error` while it still owns it. */
  const refusal = async (id: string, owner: string): Promise<{ error?: Error; lastSeq: number }> => {
    const { rows } = await query(`SELECT owner, owner_expires_at > ${NOW_MS} AS live, last_seq FROM ${t} WHERE id = $1`, [id]);
    const row = rows[0];
    if (row === undefined) return { error: new SessionNotFoundError(), lastSeq: 0 };
    if (row.owner !== owner || row.live !== true) return { error: new LeaseLostError("the session's ownership was lost"), lastSeq: 0 };
    return { lastSeq: Number(row.last_seq) };
  };

  return {
    schema,
    get schemaVersion() {
      return schemaVersion;
    },

    async create(input: NewSessionRecord): Promise<SessionRecord> {
      const body = checkNewSession(input);
      const { rows } = await query(
        `INSERT INTO ${t} (id, state, body, created_at, updated_at) VALUES ($1, $2, $3, ${NOW_TS}, ${NOW_TS})
         ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
        [body.id, body.state, JSON.stringify(body)],
      );
      if (rows[0] === undefined) throw new SessionExistsError();
      return rowToRecord(rows[0]);
    },

    async get(id: string): Promise<SessionRecord | undefined> {
      const { rows } = await query(`SELECT ${COLUMNS} FROM ${t} WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : rowToRecord(rows[0]);
    },

    async list(listOptions?: { limit?: number; state?: SessionState }): Promise<SessionRecord[]> {
      const { limit, state } = checkListOptions(listOptions);
      const { rows } =
        state === undefined
          ? await query(`SELECT ${COLUMNS} FROM ${t} ORDER BY updated_at DESC, id LIMIT $1`, [limit])
          : await query(`SELECT ${COLUMNS} FROM ${t} WHERE state = $1 ORDER BY updated_at DESC, id LIMIT $2`, [state, limit]);
      return rows.map(rowToRecord);
    },

    async delete(id: string): Promise<boolean> {
      // The events go with the record (ON DELETE CASCADE).
      return (await query(`DELETE FROM ${t} WHERE id = $1`, [id])).rowCount === 1;
    },

    async acquireOwner(id: string, owner: string, ttlMs: number): Promise<boolean> {
      checkOwner(owner);
      const ttl = checkTtl(ttlMs);
      // A contender blocked on the row lock re-evaluates the condition against the winner's row.
      const { rowCount } = await query(
        `UPDATE ${t} SET owner = $2, owner_expires_at = ${NOW_MS} + $3
         WHERE id = $1 AND (owner IS NULL OR owner_expires_at <= ${NOW_MS} OR owner = $2)`,
        [id, owner, ttl],
      );
      if (rowCount === 1) return true;
      if ((await query(`SELECT 1 FROM ${t} WHERE id = $1`, [id])).rowCount === 0) throw new SessionNotFoundError();
      return false;
    },

    async renewOwner(id: string, owner: string, ttlMs: number): Promise<boolean> {
      const ttl = checkTtl(ttlMs);
      const { rowCount } = await query(
        `UPDATE ${t} SET owner_expires_at = ${NOW_MS} + $3 WHERE id = $1 AND owner = $2 AND owner_expires_at > ${NOW_MS}`,
        [id, owner, ttl],
      );
      return rowCount === 1;
    },

    async releaseOwner(id: string, owner: string): Promise<void> {
      await query(`UPDATE ${t} SET owner = NULL, owner_expires_at = NULL WHERE id = $1 AND owner = $2`, [id, owner]);
    },

    async update(id: string, owner: string, patch: SessionPatch): Promise<SessionRecord> {
      // Compare-and-set on the body read: one statement per attempt, no connection held between them.
      for (;;) {
        const { rows: current } = await query(`SELECT body FROM ${t} WHERE id = $1`, [id]);
        if (current[0] === undefined) throw new SessionNotFoundError();
        const before = current[0].body as string;
        const body = applyPatch(JSON.parse(before) as RecordBody, patch);
        const { rows } = await query(
          `UPDATE ${t} SET state = $3, body = $4, updated_at = greatest(${NOW_TS}, updated_at)
           WHERE id = $1 AND owner = $2 AND owner_expires_at > ${NOW_MS} AND body = $5
           RETURNING ${COLUMNS}`,
          [id, owner, body.state, JSON.stringify(body), before],
        );
        if (rows[0] !== undefined) return rowToRecord(rows[0]);
        const { error } = await refusal(id, owner);
        if (error !== undefined) throw error;
        // Still the owner: the body changed between the read and the write (another call of this owner); retry.
      }
    },

    async appendEvents(id: string, owner: string, events: readonly SessionEvent[]): Promise<void> {
      const stored = checkEvents(id, events);
      if (stored.length === 0) {
        const { rowCount } = await query(`SELECT 1 FROM ${t} WHERE id = $1 AND owner = $2 AND owner_expires_at > ${NOW_MS}`, [id, owner]);
        if (rowCount !== 1) throw (await refusal(id, owner)).error ?? new LeaseLostError("the session's ownership was lost");
        return;
      }
      const first = stored[0]!.seq;
      const { rowCount } = await query(
        `WITH advanced AS (
           UPDATE ${t} SET last_seq = $4
           WHERE id = $1 AND owner = $2 AND owner_expires_at > ${NOW_MS} AND last_seq = $3::bigint - 1
           RETURNING id
         )
         INSERT INTO ${e} (session_id, seq, at, json)
         SELECT advanced.id, ev.seq, ev.at, ev.json FROM advanced, unnest($5::bigint[], $6::bigint[], $7::text[]) AS ev(seq, at, json)`,
        [id, owner, first, stored[stored.length - 1]!.seq, stored.map((x) => x.seq), stored.map((x) => x.at), stored.map((x) => x.json)],
      );
      if (rowCount !== stored.length) {
        const { error, lastSeq } = await refusal(id, owner);
        throw error ?? seqConflict(lastSeq + 1, first);
      }
    },

    async readEvents(id: string, readOptions: { after: number; limit?: number }): Promise<SessionEvent[]> {
      const { after, limit } = checkReadOptions(readOptions);
      const { rows } = await query(`SELECT seq, at, json FROM ${e} WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [id, after, limit]);
      return rows.map((row) => toEvent(id, Number(row.seq), Number(row.at), row.json as string));
    },

    async lastSeq(id: string): Promise<number> {
      const { rows } = await query(`SELECT last_seq FROM ${t} WHERE id = $1`, [id]);
      return rows[0] === undefined ? 0 : Number(rows[0].last_seq);
    },

    async trimEvents(id: string, retention: { maxEvents?: number; maxAgeMs?: number }): Promise<number> {
      const { maxEvents, maxAgeMs } = checkRetention(retention);
      let dropped = 0;
      if (maxEvents !== undefined) {
        const { rowCount } = await query(
          `DELETE FROM ${e} WHERE session_id = $1 AND seq <= (SELECT last_seq FROM ${t} WHERE id = $1) - $2::bigint`,
          [id, maxEvents],
        );
        dropped += rowCount ?? 0;
      }
      if (maxAgeMs !== undefined) {
        // The oldest events up to the first young enough: the log stays a contiguous suffix.
        const { rowCount } = await query(
          `DELETE FROM ${e} WHERE session_id = $1 AND seq < coalesce(
             (SELECT min(seq) FROM ${e} WHERE session_id = $1 AND at >= ${NOW_MS} - $2::bigint), 9223372036854775807)`,
          [id, Math.ceil(maxAgeMs)],
        );
        dropped += rowCount ?? 0;
      }
      return dropped;
    },

    close,
  };
}
