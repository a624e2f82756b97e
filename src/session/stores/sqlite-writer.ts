/**
 * The SQLite session store's writer on a worker thread. better-sqlite3 is synchronous, so an
 * insert, a commit with its fsync and — every few MB — a WAL checkpoint would otherwise stop the
 * event loop, and with it every run and subscriber of the process. The worker holds its own
 * connection to the same file and runs each event append's ownership check, contiguity check and
 * inserts in one `BEGIN IMMEDIATE` transaction, exactly as the inline path does (the caller
 * encodes the batches, one compact JSON text each, and awaits the commit); and each record update — the
 * write a session makes several times per run, committed with a full fsync — as one conditional
 * UPDATE on the body the caller read, so the caller's patch applies to what it saw or is retried.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** One append as the worker takes it: contiguous chunks `first … last`, committed together. */
export interface ChunkWrite {
  id: string;
  owner: string;
  first: number;
  last: number;
  chunks: readonly { first: number; last: number; maxAt: number; body: string }[];
  now: number;
}

/** One record update as the worker takes it: applied only while the stored body is still `previous`. */
export interface RecordWrite {
  id: string;
  owner: string;
  now: number;
  /** `updated_at` to set (ISO), unless the stored one is newer. */
  at: string;
  state: string;
  body: string;
  previous: string;
}

/** The updated row, as the store's statements return it. */
export interface RecordRow {
  id: string;
  state: string;
  body: string;
  owner: string | null;
  owner_expires_at: number | null;
  created_at: string;
  updated_at: string;
}

/** Why the worker refused a write, for the caller to type (`stale`: the body changed since it was read). */
export type WriteRefusal =
  | { kind: "not_found" }
  | { kind: "lease_lost" }
  | { kind: "stale" }
  | { kind: "seq_conflict"; lastSeq: number }
  | { kind: "sqlite"; code: string | undefined; message: string };

export interface SqliteEventWriter {
  /** Resolves once the batch is committed; rejects with the refusal. */
  append(write: ChunkWrite): Promise<void>;
  /** Resolves with the updated row once committed (record durability); rejects with the refusal. */
  update(write: RecordWrite): Promise<RecordRow>;
  /** Finishes the appends already sent, then stops the worker. */
  close(): Promise<void>;
}

/** Thrown by {@link SqliteEventWriter.append}: the caller turns it into the typed error. */
export class WriteRefused extends Error {
  constructor(readonly refusal: WriteRefusal) {
    super(refusal.kind);
  }
}

const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs });
db.pragma("busy_timeout = " + workerData.busyTimeoutMs);
// Event batches and record updates are committed with their own durability (see sqlite.ts).
let synchronous = "";
const durability = (level) => {
  if (level !== synchronous) db.pragma("synchronous = " + level);
  synchronous = level;
};
durability(workerData.synchronous);
const ownerOf = db.prepare("SELECT owner, owner_expires_at, last_seq FROM sessions WHERE id = ?");
const advance = db.prepare("UPDATE sessions SET last_seq = @last WHERE id = @id AND owner = @owner AND owner_expires_at > @now AND last_seq = @first - 1");
const insert = db.prepare("INSERT INTO session_events (session_id, first_seq, last_seq, max_at, body) VALUES (?, ?, ?, ?, ?)");
const append = db.transaction((w) => {
  if (advance.run({ id: w.id, owner: w.owner, now: w.now, first: w.first, last: w.last }).changes !== 1) {
    const found = ownerOf.get(w.id);
    if (found === undefined) return { kind: "not_found" };
    if (found.owner !== w.owner || (found.owner_expires_at ?? 0) <= w.now) return { kind: "lease_lost" };
    return { kind: "seq_conflict", lastSeq: found.last_seq };
  }
  for (const c of w.chunks) insert.run(w.id, c.first, c.last, c.maxAt, c.body);
  return undefined;
});
const update = db.prepare("UPDATE sessions SET state = @state, body = @body, updated_at = max(@at, updated_at) WHERE id = @id AND owner = @owner AND owner_expires_at > @now AND body = @previous RETURNING id, state, body, owner, owner_expires_at, created_at, updated_at");
const patch = db.transaction((w) => {
  const row = update.get(w);
  if (row !== undefined) return { row };
  const found = ownerOf.get(w.id);
  if (found === undefined) return { refusal: { kind: "not_found" } };
  if (found.owner !== w.owner || (found.owner_expires_at ?? 0) <= w.now) return { refusal: { kind: "lease_lost" } };
  return { refusal: { kind: "stale" } };
});
parentPort.on("message", (message) => {
  if (message.close) {
    db.close();
    parentPort.postMessage({ rid: message.rid });
    return;
  }
  let answer;
  try {
    if (message.update !== undefined) {
      durability(workerData.recordSynchronous);
      answer = patch.immediate(message.update);
    } else {
      durability(workerData.synchronous);
      answer = { refusal: append.immediate(message.write) };
    }
  } catch (error) {
    answer = { refusal: { kind: "sqlite", code: error && typeof error.code === "string" ? error.code : undefined, message: String(error && error.message) } };
  }
  parentPort.postMessage({ rid: message.rid, ...answer });
});
`;

/**
 * Starts the writer for the database file at `path` (already migrated by the store); event batches
 * are committed with `synchronous`, record updates with `recordSynchronous`.
 */
export function startSqliteEventWriter(
  path: string,
  busyTimeoutMs: number,
  synchronous: "FULL" | "NORMAL",
  recordSynchronous: "FULL" | "NORMAL",
): SqliteEventWriter {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, path, busyTimeoutMs: Math.max(0, Math.floor(busyTimeoutMs)), synchronous, recordSynchronous },
  });
  // A host that never closes the store is not kept alive by it.
  worker.unref();
  const pending = new Map<number, { resolve: (row: RecordRow | undefined) => void; reject: (error: Error) => void }>();
  let next = 0;
  let failed: Error | undefined;
  const failAll = (error: Error): void => {
    failed = error;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  worker.on("message", (message: { rid: number; refusal?: WriteRefusal; row?: RecordRow }) => {
    const waiter = pending.get(message.rid);
    pending.delete(message.rid);
    if (message.refusal === undefined) waiter?.resolve(message.row);
    else waiter?.reject(new WriteRefused(message.refusal));
  });
  worker.on("error", (error) => failAll(new WriteRefused({ kind: "sqlite", code: (error as { code?: string }).code, message: error.message })));
  worker.on("exit", () => failAll(new WriteRefused({ kind: "sqlite", code: undefined, message: "the event writer stopped" })));

  const send = (message: Record<string, unknown>): Promise<RecordRow | undefined> =>
    new Promise<RecordRow | undefined>((resolve, reject) => {
      if (failed !== undefined) {
        reject(failed);
        return;
      }
      const rid = next++;
      pending.set(rid, { resolve, reject });
      worker.postMessage({ ...message, rid });
    });

  let closing: Promise<void> | undefined;
  return {
    append: async (write) => {
      await send({ write });
    },
    update: async (write) => (await send({ update: write }))!,
    close() {
      closing ??= send({ close: true })
        .catch(() => undefined)
        .then(() => worker.terminate())
        .then(() => undefined);
      return closing;
    },
  };
}
