/**
 * Pieces every built-in thread store shares: input checks, copying a new record's fields, and
 * the error for a closed store.
 */
import { ConfigError, StoreError } from "../../errors/index.js";
import type { NewThreadRecord, ThreadCheckpoint } from "../store.js";

/** The fields of a new record a store keeps, copied so later host mutation cannot reach it. */
export interface NewRecordFields {
  id: string;
  driver: string;
  fingerprint: string;
  fingerprintParts: Record<string, string>;
  providerSessionId: string | undefined;
  workspace: string;
  checkpoint: ThreadCheckpoint;
  metadata: Record<string, string>;
  parentId: string | undefined;
}

function requireString(value: unknown, what: string): string {
  if (typeof value !== "string") throw new ConfigError(`thread store: ${what} must be a string`);
  return value;
}

function optionalString(value: unknown, what: string): string | undefined {
  return value === undefined || value === null ? undefined : requireString(value, what);
}

function stringMap(value: unknown, what: string): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`thread store: ${what} must be an object of strings`);
  }
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) out[key] = requireString(entry, `${what}.${key}`);
  return out;
}

const STATUSES = new Set(["completed", "failed", "cancelled"]);

/** A detached, checked copy of a checkpoint (only the contract's fields; stores keep it as JSON). */
export function checkCheckpoint(value: unknown): ThreadCheckpoint {
  if (typeof value !== "object" || value === null) throw new ConfigError("thread store: checkpoint must be an object");
  const raw = value as Record<string, unknown>;
  const turns = raw.turns;
  if (typeof turns !== "number" || !Number.isSafeInteger(turns) || turns < 0) {
    throw new ConfigError("thread store: checkpoint.turns must be a non-negative integer");
  }
  const checkpoint: ThreadCheckpoint = { turns };
  if (raw.lastStatus !== undefined) {
    if (typeof raw.lastStatus !== "string" || !STATUSES.has(raw.lastStatus)) {
      throw new ConfigError("thread store: checkpoint.lastStatus must be completed, failed or cancelled");
    }
    checkpoint.lastStatus = raw.lastStatus as NonNullable<ThreadCheckpoint["lastStatus"]>;
  }
  const lastRunId = optionalString(raw.lastRunId, "checkpoint.lastRunId");
  if (lastRunId !== undefined) checkpoint.lastRunId = lastRunId;
  if (raw.forkPending !== undefined) {
    if (typeof raw.forkPending !== "boolean") throw new ConfigError("thread store: checkpoint.forkPending must be a boolean");
    checkpoint.forkPending = raw.forkPending;
  }
  return checkpoint;
}

/** Checks a new record and copies the fields a store keeps (unknown extra fields are dropped). */
export function checkNewRecord(record: NewThreadRecord): NewRecordFields {
  if (typeof record !== "object" || record === null) throw new ConfigError("thread store: the record must be an object");
  const id = requireString(record.id, "id");
  if (id.length === 0) throw new ConfigError("thread store: id must not be empty");
  return {
    id,
    driver: requireString(record.driver, "driver"),
    fingerprint: requireString(record.fingerprint, "fingerprint"),
    fingerprintParts: stringMap(record.fingerprintParts, "fingerprintParts"),
    providerSessionId: optionalString(record.providerSessionId, "providerSessionId"),
    workspace: requireString(record.workspace, "workspace"),
    checkpoint: record.checkpoint === undefined ? { turns: 0 } : checkCheckpoint(record.checkpoint),
    metadata: stringMap(record.metadata, "metadata"),
    parentId: optionalString(record.parentId, "parentId"),
  };
}

export function checkOwner(owner: unknown): string {
  const value = requireString(owner, "lease owner");
  if (value.length === 0) throw new ConfigError("thread store: lease owner must not be empty");
  return value;
}

/** Lease lengths are whole milliseconds, at least 1 and at most a year. */
export function checkTtl(ttlMs: unknown): number {
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs < 1 || ttlMs > 366 * 24 * 3600 * 1000) {
    throw new ConfigError("thread store: ttlMs must be a positive number of milliseconds (at most a year)");
  }
  return Math.ceil(ttlMs);
}

export function checkLimit(limit: unknown): number {
  if (limit === undefined) return 100;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0) {
    throw new ConfigError("thread store: limit must be a non-negative integer");
  }
  return limit;
}

/** Code `store_closed`: an operation on a store after `close()`. */
export function storeClosed(): StoreError {
  return new StoreError("store_closed", "the thread store is closed");
}

/** A checked, detached copy of a `saveCheckpoint` update. */
export function checkUpdate(update: { providerSessionId?: string; checkpoint: ThreadCheckpoint }): {
  checkpoint: ThreadCheckpoint;
  providerSessionId: string | undefined;
} {
  if (typeof update !== "object" || update === null) throw new ConfigError("thread store: the update must be an object");
  return {
    checkpoint: checkCheckpoint(update.checkpoint),
    providerSessionId: optionalString(update.providerSessionId, "providerSessionId"),
  };
}

/** Newest `updatedAt` first; ties broken by id so the order is total. */
export function compareNewestFirst(a: { updatedAt: string; id: string }, b: { updatedAt: string; id: string }): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
