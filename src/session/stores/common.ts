/**
 * Pieces every built-in session store shares: input checks, the stored form of a record and of an
 * event, patching, and the errors of a closed store or a non-contiguous append.
 */
import { ConfigError, StoreError } from "../../errors/index.js";
import type { NewSessionRecord, SessionEvent, SessionPatch, SessionRecord, SessionState } from "../types.js";

/** The part of a record a store keeps as one JSON body (owner and timestamps are columns). */
export type RecordBody = Omit<SessionRecord, "owner" | "createdAt" | "updatedAt">;

const STATES: ReadonlySet<string> = new Set<SessionState>(["created", "running", "idle", "sleeping", "archived"]);

function fail(message: string): never {
  throw new ConfigError(`session store: ${message}`);
}

function requireString(value: unknown, what: string): string {
  if (typeof value !== "string") fail(`${what} must be a string`);
  return value;
}

function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function checkState(value: unknown): SessionState {
  if (typeof value !== "string" || !STATES.has(value)) fail("state must be created, running, idle, sleeping or archived");
  return value as SessionState;
}

/** A JSON-shaped copy (what SQL stores keep), so every store returns the same value. */
function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Checks a new record and returns the detached body a store keeps (unknown extra fields dropped). */
export function checkNewSession(record: NewSessionRecord): RecordBody {
  const raw = requireObject(record, "the record");
  const id = requireString(raw.id, "id");
  if (id.length === 0) fail("id must not be empty");
  const body: RecordBody = {
    id,
    threadId: requireString(raw.threadId, "threadId"),
    driver: requireString(raw.driver, "driver"),
    workspace: requireString(raw.workspace, "workspace"),
    state: checkState(raw.state),
    gate: requireObject(raw.gate, "gate") as unknown as RecordBody["gate"],
    guardrails: requireObject(raw.guardrails, "guardrails") as unknown as RecordBody["guardrails"],
    queue: Array.isArray(raw.queue) ? (raw.queue as RecordBody["queue"]) : fail("queue must be an array"),
    settings: requireObject(raw.settings, "settings") as unknown as RecordBody["settings"],
    metadata: requireObject(raw.metadata ?? {}, "metadata") as Record<string, string>,
  };
  if (raw.sleepReason !== undefined) body.sleepReason = requireString(raw.sleepReason, "sleepReason") as RecordBody["sleepReason"];
  if (raw.inFlight !== undefined) body.inFlight = requireObject(raw.inFlight, "inFlight") as unknown as RecordBody["inFlight"];
  return jsonCopy(body);
}

const PATCHABLE = ["threadId", "state", "sleepReason", "gate", "guardrails", "queue", "inFlight", "settings", "metadata"] as const;

/** `body` with `patch` applied (a new, detached object); the patch is checked like a new record's fields. */
export function applyPatch(body: RecordBody, patch: SessionPatch): RecordBody {
  const raw = requireObject(patch, "the patch");
  const next: Record<string, unknown> = { ...body };
  for (const key of PATCHABLE) {
    if (raw[key] !== undefined) next[key] = raw[key];
  }
  if (raw.clear !== undefined) {
    if (!Array.isArray(raw.clear)) fail("patch.clear must be an array");
    for (const key of raw.clear) {
      if (key !== "inFlight" && key !== "sleepReason") fail("patch.clear may name inFlight and sleepReason only");
      delete next[key];
    }
  }
  return checkNewSession(next as unknown as NewSessionRecord);
}

/** The record a caller sees, from its stored parts. */
export function toRecord(
  body: RecordBody,
  parts: { owner?: string | null; ownerExpiresAt?: number | null; now: number; createdAt: string; updatedAt: string },
): SessionRecord {
  const record: SessionRecord = { ...body, createdAt: parts.createdAt, updatedAt: parts.updatedAt };
  if (parts.owner != null && parts.ownerExpiresAt != null && parts.ownerExpiresAt > parts.now) {
    record.owner = { id: parts.owner, expiresAt: parts.ownerExpiresAt };
  }
  return record;
}

export function checkOwner(owner: unknown): string {
  const value = requireString(owner, "owner");
  if (value.length === 0) fail("owner must not be empty");
  return value;
}

/** Ownership lengths are whole milliseconds, at least 1 and at most a year. */
export function checkTtl(ttlMs: unknown): number {
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs < 1 || ttlMs > 366 * 24 * 3600 * 1000) {
    fail("ttlMs must be a positive number of milliseconds (at most a year)");
  }
  return Math.ceil(ttlMs);
}

export function checkListOptions(options: { limit?: number; state?: SessionState } | undefined): { limit: number; state?: SessionState } {
  const raw = options === undefined ? {} : requireObject(options, "list options");
  const limit = raw.limit ?? 100;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0) fail("limit must be a non-negative integer");
  return raw.state === undefined ? { limit } : { limit, state: checkState(raw.state) };
}

/** `after` (a seq, exclusive) and `limit` (1..10000, default 1000) of a read. */
export function checkReadOptions(options: { after: number; limit?: number }): { after: number; limit: number } {
  const raw = requireObject(options, "read options");
  const after = raw.after ?? 0;
  if (typeof after !== "number" || !Number.isSafeInteger(after) || after < 0) fail("after must be a non-negative integer (a seq)");
  const limit = raw.limit ?? 1000;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 10_000) fail("limit must be an integer from 1 to 10000");
  return { after, limit };
}

export function checkRetention(retention: { maxEvents?: number; maxAgeMs?: number }): { maxEvents?: number; maxAgeMs?: number } {
  const raw = requireObject(retention, "retention");
  const out: { maxEvents?: number; maxAgeMs?: number } = {};
  if (raw.maxEvents !== undefined) {
    if (typeof raw.maxEvents !== "number" || !Number.isSafeInteger(raw.maxEvents) || raw.maxEvents < 0) {
      fail("retention.maxEvents must be a non-negative integer");
    }
    out.maxEvents = raw.maxEvents;
  }
  if (raw.maxAgeMs !== undefined) {
    if (typeof raw.maxAgeMs !== "number" || !(raw.maxAgeMs >= 0)) fail("retention.maxAgeMs must be a non-negative number");
    out.maxAgeMs = raw.maxAgeMs;
  }
  return out;
}

/** One event as a store keeps it: the session's `seq`, `at`, and the event as JSON text. */
export interface StoredEvent {
  seq: number;
  at: number;
  json: string;
}

/**
 * Checks an append's shape — every event of session `id`, `seq` ascending by one, `at` whole
 * epoch ms, `event` an object. Whether it continues the stored log is the store's atomic check.
 */
export function checkEventShape(id: string, events: readonly SessionEvent[]): void {
  if (!Array.isArray(events)) fail("events must be an array");
  let previous: number | undefined;
  for (const entry of events) {
    const raw = requireObject(entry, "an event");
    if (raw.sessionId !== id) fail("an event belongs to another session");
    const seq = raw.seq;
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) fail("an event's seq must be a positive integer");
    if (previous !== undefined && seq !== previous + 1) throw seqConflict(previous + 1, seq);
    previous = seq;
    if (typeof raw.at !== "number" || !Number.isSafeInteger(raw.at)) fail("an event's at must be whole epoch milliseconds");
    requireObject(raw.event, "an event's event");
  }
}

/** {@link checkEventShape}, then each event serialized on its own. */
export function checkEvents(id: string, events: readonly SessionEvent[]): StoredEvent[] {
  checkEventShape(id, events);
  return events.map((entry) => ({ seq: entry.seq, at: entry.at, json: JSON.stringify(entry.event) }));
}

export function toEvent(id: string, seq: number, at: number, json: string): SessionEvent {
  return { seq, sessionId: id, at, event: JSON.parse(json) as SessionEvent["event"] };
}

/** Code `store_seq_conflict`: an append that would leave a gap or repeat a seq. */
export function seqConflict(expected: number, got: number): StoreError {
  const what = got > expected ? "a gap" : "a duplicate";
  return new StoreError("store_seq_conflict", `the appended events would leave ${what} in the session's log (expected seq ${expected}, got ${got})`);
}

/** Code `store_closed`: an operation on a store after `close()`. */
export function storeClosed(): StoreError {
  return new StoreError("store_closed", "the session store is closed");
}

/** Newest `updatedAt` first; ties broken by id so the order is total. */
export function compareNewestFirst(a: { updatedAt: string; id: string }, b: { updatedAt: string; id: string }): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
