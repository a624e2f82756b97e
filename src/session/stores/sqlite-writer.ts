/**
 * The SQLite session store's event writer on a worker thread. better-sqlite3 is synchronous, so
 * an insert, a commit and — every few MB — a WAL checkpoint with its fsyncs would otherwise stop
 * the event loop, and with it every run and subscriber of the process. The worker holds its own
 * connection to the same file and runs each append's ownership check, contiguity check and insert
 * in one `BEGIN IMMEDIATE` transaction, exactly as the inline path does; the caller serializes
 * the batch (one JSON text) and awaits the commit.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** One append as the worker takes it. */
export interface ChunkWrite {
  id: string;
  owner: string;
  first: number;
  last: number;
  maxAt: number;
  body: string;
  now: number;
}

/** Why the worker refused an append, for the caller to type. */
export type WriteRefusal =
  | { kind: "not_found" }
  | { kind: "lease_lost" }
  | { kind: "seq_conflict"; lastSeq: number }
  | { kind: "sqlite"; code: string | undefined; message: string };

export interface SqliteEventWriter {
  /** Resolves once the batch is committed; rejects with the refusal. */
  append(write: ChunkWrite): Promise<void>;
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
db.pragma("synchronous = " + workerData.synchronous);
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
  insert.run(w.id, w.first, w.last, w.maxAt, w.body);
  return undefined;
});
parentPort.on("message", (message) => {
  if (message.close) {
    db.close();
    parentPort.postMessage({ rid: message.rid });
    return;
  }
  let refusal;
  try {
    refusal = append.immediate(message.write);
  } catch (error) {
    refusal = { kind: "sqlite", code: error && typeof error.code === "string" ? error.code : undefined, message: String(error && error.message) };
  }
  parentPort.postMessage({ rid: message.rid, refusal });
});
`;

/** Starts the writer for the database file at `path` (already migrated by the store). */
export function startSqliteEventWriter(path: string, busyTimeoutMs: number, synchronous: "FULL" | "NORMAL"): SqliteEventWriter {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, path, busyTimeoutMs: Math.max(0, Math.floor(busyTimeoutMs)), synchronous },
  });
  // A host that never closes the store is not kept alive by it.
  worker.unref();
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let next = 0;
  let failed: Error | undefined;
  const failAll = (error: Error): void => {
    failed = error;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  worker.on("message", (message: { rid: number; refusal?: WriteRefusal }) => {
    const waiter = pending.get(message.rid);
    pending.delete(message.rid);
    if (message.refusal === undefined) waiter?.resolve();
    else waiter?.reject(new WriteRefused(message.refusal));
  });
  worker.on("error", (error) => failAll(new WriteRefused({ kind: "sqlite", code: (error as { code?: string }).code, message: error.message })));
  worker.on("exit", () => failAll(new WriteRefused({ kind: "sqlite", code: undefined, message: "the event writer stopped" })));

  const send = (message: Record<string, unknown>): Promise<void> =>
    new Promise<void>((resolve, reject) => {
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
    append: (write) => send({ write }),
    close() {
      closing ??= send({ close: true })
        .catch(() => undefined)
        .then(() => worker.terminate())
        .then(() => undefined);
      return closing;
    },
  };
}
