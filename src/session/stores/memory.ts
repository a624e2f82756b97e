/**
 * The in-memory session store: the default. Records and event logs live in this process only and
 * are gone when it exits. Records are copied on the way in and out, and events are kept as JSON
 * text, so every read returns a fresh value and a host mutating what it passed changes nothing.
 */
import { LeaseLostError, SessionExistsError, SessionNotFoundError } from "../../errors/index.js";
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
  compareNewestFirst,
  seqConflict,
  storeClosed,
  toEvent,
  toRecord,
  type RecordBody,
  type StoredEvent,
} from "./common.js";

export interface MemorySessionStoreOptions {
  /** The store's clock in epoch milliseconds (default `Date.now`); ownership expires on it. */
  now?: () => number;
}

interface Entry {
  body: RecordBody;
  owner?: { id: string; expiresAt: number };
  createdAt: string;
  updatedAt: string;
  /** Stored events from index `head`, ascending and contiguous. */
  events: StoredEvent[];
  head: number;
  lastSeq: number;
}

/** The first index in `events[head…]` whose seq is above `after`. */
function firstAfter(entry: Entry, after: number): number {
  let lo = entry.head;
  let hi = entry.events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entry.events[mid]!.seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Drops the events before index `to`, compacting the array once the dropped part dominates. */
function dropBefore(entry: Entry, to: number): number {
  const dropped = to - entry.head;
  entry.head = to;
  if (entry.head > 1024 && entry.head * 2 > entry.events.length) {
    entry.events = entry.events.slice(entry.head);
    entry.head = 0;
  }
  return dropped;
}

/** A `SessionStore` kept in this process's memory. */
// long-function: the SessionStore port's methods over one shared map; each method is short
export function memorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let closed = false;

  const open = (): void => {
    if (closed) throw storeClosed();
  };
  const snapshot = (entry: Entry): SessionRecord =>
    toRecord(structuredClone(entry.body), {
      owner: entry.owner?.id,
      ownerExpiresAt: entry.owner?.expiresAt,
      now: now(),
      createdAt: entry.createdAt,
      updatedAt: entry.updatedAt,
    });
  // ISO timestamps that never go backwards within this store, even if the clock does.
  let lastStamp = 0;
  const stamp = (): string => {
    lastStamp = Math.max(lastStamp, now());
    return new Date(lastStamp).toISOString();
  };
  const holds = (entry: Entry, owner: string): boolean => entry.owner?.id === owner && entry.owner.expiresAt > now();
  /** The entry `owner` may write, or the typed refusal. */
  const owned = (id: string, owner: string): Entry => {
    const entry = entries.get(id);
    if (entry === undefined) throw new SessionNotFoundError();
    if (!holds(entry, owner)) throw new LeaseLostError("the session's ownership was lost");
    return entry;
  };

  return {
    async create(input: NewSessionRecord): Promise<SessionRecord> {
      open();
      const body = checkNewSession(input);
      if (entries.has(body.id)) throw new SessionExistsError();
      const at = stamp();
      const entry: Entry = { body, createdAt: at, updatedAt: at, events: [], head: 0, lastSeq: 0 };
      entries.set(body.id, entry);
      return snapshot(entry);
    },

    async get(id: string): Promise<SessionRecord | undefined> {
      open();
      const entry = entries.get(id);
      return entry === undefined ? undefined : snapshot(entry);
    },

    async list(listOptions?: { limit?: number; state?: SessionState }): Promise<SessionRecord[]> {
      open();
      const { limit, state } = checkListOptions(listOptions);
      return [...entries.values()]
        .filter((entry) => state === undefined || entry.body.state === state)
        .map(snapshot)
        .sort(compareNewestFirst)
        .slice(0, limit);
    },

    async delete(id: string): Promise<boolean> {
      open();
      return entries.delete(id);
    },

    async acquireOwner(id: string, owner: string, ttlMs: number): Promise<boolean> {
      open();
      checkOwner(owner);
      const ttl = checkTtl(ttlMs);
      const entry = entries.get(id);
      if (entry === undefined) throw new SessionNotFoundError();
      const at = now();
      if (entry.owner !== undefined && entry.owner.expiresAt > at && entry.owner.id !== owner) return false;
      entry.owner = { id: owner, expiresAt: at + ttl };
      return true;
    },

    async renewOwner(id: string, owner: string, ttlMs: number): Promise<boolean> {
      open();
      const ttl = checkTtl(ttlMs);
      const entry = entries.get(id);
      if (entry === undefined || !holds(entry, owner)) return false;
      entry.owner = { id: owner, expiresAt: now() + ttl };
      return true;
    },

    async releaseOwner(id: string, owner: string): Promise<void> {
      open();
      const entry = entries.get(id);
      if (entry?.owner?.id === owner) delete entry.owner;
    },

    async update(id: string, owner: string, patch: SessionPatch): Promise<SessionRecord> {
      open();
      const entry = owned(id, owner);
      entry.body = applyPatch(entry.body, patch);
      entry.updatedAt = stamp();
      return snapshot(entry);
    },

    async appendEvents(id: string, owner: string, events: readonly SessionEvent[]): Promise<void> {
      open();
      const stored = checkEvents(id, events);
      const entry = owned(id, owner);
      if (stored.length === 0) return;
      if (stored[0]!.seq !== entry.lastSeq + 1) throw seqConflict(entry.lastSeq + 1, stored[0]!.seq);
      for (const event of stored) entry.events.push(event);
      entry.lastSeq = stored[stored.length - 1]!.seq;
    },

    async readEvents(id: string, readOptions: { after: number; limit?: number }): Promise<SessionEvent[]> {
      open();
      const { after, limit } = checkReadOptions(readOptions);
      const entry = entries.get(id);
      if (entry === undefined) return [];
      const from = firstAfter(entry, after);
      return entry.events.slice(from, from + limit).map((event) => toEvent(id, event.seq, event.at, event.json));
    },

    async lastSeq(id: string): Promise<number> {
      open();
      return entries.get(id)?.lastSeq ?? 0;
    },

    async trimEvents(id: string, retention: { maxEvents?: number; maxAgeMs?: number }): Promise<number> {
      open();
      const { maxEvents, maxAgeMs } = checkRetention(retention);
      const entry = entries.get(id);
      if (entry === undefined) return 0;
      let to = entry.head;
      if (maxEvents !== undefined) to = Math.max(to, firstAfter(entry, entry.lastSeq - maxEvents));
      if (maxAgeMs !== undefined) {
        const cutoff = now() - maxAgeMs;
        while (to < entry.events.length && entry.events[to]!.at < cutoff) to += 1;
      }
      return dropBefore(entry, to);
    },

    async close(): Promise<void> {
      closed = true;
    },
  };
}
