/**
 * The thread store contract (DESIGN §8). A store keeps thread records and arbitrates the
 * single-writer lease; every implementation passes the shared suite exported from
 * `agent-adaptor/testing` (`runThreadStoreSuite`).
 */

import type { AgentEvent } from "../events/types.js";
import type { InputKind } from "../input/kinds.js";

/** Where a conversation stands after its last run. */
export interface ThreadCheckpoint {
  /** Completed runs (turns) so far. */
  turns: number;
  /** Status of the last run that ended. */
  lastStatus?: "completed" | "failed" | "cancelled";
  lastRunId?: string;
  /**
   * Set on a fork until its first run: `providerSessionId` is still the parent's, and that run
   * forks it natively.
   */
  forkPending?: boolean;
}

/** The single-writer lease. `expiresAt` is epoch milliseconds on the store's clock. */
export interface ThreadLease {
  owner: string;
  expiresAt: number;
}

export interface ThreadRecord {
  /** Host-owned opaque key, e.g. `"tenant-42/issue-123"`, or a generated id. */
  id: string;
  /** Driver id (`descriptor().id`). */
  driver: string;
  /** Compatibility fingerprint: `v2:` and a digest of `fingerprintParts` (a bare digest when an earlier version wrote it). */
  fingerprint: string;
  /**
   * The settings the conversation depends on, one readable, redacted, bounded value per dimension
   * (`workspace`, `model`, `driver.args`, …); never a credential, an endpoint or a path that only
   * locates the provider. Earlier versions wrote a digest per dimension.
   */
  fingerprintParts: Record<string, string>;
  /** The provider's own conversation id, once known. */
  providerSessionId?: string;
  /** The workspace the conversation runs in (providers resume relative to it). */
  workspace: string;
  checkpoint: ThreadCheckpoint;
  lease?: ThreadLease;
  metadata: Record<string, string>;
  /** The thread this one was forked from. */
  parentId?: string;
  /** ISO-8601. */
  createdAt: string;
  updatedAt: string;
}

export type NewThreadRecord = Omit<ThreadRecord, "createdAt" | "updatedAt" | "lease" | "checkpoint"> & {
  checkpoint?: ThreadCheckpoint;
};

export interface ThreadListOptions {
  driver?: string;
  /** At most this many records, newest `updatedAt` first. Default 100. */
  limit?: number;
}

/** One per-run input as history keeps it: what it was, never its bytes or where it came from. */
export interface HistoryInput {
  /** The sanitized name the driver saw (a basename, redacted), never a path. */
  name: string;
  kind: InputKind;
  mediaType: string;
  /** Size in bytes. */
  size: number;
}

/**
 * One ended run of a thread, as `appendTurn` takes it: its canonical transcript, compacted and
 * bounded (see docs/threads.md, "History"). The store assigns the turn number.
 */
export interface NewHistoryTurn {
  runId: string;
  /** How the run ended. */
  status: "completed" | "failed" | "cancelled";
  /** ISO-8601: when the run started and when it ended (the host's clock). */
  startedAt: string;
  endedAt: string;
  /** The user's prompt, redacted like events. */
  prompt: string;
  /** The run's inputs by name and kind, never their bytes or paths. */
  inputs: HistoryInput[];
  /**
   * The run's events before its terminal event, compacted: deltas merged into their completed
   * text, tool output deltas merged, long text, outputs, diffs and raw inputs capped with a marker.
   */
  events: AgentEvent[];
  /** Events left out of the middle of a turn whose transcript exceeded the per-turn cap. */
  omittedEvents?: number;
  /**
   * Set on the entry `Thread.rewind` appends instead of a run: the conversation went back to this
   * turn, and the turns numbered above it (up to this entry) are no longer part of it.
   */
  rewoundTo?: number;
}

/** One stored turn of a thread's history. */
export interface HistoryTurn extends NewHistoryTurn {
  /** 1, 2, 3, … in the order the thread's runs ended; never reused within the thread. */
  turn: number;
}

export interface HistoryOptions {
  /** Only turns numbered below this (the previous page's `nextBefore`). Default: from the newest. */
  before?: number;
  /** At most this many turns (1 to 1000). Default 20. */
  limit?: number;
}

/** A page of history, newest turn first. */
export interface HistoryPage {
  turns: HistoryTurn[];
  /** Pass as `before` for the next (older) page; absent when this page reaches the first turn. */
  nextBefore?: number;
}

/**
 * The largest provider state document a built-in store keeps for one thread, in UTF-8 bytes of
 * its JSON text (see `ThreadStore.saveProviderState`).
 */
export const PROVIDER_STATE_MAX_BYTES = 64 * 1024 * 1024;

export interface ThreadStore {
  /** Insert a new record. Rejects with `ThreadExistsError` when the id is taken. */
  create(record: NewThreadRecord): Promise<ThreadRecord>;
  get(id: string): Promise<ThreadRecord | undefined>;
  list(options?: ThreadListOptions): Promise<ThreadRecord[]>;
  /** Remove a record; `false` when there was none. A leased thread cannot be deleted (`ThreadBusyError`). */
  delete(id: string): Promise<boolean>;
  /**
   * Take the lease for `owner` if it is free, expired, or already `owner`'s; atomically across
   * every process sharing the store. Returns the lease, or `undefined` when another owner
   * holds an unexpired one. Rejects with `ThreadNotFoundError` for an unknown id.
   */
  acquireLease(id: string, owner: string, ttlMs: number): Promise<ThreadLease | undefined>;
  /** Extend `owner`'s lease; `false` when `owner` no longer holds it. */
  renewLease(id: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Drop `owner`'s lease; a no-op when `owner` does not hold it. */
  releaseLease(id: string, owner: string): Promise<void>;
  /**
   * Record progress as the lease holder: provider session id and checkpoint. Rejects with
   * `LeaseLostError` when `owner` does not hold an unexpired lease, and with
   * `ThreadNotFoundError` for an unknown id. Durable once resolved.
   */
  saveCheckpoint(
    id: string,
    owner: string,
    update: { providerSessionId?: string; checkpoint: ThreadCheckpoint },
  ): Promise<ThreadRecord>;
  /**
   * Append an ended run to the thread's history as the lease holder, numbered one past the
   * thread's last turn. Rejects with `LeaseLostError` when `owner` does not hold an unexpired
   * lease, and with `ThreadNotFoundError` for an unknown id. Durable once resolved.
   */
  appendTurn(id: string, owner: string, turn: NewHistoryTurn): Promise<HistoryTurn>;
  /**
   * A page of the thread's history, newest turn first. An unknown (or deleted) thread has an
   * empty history. Deleting a thread deletes its history.
   */
  history(id: string, options?: HistoryOptions): Promise<HistoryPage>;
  /**
   * The thread's provider state: the JSON text of the opaque document its driver last saved
   * (`RunRequest.providerState`), or undefined when it has none or the thread does not exist.
   * Deleting a thread deletes it. Optional: a store without it gives drivers no thread-scoped
   * state, and a driver that keeps its conversations itself (in a state directory) does so.
   */
  loadProviderState?(id: string): Promise<string | undefined>;
  /**
   * Replace the thread's provider state as the lease holder. Rejects with `LeaseLostError` when
   * `owner` does not hold an unexpired lease, with `ThreadNotFoundError` for an unknown id, and
   * with `StoreError` `provider_state_too_large` for a text over {@link PROVIDER_STATE_MAX_BYTES}
   * (nothing is written then). Durable once resolved. Present exactly when `loadProviderState` is.
   */
  saveProviderState?(id: string, owner: string, state: string): Promise<void>;
  /** Release connections and handles. */
  close(): Promise<void>;
}
