/**
 * A session's event log in SQLite, stored as chunks: one row per appended batch (its first and
 * last seq, its newest `at`, and the batch in the compact JSON form of event-runs.ts), so a busy run's
 * thousands of events per second cost one insert per batch instead of one per event — SQLite is
 * synchronous and every microsecond it takes is the event loop's. Reads and trims work on whole
 * chunks and rewrite at most the one chunk a trim cuts through, so what callers see is per event.
 */
import type BetterSqlite3 from "better-sqlite3";

import type { SessionEvent } from "../types.js";
import { decodeBody, encodeEntries, type EncodedBatch, type Entry } from "../event-runs.js";

/** The chunks table (part of the first session migration). */
export const EVENT_CHUNKS_TABLE = `CREATE TABLE session_events (
     session_id TEXT NOT NULL,
     first_seq  INTEGER NOT NULL,
     last_seq   INTEGER NOT NULL,
     max_at     INTEGER NOT NULL,                -- the newest at of the chunk (age trimming)
     body       TEXT NOT NULL,                   -- JSON array of [at, event] and runs (event-runs.ts)
     PRIMARY KEY (session_id, first_seq)
   ) STRICT, WITHOUT ROWID;`;

interface Chunk {
  first_seq: number;
  last_seq: number;
  max_at: number;
  body: string;
}

export interface EventChunks {
  /** Stores the batch as one chunk. Call inside the write transaction. */
  append(id: string, batch: EncodedBatch): void;
  /** Events with `seq > after`, ascending, at most `limit`. */
  read(id: string, after: number, limit: number): SessionEvent[];
  /** Drops events with `seq <= cut`; returns how many. Call inside a write transaction. */
  dropThrough(id: string, cut: number): number;
  /** Drops the oldest events while they are older than `cutoff`; returns how many. Call inside a write transaction. */
  dropOlderThan(id: string, cutoff: number): number;
  /** Drops the whole log of `id`. */
  dropAll(id: string): void;
}

// long-function: the chunk operations over one database's prepared statements; each is short
export function eventChunks(db: BetterSqlite3.Database): EventChunks {
  const sql = {
    insert: db.prepare(`INSERT INTO session_events (session_id, first_seq, last_seq, max_at, body) VALUES (?, ?, ?, ?, ?)`),
    // Starts at the chunk holding `after + 1` through the primary key, not by scanning the log.
    from: db.prepare(
      `SELECT first_seq, last_seq, max_at, body FROM session_events
       WHERE session_id = @id AND last_seq > @after AND first_seq >= coalesce(
         (SELECT first_seq FROM session_events WHERE session_id = @id AND first_seq <= @after + 1 ORDER BY first_seq DESC LIMIT 1), 0)
       ORDER BY first_seq`,
    ),
    firstYoung: db.prepare(
      `SELECT first_seq, last_seq, max_at, body FROM session_events WHERE session_id = ? AND max_at >= ? ORDER BY first_seq LIMIT 1`,
    ),
    countBefore: db.prepare(`SELECT coalesce(sum(last_seq - first_seq + 1), 0) FROM session_events WHERE session_id = ? AND first_seq < ?`).pluck(),
    dropBefore: db.prepare(`DELETE FROM session_events WHERE session_id = ? AND first_seq < ?`),
    dropWhole: db.prepare(`DELETE FROM session_events WHERE session_id = ? AND last_seq <= ?`),
    countWhole: db.prepare(`SELECT coalesce(sum(last_seq - first_seq + 1), 0) FROM session_events WHERE session_id = ? AND last_seq <= ?`).pluck(),
    dropOne: db.prepare(`DELETE FROM session_events WHERE session_id = ? AND first_seq = ?`),
    dropAll: db.prepare(`DELETE FROM session_events WHERE session_id = ?`),
  };
  const entries = (chunk: Chunk): Entry[] => decodeBody(chunk.body);
  /** Replaces `chunk` by its events from index `from` on (none: just deleted). */
  const keepFrom = (id: string, chunk: Chunk, all: Entry[], from: number): void => {
    sql.dropOne.run(id, chunk.first_seq);
    const rest = all.slice(from);
    if (rest.length === 0) return;
    const kept = encodeEntries(chunk.first_seq + from, rest);
    sql.insert.run(id, kept.first, kept.last, kept.maxAt, kept.body);
  };

  return {
    append(id, batch) {
      sql.insert.run(id, batch.first, batch.last, batch.maxAt, batch.body);
    },

    read(id, after, limit) {
      const out: SessionEvent[] = [];
      for (const chunk of sql.from.iterate({ id, after }) as IterableIterator<Chunk>) {
        const all = entries(chunk);
        for (let i = Math.max(0, after - chunk.first_seq + 1); i < all.length && out.length < limit; i++) {
          out.push({ seq: chunk.first_seq + i, sessionId: id, at: all[i]![0], event: all[i]![1] });
        }
        if (out.length >= limit) break;
      }
      return out;
    },

    dropThrough(id, cut) {
      let dropped = Number(sql.countWhole.get(id, cut));
      sql.dropWhole.run(id, cut);
      const straddling = sql.from.get({ id, after: cut }) as Chunk | undefined;
      if (straddling !== undefined && straddling.first_seq <= cut) {
        const keep = cut - straddling.first_seq + 1;
        keepFrom(id, straddling, entries(straddling), keep);
        dropped += keep;
      }
      return dropped;
    },

    dropOlderThan(id, cutoff) {
      // Whole chunks before the first one holding an event young enough, then that one's old head.
      const young = sql.firstYoung.get(id, cutoff) as Chunk | undefined;
      const bound = young?.first_seq ?? Number.MAX_SAFE_INTEGER;
      let dropped = Number(sql.countBefore.get(id, bound));
      sql.dropBefore.run(id, bound);
      if (young !== undefined) {
        const all = entries(young);
        const first = all.findIndex(([at]) => at >= cutoff);
        if (first > 0) {
          keepFrom(id, young, all, first);
          dropped += first;
        }
      }
      return dropped;
    },

    dropAll(id) {
      sql.dropAll.run(id);
    },
  };
}
