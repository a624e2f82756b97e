/**
 * The in-memory thread store: the library default. Records live in this process only and are
 * gone when it exits; leases arbitrate between runs of this process. Records are copied on the
 * way in and on the way out, so a host mutating what it passed or got back never changes the
 * store.
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
  compareNewestFirst,
  historyPage,
  storeClosed,
  turnFromBody,
} from "./common.js";

export interface MemoryThreadStoreOptions {
  /** The store's clock in epoch milliseconds (default `Date.now`); leases expire on it. */
  now?: () => number;
}

interface Entry {
  record: Omit<ThreadRecord, "lease">;
  lease: ThreadLease | undefined;
  /** The thread's history, oldest first; kept as checked JSON-shaped copies. */
  turns: HistoryTurn[];
  /** The driver's provider state (JSON text), once saved. */
  state?: string;
}

/** A `ThreadStore` kept in this process's memory. */
// long-function: the ThreadStore port's methods over one shared map; each method is short
export function memoryThreadStore(options: MemoryThreadStoreOptions = {}): ThreadStore {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let closed = false;

  const open = (): void => {
    if (closed) throw storeClosed();
  };
  const live = (entry: Entry, at: number): ThreadLease | undefined =>
    entry.lease !== undefined && entry.lease.expiresAt > at ? entry.lease : undefined;
  const snapshot = (entry: Entry): ThreadRecord => {
    const record: ThreadRecord = structuredClone(entry.record);
    const lease = live(entry, now());
    if (lease) record.lease = { ...lease };
    return record;
  };
  // ISO timestamps that never go backwards within this store, even if the clock does.
  let lastStamp = 0;
  const stamp = (): string => {
    lastStamp = Math.max(lastStamp, now());
    return new Date(lastStamp).toISOString();
  };

  return {
    async create(input: NewThreadRecord): Promise<ThreadRecord> {
      open();
      const fields = checkNewRecord(input);
      if (entries.has(fields.id)) throw new ThreadExistsError();
      const at = stamp();
      const record: Omit<ThreadRecord, "lease"> = {
        id: fields.id,
        driver: fields.driver,
        fingerprint: fields.fingerprint,
        fingerprintParts: fields.fingerprintParts,
        workspace: fields.workspace,
        checkpoint: fields.checkpoint,
        metadata: fields.metadata,
        createdAt: at,
        updatedAt: at,
      };
      if (fields.providerSessionId !== undefined) record.providerSessionId = fields.providerSessionId;
      if (fields.parentId !== undefined) record.parentId = fields.parentId;
      const entry: Entry = { record, lease: undefined, turns: [] };
      entries.set(fields.id, entry);
      return snapshot(entry);
    },

    async get(id: string): Promise<ThreadRecord | undefined> {
      open();
      const entry = entries.get(id);
      return entry === undefined ? undefined : snapshot(entry);
    },

    async list(listOptions: ThreadListOptions = {}): Promise<ThreadRecord[]> {
      open();
      const limit = checkLimit(listOptions.limit);
      const driver = listOptions.driver;
      return [...entries.values()]
        .filter((entry) => driver === undefined || entry.record.driver === driver)
        .sort((a, b) => compareNewestFirst(a.record, b.record))
        .slice(0, limit)
        .map(snapshot);
    },

    async delete(id: string): Promise<boolean> {
      open();
      const entry = entries.get(id);
      if (entry === undefined) return false;
      if (live(entry, now())) throw new ThreadBusyError();
      entries.delete(id);
      return true;
    },

    async acquireLease(id: string, owner: string, ttlMs: number): Promise<ThreadLease | undefined> {
      open();
      checkOwner(owner);
      const ttl = checkTtl(ttlMs);
      const entry = entries.get(id);
      if (entry === undefined) throw new ThreadNotFoundError();
      const at = now();
      const held = live(entry, at);
      if (held !== undefined && held.owner !== owner) return undefined;
      entry.lease = { owner, expiresAt: at + ttl };
      return { ...entry.lease };
    },

    async renewLease(id: string, owner: string, ttlMs: number): Promise<boolean> {
      open();
      const ttl = checkTtl(ttlMs);
      const entry = entries.get(id);
      if (entry === undefined) return false;
      const at = now();
      if (live(entry, at)?.owner !== owner) return false;
      entry.lease = { owner, expiresAt: at + ttl };
      return true;
    },

    async releaseLease(id: string, owner: string): Promise<void> {
      open();
      const entry = entries.get(id);
      if (entry?.lease?.owner === owner) entry.lease = undefined;
    },

    async saveCheckpoint(
      id: string,
      owner: string,
      update: { providerSessionId?: string; checkpoint: ThreadCheckpoint },
    ): Promise<ThreadRecord> {
      open();
      const { checkpoint, providerSessionId } = checkUpdate(update);
      const entry = entries.get(id);
      if (entry === undefined) throw new ThreadNotFoundError();
      if (live(entry, now())?.owner !== owner) throw new LeaseLostError();
      entry.record.checkpoint = checkpoint;
      if (providerSessionId !== undefined) entry.record.providerSessionId = providerSessionId;
      entry.record.updatedAt = stamp();
      return snapshot(entry);
    },

    async appendTurn(id: string, owner: string, input: NewHistoryTurn): Promise<HistoryTurn> {
      open();
      const body = checkNewTurn(input);
      const entry = entries.get(id);
      if (entry === undefined) throw new ThreadNotFoundError();
      if (live(entry, now())?.owner !== owner) throw new LeaseLostError();
      const turn = turnFromBody((entry.turns.at(-1)?.turn ?? 0) + 1, body);
      entry.turns.push(turn);
      return structuredClone(turn);
    },

    async history(id: string, historyOptions?: HistoryOptions): Promise<HistoryPage> {
      open();
      const { before, limit } = checkHistoryOptions(historyOptions);
      const turns = entries.get(id)?.turns ?? [];
      // Turn numbers are dense from 1, so `before` is an index bound.
      const end = before === undefined ? turns.length : Math.min(turns.length, before - 1);
      const newestFirst = turns.slice(Math.max(0, end - limit - 1), end).reverse();
      return historyPage(structuredClone(newestFirst), limit);
    },

    async loadProviderState(id: string): Promise<string | undefined> {
      open();
      return entries.get(id)?.state;
    },

    async saveProviderState(id: string, owner: string, state: string): Promise<void> {
      open();
      const text = checkProviderState(state);
      const entry = entries.get(id);
      if (entry === undefined) throw new ThreadNotFoundError();
      if (live(entry, now())?.owner !== owner) throw new LeaseLostError();
      entry.state = text;
    },

    async close(): Promise<void> {
      closed = true;
    },
  };
}
