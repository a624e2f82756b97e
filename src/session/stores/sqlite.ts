/**
 * The SQLite session store (`better-sqlite3`). One database file can be shared by several
 * processes on one machine, and with the SQLite thread store (give both the same path: the
 * tables differ and each keeps its own schema version). Every write runs in a `BEGIN IMMEDIATE`
 * transaction, so ownership decisions and the contiguity check of an append are atomic across
 * every process.
 *
 * Durability: records are committed with `synchronous` (default `"full"`: fsynced, so a queued
 * prompt acknowledged to the host survives a power loss); event batches with `eventSynchronous`
 * (default `"normal"`: in WAL mode a batch survives the process being killed, and only a machine
 * crash may lose the newest ones) — a busy run logs many events and must not wait on the disk.
 *
 * Clock: ownership expiry and timestamps use this process's clock, which every process on one
 * machine shares.
 */
import { createRequire } from "node:module";

import type BetterSqlite3 from "better-sqlite3";

import { ConfigError, LeaseLostError, SessionExistsError, SessionNotFoundError, StoreError } from "../../errors/index.js";
import type { NewSessionRecord, SessionEvent, SessionPatch, SessionRecord, SessionState, SessionStore } from "../types.js";
import {
  applyPatch,
  checkEventShape,
  checkListOptions,
  checkNewSession,
  checkOwner,
  checkReadOptions,
  checkRetention,
  checkTtl,
  seqConflict,
  storeClosed,
  toRecord,
  type RecordBody,
} from "./common.js";
import { appendEncoded, encodeBatch, type EncodedAppendStore, type EncodedBatch } from "../event-runs.js";
import { EVENT_CHUNKS_TABLE, eventChunks } from "./sqlite-events.js";
import { startSqliteEventWriter, WriteRefused, type RecordRow } from "./sqlite-writer.js";
import { sqliteFailureOf } from "../../thread/stores/sqlite-failure.js";

/** What SQLite threw, as the typed failure naming the session database (the thread store's mapping). */
const sqliteFailure = sqliteFailureOf("session");

/** An open better-sqlite3 `Database` (the part of it the store relies on to recognise one). */
export interface SqliteDatabaseLike {
  readonly name: string;
  readonly open: boolean;
  prepare(source: string): unknown;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
}

export interface SqliteSessionStoreOptions {
  /** The database file (`":memory:"` for a private one); may be the SQLite thread store's file. */
  path?: string;
  /** An open better-sqlite3 database to use instead of `path`; the host owns it (never closed, pragmas untouched). */
  database?: SqliteDatabaseLike;
  /** How long a write waits for another connection's transaction before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Durability of record writes (default `"full"`); see the module comment. */
  synchronous?: "full" | "normal";
  /** Durability of event batches (default `"normal"`); see the module comment. */
  eventSynchronous?: "full" | "normal";
  /**
   * Where event batches and record updates of a database file are written: `"worker"` (default),
   * on a worker thread with its own connection, so SQLite's inserts, commits (with their fsyncs)
   * and WAL checkpoints never stop the event loop; `"inline"`, on this thread. A `database`
   * handle or an in-memory database is always inline.
   */
  eventWriter?: "worker" | "inline";
  /** The store's clock in epoch milliseconds (default `Date.now`); ownership expires on it. */
  now?: () => number;
}

export interface SqliteSessionStore extends SessionStore {
  /** The database file. */
  readonly path: string;
  /** The session schema version the database is at. */
  readonly schemaVersion: number;
}

/**
 * Forward migrations of the session tables, in order; migration `i` takes them from version `i`
 * to `i + 1` (recorded in `session_schema_migrations`, not `user_version`, which the thread store
 * of a shared file owns). Never edit a released entry: append a new one.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sessions (
     id               TEXT PRIMARY KEY NOT NULL,
     state            TEXT NOT NULL,
     body             TEXT NOT NULL,             -- JSON: the record without owner and timestamps
     owner            TEXT,
     owner_expires_at INTEGER,                   -- epoch ms on the writers' clock
     last_seq         INTEGER NOT NULL DEFAULT 0, -- the log's last seq, kept when events are trimmed
     created_at       TEXT NOT NULL,
     updated_at       TEXT NOT NULL
   ) STRICT;
   CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id);
   ${EVENT_CHUNKS_TABLE}`,
];

/** Times an update through the writer thread is re-applied to a record that changed meanwhile. */
const STALE_RETRIES = 16;

/** The session schema version this code writes. */
export const SQLITE_SESSION_SCHEMA_VERSION = MIGRATIONS.length;

type Row = RecordRow;

let loaded: typeof BetterSqlite3 | undefined;
function loadDriver(): typeof BetterSqlite3 {
  loaded ??= createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
  return loaded;
}

/** Brings the session tables up to date. Safe when several processes open a new database at once. */
function migrate(db: BetterSqlite3.Database): number {
  const version = (): number => {
    const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_schema_migrations'`).get();
    if (exists === undefined) return 0;
    return db.prepare(`SELECT coalesce(max(version), 0) FROM session_schema_migrations`).pluck().get() as number;
  };
  const check = (at: number): void => {
    if (at > MIGRATIONS.length) {
      throw new StoreError(
        "store_schema_newer",
        `the session tables are at schema version ${at}, newer than this version of agent-adaptor understands (${MIGRATIONS.length})`,
      );
    }
  };
  const seen = version();
  check(seen);
  if (seen === MIGRATIONS.length) return seen;
  db.transaction(() => {
    // Re-read under the write lock: another process may have migrated meanwhile.
    db.exec(`CREATE TABLE IF NOT EXISTS session_schema_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL) STRICT`);
    let at = version();
    check(at);
    for (; at < MIGRATIONS.length; at++) {
      db.exec(MIGRATIONS[at]!);
      db.prepare(`INSERT INTO session_schema_migrations (version, applied_at) VALUES (?, ?)`).run(at + 1, new Date().toISOString());
    }
  }).immediate();
  return version();
}

interface Opened {
  db: BetterSqlite3.Database;
  path: string;
  own: boolean;
}

function openDatabase(options: SqliteSessionStoreOptions, busyTimeoutMs: number): Opened {
  if ((options.path === undefined) === (options.database === undefined)) {
    throw new ConfigError("sqliteSessionStore: give exactly one of path and database");
  }
  if (options.database !== undefined) {
    const db = options.database as unknown as BetterSqlite3.Database;
    if (!db.open) throw new ConfigError("sqliteSessionStore: the database is not open");
    return { db, path: db.name, own: false };
  }
  const path = options.path!;
  let db: BetterSqlite3.Database;
  try {
    db = new (loadDriver())(path, { timeout: busyTimeoutMs });
  } catch (err) {
    throw sqliteFailure(err, path, busyTimeoutMs);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    // WAL: readers never block the writer; several processes on one machine share the file.
    db.pragma("journal_mode = WAL");
  } catch (err) {
    db.close();
    throw sqliteFailure(err, path, busyTimeoutMs);
  }
  return { db, path, own: true };
}

function prepare(db: BetterSqlite3.Database) {
  const columns = `id, state, body, owner, owner_expires_at, created_at, updated_at`;
  return {
    insert: db.prepare(
      `INSERT INTO sessions (id, state, body, created_at, updated_at) VALUES (@id, @state, @body, @at, @at)
       ON CONFLICT (id) DO NOTHING RETURNING ${columns}`,
    ),
    get: db.prepare(`SELECT ${columns} FROM sessions WHERE id = ?`),
    ownerOf: db.prepare(`SELECT owner, owner_expires_at, last_seq FROM sessions WHERE id = ?`),
    listAll: db.prepare(`SELECT ${columns} FROM sessions ORDER BY updated_at DESC, id LIMIT ?`),
    listState: db.prepare(`SELECT ${columns} FROM sessions WHERE state = ? ORDER BY updated_at DESC, id LIMIT ?`),
    delete: db.prepare(`DELETE FROM sessions WHERE id = ?`),
    acquire: db.prepare(
      `UPDATE sessions SET owner = @owner, owner_expires_at = @expires
       WHERE id = @id AND (owner IS NULL OR owner_expires_at <= @now OR owner = @owner)`,
    ),
    renew: db.prepare(`UPDATE sessions SET owner_expires_at = @expires WHERE id = @id AND owner = @owner AND owner_expires_at > @now`),
    release: db.prepare(`UPDATE sessions SET owner = NULL, owner_expires_at = NULL WHERE id = ? AND owner = ?`),
    update: db.prepare(
      `UPDATE sessions SET state = @state, body = @body, updated_at = max(@at, updated_at)
       WHERE id = @id AND owner = @owner AND owner_expires_at > @now RETURNING ${columns}`,
    ),
    advance: db.prepare(
      `UPDATE sessions SET last_seq = @last
       WHERE id = @id AND owner = @owner AND owner_expires_at > @now AND last_seq = @first - 1`,
    ),
    lastSeq: db.prepare(`SELECT last_seq FROM sessions WHERE id = ?`).pluck(),
  };
}

function rowToRecord(row: Row, now: number): SessionRecord {
  return toRecord(JSON.parse(row.body) as RecordBody, {
    owner: row.owner,
    ownerExpiresAt: row.owner_expires_at,
    now,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

/** The stored body without its state (a column of its own). */
function bodyText(body: RecordBody): string {
  return JSON.stringify(body);
}

/** Open (creating and migrating the session tables when needed) a SQLite session store. */
// long-function: the SessionStore port's methods over one open database and its prepared statements; each method is short
export function sqliteSessionStore(options: SqliteSessionStoreOptions): SqliteSessionStore {
  const now = options.now ?? Date.now;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const { db, path, own } = openDatabase(options, busyTimeoutMs);
  const recordSync = options.synchronous === "normal" ? "NORMAL" : "FULL";
  const eventSync = options.eventSynchronous === "full" ? "FULL" : "NORMAL";
  let schemaVersion: number;
  let sql: ReturnType<typeof prepare>;
  let chunks: ReturnType<typeof eventChunks>;
  try {
    if (own) db.pragma(`synchronous = ${recordSync}`);
    schemaVersion = migrate(db);
    sql = prepare(db);
    chunks = eventChunks(db);
  } catch (err) {
    if (own) db.close();
    throw sqliteFailure(err, path, busyTimeoutMs);
  }

  let closed = false;
  const transaction = db.transaction((body: () => unknown) => body());
  let synchronous = recordSync;
  /** Runs `body` in a BEGIN IMMEDIATE transaction committed with `sync` (own databases only). */
  const write = <T>(body: () => T, sync: "FULL" | "NORMAL" = recordSync): T => {
    if (closed) throw storeClosed();
    try {
      if (own && sync !== synchronous) {
        db.pragma(`synchronous = ${sync}`);
        synchronous = sync;
      }
      return transaction.immediate(body) as T;
    } catch (err) {
      throw sqliteFailure(err, path, busyTimeoutMs);
    }
  };
  const read = <T>(body: () => T): T => {
    if (closed) throw storeClosed();
    try {
      return body();
    } catch (err) {
      throw sqliteFailure(err, path, busyTimeoutMs);
    }
  };
  const iso = (ms: number): string => new Date(ms).toISOString();
  // Event batches of a file database go through a worker thread (see sqlite-writer.ts).
  const writer =
    own && path !== ":memory:" && path !== "" && options.eventWriter !== "inline"
      ? startSqliteEventWriter(path, busyTimeoutMs, eventSync, recordSync)
      : undefined;
  /** The typed error for what the event writer refused. */
  const writeFailure = (err: unknown, first: number): Error => {
    if (!(err instanceof WriteRefused)) return sqliteFailure(err, path, busyTimeoutMs);
    const refusal = err.refusal;
    if (refusal.kind === "not_found") return new SessionNotFoundError();
    if (refusal.kind === "lease_lost") return new LeaseLostError("the session's ownership was lost");
    if (refusal.kind === "seq_conflict") return seqConflict(refusal.lastSeq + 1, first);
    if (refusal.kind === "stale") return new StoreError("store_busy", "the session record kept changing while it was updated", { retryable: true });
    return sqliteFailure(Object.assign(new Error(refusal.message), { code: refusal.code }), path, busyTimeoutMs);
  };
  /**
   * `update` through the writer thread, so its fully synced commit never stops the event loop: the
   * patch is applied here to the body read here, and the worker stores it only if the body is still
   * that one, else it is read and applied again. Updates of one record from this store go one
   * after another, so each reads what the previous one wrote.
   */
  const updateChains = new Map<string, Promise<unknown>>();
  const updateOnWriter = (id: string, owner: string, patch: SessionPatch): Promise<SessionRecord> => {
    const mine = (updateChains.get(id) ?? Promise.resolve()).then(() => updateOnce(id, owner, patch));
    const tail = mine.catch(() => undefined);
    updateChains.set(id, tail);
    void tail.then(() => {
      if (updateChains.get(id) === tail) updateChains.delete(id);
    });
    return mine;
  };
  const updateOnce = async (id: string, owner: string, patch: SessionPatch): Promise<SessionRecord> => {
    for (let attempt = 0; ; attempt++) {
      const current = read(() => sql.get.get(id) as Row | undefined);
      if (current === undefined) throw new SessionNotFoundError();
      const body = applyPatch(JSON.parse(current.body) as RecordBody, patch);
      if (closed) throw storeClosed();
      const at = now();
      let row: Row;
      try {
        row = await writer!.update({ id, owner, now: at, at: iso(at), state: body.state, body: bodyText(body), previous: current.body });
      } catch (err) {
        if (err instanceof WriteRefused && err.refusal.kind === "stale" && attempt < STALE_RETRIES) continue;
        throw writeFailure(err, 0);
      }
      return rowToRecord(row, at);
    }
  };
  /** Why `owner` may not write session `id` (called inside the write transaction). */
  const refusal = (id: string): Error => (sql.ownerOf.get(id) === undefined ? new SessionNotFoundError() : new LeaseLostError("the session's ownership was lost"));
  /** Stores contiguous encoded batches (one chunk each) as `owner` in one transaction, continuing the stored log exactly. */
  const appendBatches = async (id: string, owner: string, batches: readonly EncodedBatch[]): Promise<void> => {
    if (batches.length === 0) return;
    const first = batches[0]!.first;
    const last = batches[batches.length - 1]!.last;
    if (writer !== undefined) {
      if (closed) throw storeClosed();
      try {
        await writer.append({ id, owner, first, last, chunks: batches, now: now() });
      } catch (err) {
        throw writeFailure(err, first);
      }
      return;
    }
    write(() => {
      const at = now();
      if (sql.advance.run({ id, owner, now: at, first, last }).changes !== 1) {
        const found = sql.ownerOf.get(id) as { owner: string | null; owner_expires_at: number | null; last_seq: number } | undefined;
        if (found === undefined || found.owner !== owner || (found.owner_expires_at ?? 0) <= at) throw refusal(id);
        throw seqConflict(found.last_seq + 1, first);
      }
      for (const batch of batches) chunks.append(id, batch);
    }, eventSync);
  };

  const store: SqliteSessionStore & EncodedAppendStore = {
    path,
    get schemaVersion() {
      return schemaVersion;
    },

    async create(input: NewSessionRecord): Promise<SessionRecord> {
      const body = checkNewSession(input);
      return write(() => {
        const at = now();
        const row = sql.insert.get({ id: body.id, state: body.state, body: bodyText(body), at: iso(at) }) as Row | undefined;
        if (row === undefined) throw new SessionExistsError();
        return rowToRecord(row, at);
      });
    },

    async get(id: string): Promise<SessionRecord | undefined> {
      return read(() => {
        const row = sql.get.get(id) as Row | undefined;
        return row === undefined ? undefined : rowToRecord(row, now());
      });
    },

    async list(listOptions?: { limit?: number; state?: SessionState }): Promise<SessionRecord[]> {
      const { limit, state } = checkListOptions(listOptions);
      return read(() => {
        const rows = (state === undefined ? sql.listAll.all(limit) : sql.listState.all(state, limit)) as Row[];
        const at = now();
        return rows.map((row) => rowToRecord(row, at));
      });
    },

    async delete(id: string): Promise<boolean> {
      return write(() => {
        chunks.dropAll(id);
        return sql.delete.run(id).changes === 1;
      });
    },

    async acquireOwner(id: string, owner: string, ttlMs: number): Promise<boolean> {
      checkOwner(owner);
      const ttl = checkTtl(ttlMs);
      return write(() => {
        // The clock is read under the write lock, after any wait for it.
        const at = now();
        if (sql.acquire.run({ id, owner, now: at, expires: at + ttl }).changes === 1) return true;
        if (sql.ownerOf.get(id) === undefined) throw new SessionNotFoundError();
        return false;
      });
    },

    async renewOwner(id: string, owner: string, ttlMs: number): Promise<boolean> {
      const ttl = checkTtl(ttlMs);
      return write(() => {
        const at = now();
        return sql.renew.run({ id, owner, now: at, expires: at + ttl }).changes === 1;
      });
    },

    async releaseOwner(id: string, owner: string): Promise<void> {
      write(() => sql.release.run(id, owner));
    },

    async update(id: string, owner: string, patch: SessionPatch): Promise<SessionRecord> {
      if (writer !== undefined) return updateOnWriter(id, owner, patch);
      return write(() => {
        const current = sql.get.get(id) as Row | undefined;
        if (current === undefined) throw new SessionNotFoundError();
        const body = applyPatch(JSON.parse(current.body) as RecordBody, patch);
        const at = now();
        const row = sql.update.get({ id, owner, now: at, at: iso(at), state: body.state, body: bodyText(body) }) as Row | undefined;
        if (row === undefined) throw refusal(id);
        return rowToRecord(row, at);
      });
    },

    async appendEvents(id: string, owner: string, events: readonly SessionEvent[]): Promise<void> {
      checkEventShape(id, events);
      if (events.length > 0) return appendBatches(id, owner, [encodeBatch(events)]);
      write(() => {
        const found = sql.ownerOf.get(id) as { owner: string | null; owner_expires_at: number | null } | undefined;
        if (found === undefined || found.owner !== owner || (found.owner_expires_at ?? 0) <= now()) throw refusal(id);
      }, eventSync);
    },

    [appendEncoded]: (id: string, owner: string, batches: readonly EncodedBatch[]): Promise<void> => appendBatches(id, owner, batches),

    async readEvents(id: string, readOptions: { after: number; limit?: number }): Promise<SessionEvent[]> {
      const { after, limit } = checkReadOptions(readOptions);
      return read(() => chunks.read(id, after, limit));
    },

    async lastSeq(id: string): Promise<number> {
      return read(() => (sql.lastSeq.get(id) as number | undefined) ?? 0);
    },

    async trimEvents(id: string, retention: { maxEvents?: number; maxAgeMs?: number }): Promise<number> {
      const { maxEvents, maxAgeMs } = checkRetention(retention);
      return write(() => {
        let dropped = 0;
        const last = sql.lastSeq.get(id) as number | undefined;
        if (last === undefined) return 0;
        if (maxEvents !== undefined) dropped += chunks.dropThrough(id, last - maxEvents);
        if (maxAgeMs !== undefined) dropped += chunks.dropOlderThan(id, now() - maxAgeMs);
        return dropped;
      }, eventSync);
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await writer?.close();
      if (own) db.close();
    },
  };
  return store;
}
