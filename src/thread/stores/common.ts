/**
 * Pieces every built-in thread store shares: input checks, copying a new record's fields, and
 * the error for a closed store.
 */
import { ConfigError, StoreError } from "../../errors/index.js";
import { PROVIDER_STATE_MAX_BYTES, type HistoryOptions, type HistoryPage, type HistoryTurn, type NewHistoryTurn, type NewThreadRecord, type ThreadCheckpoint } from "../store.js";

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

const TURN_STATUSES = new Set(["completed", "failed", "cancelled"]);

/**
 * A checked, detached copy of an `appendTurn` entry, as JSON would carry it (what SQL stores
 * keep), so every store returns the same value. Unknown extra fields are dropped.
 */
export function checkNewTurn(turn: NewHistoryTurn): NewHistoryTurn {
  if (typeof turn !== "object" || turn === null) throw new ConfigError("thread store: the turn must be an object");
  const status = turn.status;
  if (typeof status !== "string" || !TURN_STATUSES.has(status)) {
    throw new ConfigError("thread store: turn.status must be completed, failed or cancelled");
  }
  if (!Array.isArray(turn.inputs)) throw new ConfigError("thread store: turn.inputs must be an array");
  if (!Array.isArray(turn.events)) throw new ConfigError("thread store: turn.events must be an array");
  const checked: NewHistoryTurn = {
    runId: requireString(turn.runId, "turn.runId"),
    status,
    startedAt: requireString(turn.startedAt, "turn.startedAt"),
    endedAt: requireString(turn.endedAt, "turn.endedAt"),
    prompt: requireString(turn.prompt, "turn.prompt"),
    inputs: turn.inputs,
    events: turn.events,
  };
  if (turn.omittedEvents !== undefined) {
    if (!Number.isSafeInteger(turn.omittedEvents) || turn.omittedEvents < 0) {
      throw new ConfigError("thread store: turn.omittedEvents must be a non-negative integer");
    }
    checked.omittedEvents = turn.omittedEvents;
  }
  if (turn.rewoundTo !== undefined) {
    if (!Number.isSafeInteger(turn.rewoundTo) || turn.rewoundTo < 0) throw new ConfigError("thread store: turn.rewoundTo must be a non-negative integer");
    checked.rewoundTo = turn.rewoundTo;
  }
  return JSON.parse(JSON.stringify(checked)) as NewHistoryTurn;
}

/** The stored form of a turn without its number (JSON text in SQL stores). */
export function turnBody(turn: NewHistoryTurn): string {
  return JSON.stringify(turn);
}

/** A stored turn from its number and body, with `turn` first. */
export function turnFromBody(turn: number, body: string | NewHistoryTurn): HistoryTurn {
  const parsed = typeof body === "string" ? (JSON.parse(body) as NewHistoryTurn) : body;
  return { turn, ...parsed };
}

/** `before` (a turn number, exclusive) and `limit` (1..1000, default 20) of a history page. */
export function checkHistoryOptions(options: HistoryOptions | undefined): { before: number | undefined; limit: number } {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new ConfigError("thread store: history options must be an object");
  }
  const { before, limit } = options ?? {};
  if (before !== undefined && (typeof before !== "number" || !Number.isSafeInteger(before) || before < 1)) {
    throw new ConfigError("thread store: history before must be a positive integer (a turn number)");
  }
  if (limit !== undefined && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 1000)) {
    throw new ConfigError("thread store: history limit must be an integer from 1 to 1000");
  }
  return { before, limit: limit ?? 20 };
}

/**
 * A page from the turns a store read newest first, one more than `limit` when there are: the
 * extra one only says that an older page exists.
 */
export function historyPage(newestFirst: HistoryTurn[], limit: number): HistoryPage {
  const turns = newestFirst.slice(0, limit);
  const page: HistoryPage = { turns };
  if (newestFirst.length > limit) page.nextBefore = turns[turns.length - 1]!.turn;
  return page;
}

/** A provider state text as `saveProviderState` takes it: a string within the size limit. */
export function checkProviderState(state: unknown): string {
  if (typeof state !== "string") throw new ConfigError("thread store: the provider state must be a string (JSON text)");
  // Each UTF-16 unit is at most 3 UTF-8 bytes: only a long text needs counting.
  if (state.length * 3 > PROVIDER_STATE_MAX_BYTES && Buffer.byteLength(state, "utf8") > PROVIDER_STATE_MAX_BYTES) {
    throw providerStateTooLarge(PROVIDER_STATE_MAX_BYTES);
  }
  return state;
}

/** Code `provider_state_too_large`: a provider state over `max` bytes; nothing was written. */
export function providerStateTooLarge(max: number): StoreError {
  return new StoreError("provider_state_too_large", `the provider state is larger than ${max} bytes: nothing was written`);
}
