/**
 * The SQLite thread store (`better-sqlite3`): the embedded default for the CLI and the attach
 * server. One database file can be shared by several processes on one machine; every write runs
 * in a `BEGIN IMMEDIATE` transaction, so lease decisions are atomic across all of them.
 *
 * better-sqlite3 is synchronous; the store keeps the async `ThreadStore` interface (each method
 * does its work synchronously and settles its promise with the result). A write that has to wait
 * for another process's transaction blocks this process for at most `busyTimeoutMs`.
 *
 * Clock: lease expiry and timestamps use this process's clock (`Date.now`), which every process
 * on one machine shares.
 */
import { createRequire } from "node:module";

import type BetterSqlite3 from "better-sqlite3";

import { LeaseLostError, StoreError, ThreadBusyError, ThreadExistsError, ThreadNotFoundError } from "../../errors/index.js";
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
import { sqliteFailureOf } from "./sqlite-failure.js";

export interface SqliteThreadStoreOptions {
  /** How long a write waits for another connection's transaction before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * `"full"` (default): every commit is fsynced before it is acknowledged, so an acknowledged
   * checkpoint survives a crash of the process *and* of the machine (power loss, kernel panic).
   * `"normal"`: in WAL mode a commit is written to the WAL before it is acknowledged but fsynced
   * only at WAL checkpoints; acknowledged writes still survive the process being killed (the WAL
   * lives in the OS page cache), but the last ones may be lost if the machine goes down.
   */
  synchronous?: "full" | "normal";
  /** The store's clock in epoch milliseconds (default `Date.now`); leases expire on it. */
  now?: () => number;
}

export interface SqliteThreadStore extends ThreadStore {
  /** The database file (`":memory:"` for a private in-memory database). */
  readonly path: string;
  /** The schema version the database is at (`PRAGMA user_version`). */
  readonly schemaVersion: number;
}

/**
 * Forward migrations, in order; migration `i` takes the database from version `i` to `i + 1`
 * (`PRAGMA user_version`). Never edit a released entry: append a new one.
 */
const MIGRATIONS: readonly string[] = [
  // 1: the threads table.
  `CREATE TABLE threads (
     id                  TEXT PRIMARY KEY NOT NULL,
     driver              TEXT NOT NULL,
     fingerprint         TEXT NOT NULL,
     fingerprint_parts   TEXT NOT NULL,             -- JSON object of strings
     provider_session_id TEXT,
     workspace           TEXT NOT NULL,
     checkpoint          TEXT NOT NULL,             -- JSON ThreadCheckpoint
     metadata            TEXT NOT NULL,             -- JSON object of strings
     parent_id           TEXT,
     lease_owner         TEXT,
     lease_expires_at    INTEGER,                   -- epoch ms on the writers' clock
     created_at          TEXT NOT NULL,             -- ISO-8601, UTC
     updated_at          TEXT NOT NULL
   ) STRICT;
   CREATE INDEX threads_by_updated ON threads (updated_at DESC, id);
   CREATE INDEX threads_by_driver ON threads (driver, updated_at DESC, id);`,
  // 2: thread history, one row per ended run (deleted with its thread).
  `CREATE TABLE thread_turns (
     thread_id  TEXT NOT NULL,
     turn       INTEGER NOT NULL,               -- 1, 2, 3, … per thread
     run_id     TEXT NOT NULL,
     status     TEXT NOT NULL,
     body       TEXT NOT NULL,                  -- JSON NewHistoryTurn
     PRIMARY KEY (thread_id, turn)
   ) STRICT;`,
  // 3: each thread's provider state, the driver's opaque document (deleted with its thread).
  `CREATE TABLE thread_provider_state (
     thread_id  TEXT PRIMARY KEY NOT NULL,
     body       TEXT NOT NULL                   -- JSON text, opaque to the store
   ) STRICT;`,
];

/** The schema version this code writes. */
export const SQLITE_THREAD_SCHEMA_VERSION = MIGRATIONS.length;

interface Row {
  id: string;
  driver: string;
  fingerprint: string;
  fingerprint_parts: string;
  provider_session_id: string | null;
  workspace: string;
  checkpoint: string;
  metadata: string;
  parent_id: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: string;
  updated_at: string;
}

function toRecord(row: Row, now: number): ThreadRecord {
  const record: ThreadRecord = {
    id: row.id,
    driver: row.driver,
    fingerprint: row.fingerprint,
    fingerprintParts: JSON.parse(row.fingerprint_parts) as Record<string, string>,
    workspace: row.workspace,
    checkpoint: JSON.parse(row.checkpoint) as ThreadCheckpoint,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.provider_session_id !== null) record.providerSessionId = row.provider_session_id;
  if (row.parent_id !== null) record.parentId = row.parent_id;
  if (row.lease_owner !== null && row.lease_expires_at !== null && row.lease_expires_at > now) {
    record.lease = { owner: row.lease_owner, expiresAt: row.lease_expires_at };
  }
  return record;
}

let loaded: typeof BetterSqlite3 | undefined;
/** better-sqlite3 is a native module: load it only when a SQLite store is actually opened. */
function loadDriver(): typeof BetterSqlite3 {
  loaded ??= createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
  return loaded;
}

/** What SQLite threw, as the typed failure naming the thread database. */
const storeFailure = sqliteFailureOf("thread");

/** Brings the schema up to date. Safe when several processes open a new database at once. */
function migrate(db: BetterSqlite3.Database): number {
  const version = (): number => db.pragma("user_version", { simple: true }) as number;
  const check = (at: number): void => {
    if (at > MIGRATIONS.length) {
      throw new StoreError(
        "store_schema_newer",
        `the thread database is at schema version ${at}, newer than this version of agent-adaptor understands (${MIGRATIONS.length})`,
      );
    }
  };
  const seen = version();
  check(seen);
  if (seen === MIGRATIONS.length) return seen;
  db.transaction(() => {
    // Re-read under the write lock: another process may have migrated meanwhile.
    let at = version();
    check(at);
    for (; at < MIGRATIONS.length; at++) db.exec(MIGRATIONS[at]!);
    db.pragma(`user_version = ${at}`);
  }).immediate();
  return version();
}

/** Open (creating and migrating when needed) a SQLite thread store at `path`. */
// long-function: the ThreadStore port's methods over one open database and its prepared statements; each method is short
export function sqliteThreadStore(path: string, options: SqliteThreadStoreOptions = {}): SqliteThreadStore {
  const now = options.now ?? Date.now;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const Database = loadDriver();
  let db: BetterSqlite3.Database;
  try {
    db = new Database(path, { timeout: busyTimeoutMs });
  } catch (err) {
    throw storeFailure(err, path, busyTimeoutMs);
  }
  let schemaVersion: number;
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    // WAL: readers never block the writer and the writer never blocks readers; several
    // processes on one machine share the file safely (WAL needs shared memory, so not over a
    // network file system).
    db.pragma("journal_mode = WAL");
    // Durability. In WAL mode a transaction is committed once its frames (ending with a commit
    // frame) are in the WAL file. With synchronous=NORMAL those frames are written — into the
    // OS page cache — before the commit returns, so a `kill -9` right after an acknowledged
    // checkpoint cannot lose it: the kernel still holds the write and the next opener replays
    // the WAL. Only a machine crash could lose it. synchronous=FULL additionally fsyncs the WAL
    // at every commit, so an acknowledged checkpoint also survives power loss. FULL is the
    // default because checkpoints are few (one per turn) and losing one after acknowledging it
    // would let a resumed thread repeat a delivered turn.
    db.pragma(`synchronous = ${options.synchronous === "normal" ? "NORMAL" : "FULL"}`);
    schemaVersion = migrate(db);
  } catch (err) {
    db.close();
    throw storeFailure(err, path, busyTimeoutMs);
  }

  const columns = `id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata,
    parent_id, lease_owner, lease_expires_at, created_at, updated_at`;
  const sql = {
    insert: db.prepare(
      `INSERT INTO threads (id, driver, fingerprint, fingerprint_parts, provider_session_id, workspace, checkpoint, metadata,
         parent_id, created_at, updated_at)
       VALUES (@id, @driver, @fingerprint, @fingerprintParts, @providerSessionId, @workspace, @checkpoint, @metadata,
         @parentId, @at, @at)
       ON CONFLICT (id) DO NOTHING
       RETURNING ${columns}`,
    ),
    get: db.prepare(`SELECT ${columns} FROM threads WHERE id = ?`),
    exists: db.prepare(`SELECT 1 FROM threads WHERE id = ?`).pluck(),
    listAll: db.prepare(`SELECT ${columns} FROM threads ORDER BY updated_at DESC, id LIMIT ?`),
    listDriver: db.prepare(`SELECT ${columns} FROM threads WHERE driver = ? ORDER BY updated_at DESC, id LIMIT ?`),
    delete: db.prepare(`DELETE FROM threads WHERE id = ? AND (lease_owner IS NULL OR lease_expires_at <= ?)`),
    deleteTurns: db.prepare(`DELETE FROM thread_turns WHERE thread_id = ?`),
    deleteState: db.prepare(`DELETE FROM thread_provider_state WHERE thread_id = ?`),
    loadState: db.prepare(`SELECT body FROM thread_provider_state WHERE thread_id = ?`).pluck(),
    saveState: db.prepare(
      `INSERT INTO thread_provider_state (thread_id, body) VALUES (?, ?)
       ON CONFLICT (thread_id) DO UPDATE SET body = excluded.body`,
    ),
    holds: db.prepare(`SELECT 1 FROM threads WHERE id = ? AND lease_owner = ? AND lease_expires_at > ?`).pluck(),
    appendTurn: db.prepare(
      `INSERT INTO thread_turns (thread_id, turn, run_id, status, body)
       SELECT @id, COALESCE(MAX(turn), 0) + 1, @runId, @status, @body FROM thread_turns WHERE thread_id = @id
       RETURNING turn`,
    ).pluck(),
    historyFrom: db.prepare(`SELECT turn, body FROM thread_turns WHERE thread_id = ? AND turn < ? ORDER BY turn DESC LIMIT ?`),
    acquire: db.prepare(
      `UPDATE threads SET lease_owner = @owner, lease_expires_at = @expires
       WHERE id = @id AND (lease_owner IS NULL OR lease_expires_at <= @now OR lease_owner = @owner)`,
    ),
    renew: db.prepare(
      `UPDATE threads SET lease_expires_at = @expires
       WHERE id = @id AND lease_owner = @owner AND lease_expires_at > @now`,
    ),
    release: db.prepare(`UPDATE threads SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?`),
    checkpoint: db.prepare(
      `UPDATE threads SET checkpoint = @checkpoint,
         provider_session_id = COALESCE(@providerSessionId, provider_session_id),
         updated_at = max(@at, updated_at)
       WHERE id = @id AND lease_owner = @owner AND lease_expires_at > @now
       RETURNING ${columns}`,
    ),
  };

  let closed = false;
  const transaction = db.transaction((body: () => unknown) => body());
  /** Runs `body` in a BEGIN IMMEDIATE transaction (the write lock is taken up front). */
  const write = <T>(body: () => T): T => {
    if (closed) throw storeClosed();
    try {
      return transaction.immediate(body) as T;
    } catch (err) {
      throw storeFailure(err, path, busyTimeoutMs);
    }
  };
  const read = <T>(body: () => T): T => {
    if (closed) throw storeClosed();
    try {
      return body();
    } catch (err) {
      throw storeFailure(err, path, busyTimeoutMs);
    }
  };
  const iso = (ms: number): string => new Date(ms).toISOString();

  return {
    path,
    get schemaVersion() {
      return schemaVersion;
    },

    async create(input: NewThreadRecord): Promise<ThreadRecord> {
      const fields = checkNewRecord(input);
      return write(() => {
        const at = now();
        const row = sql.insert.get({
          id: fields.id,
          driver: fields.driver,
          fingerprint: fields.fingerprint,
          fingerprintParts: JSON.stringify(fields.fingerprintParts),
          providerSessionId: fields.providerSessionId ?? null,
          workspace: fields.workspace,
          checkpoint: JSON.stringify(fields.checkpoint),
          metadata: JSON.stringify(fields.metadata),
          parentId: fields.parentId ?? null,
          at: iso(at),
        }) as Row | undefined;
        if (row === undefined) throw new ThreadExistsError();
        return toRecord(row, at);
      });
    },

    async get(id: string): Promise<ThreadRecord | undefined> {
      return read(() => {
        const row = sql.get.get(id) as Row | undefined;
        return row === undefined ? undefined : toRecord(row, now());
      });
    },

    async list(listOptions: ThreadListOptions = {}): Promise<ThreadRecord[]> {
      const limit = checkLimit(listOptions.limit);
      return read(() => {
        const rows = (
          listOptions.driver === undefined ? sql.listAll.all(limit) : sql.listDriver.all(listOptions.driver, limit)
        ) as Row[];
        const at = now();
        return rows.map((row) => toRecord(row, at));
      });
    },

    async delete(id: string): Promise<boolean> {
      return write(() => {
        if (sql.delete.run(id, now()).changes === 1) {
          sql.deleteTurns.run(id);
          sql.deleteState.run(id);
          return true;
        }
        if (sql.exists.get(id) === undefined) return false;
        throw new ThreadBusyError();
      });
    },

    async acquireLease(id: string, owner: string, ttlMs: number): Promise<ThreadLease | undefined> {
      checkOwner(owner);
      const ttl = checkTtl(ttlMs);
      return write(() => {
        // The clock is read under the write lock, after any wait for it.
        const at = now();
        const expires = at + ttl;
        if (sql.acquire.run({ id, owner, now: at, expires }).changes === 1) return { owner, expiresAt: expires };
        if (sql.exists.get(id) === undefined) throw new ThreadNotFoundError();
        return undefined;
      });
    },

    async renewLease(id: string, owner: string, ttlMs: number): Promise<boolean> {
      const ttl = checkTtl(ttlMs);
      return write(() => {
        const at = now();
        return sql.renew.run({ id, owner, now: at, expires: at + ttl }).changes === 1;
      });
    },

    async releaseLease(id: string, owner: string): Promise<void> {
      write(() => sql.release.run(id, owner));
    },

    async saveCheckpoint(
      id: string,
      owner: string,
      update: { providerSessionId?: string; checkpoint: ThreadCheckpoint },
    ): Promise<ThreadRecord> {
      const { checkpoint, providerSessionId } = checkUpdate(update);
      return write(() => {
        const at = now();
        const row = sql.checkpoint.get({
          id,
          owner,
          now: at,
          at: iso(at),
          checkpoint: JSON.stringify(checkpoint),
          providerSessionId: providerSessionId ?? null,
        }) as Row | undefined;
        if (row !== undefined) return toRecord(row, at);
        if (sql.exists.get(id) === undefined) throw new ThreadNotFoundError();
        throw new LeaseLostError();
      });
    },

    async appendTurn(id: string, owner: string, input: NewHistoryTurn): Promise<HistoryTurn> {
      const body = checkNewTurn(input);
      const text = turnBody(body);
      return write(() => {
        if (sql.holds.get(id, owner, now()) === undefined) {
          if (sql.exists.get(id) === undefined) throw new ThreadNotFoundError();
          throw new LeaseLostError();
        }
        const turn = sql.appendTurn.get({ id, runId: body.runId, status: body.status, body: text }) as number;
        return turnFromBody(turn, body);
      });
    },

    async history(id: string, historyOptions?: HistoryOptions): Promise<HistoryPage> {
      const { before, limit } = checkHistoryOptions(historyOptions);
      return read(() => {
        const rows = sql.historyFrom.all(id, before ?? Number.MAX_SAFE_INTEGER, limit + 1) as { turn: number; body: string }[];
        return historyPage(rows.map((row) => turnFromBody(row.turn, row.body)), limit);
      });
    },

    async loadProviderState(id: string): Promise<string | undefined> {
      return read(() => (sql.loadState.get(id) as string | undefined) ?? undefined);
    },

    async saveProviderState(id: string, owner: string, state: string): Promise<void> {
      const text = checkProviderState(state);
      write(() => {
        if (sql.holds.get(id, owner, now()) === undefined) {
          if (sql.exists.get(id) === undefined) throw new ThreadNotFoundError();
          throw new LeaseLostError();
        }
        sql.saveState.run(id, text);
      });
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
