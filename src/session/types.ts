/**
 * Sessions (DESIGN §10): the long-lived conversation an operator or an autonomous host drives. A
 * session wraps one {@link Thread} of one {@link Agent}; every run it starts goes through the
 * thread's `stream()` — the single execution path — so watchdogs, approvals, inputs, redaction
 * and the thread lease apply unchanged.
 */
import type { AgentEvent } from "../events/types.js";
import type { InputRef } from "../input/refs.js";
import type { WatchdogOptions } from "../agent/watchdogs.js";
import type { ThreadCallOptions } from "../agent/thread.js";
import type { GoalCallOptions, GoalControl } from "../agent/thread-goals.js";
import type { ApprovalResponse } from "../events/types.js";
import type { Budget, GateState, Guardrails, SessionNotice, SessionSettings, SessionState, SessionStatus, SleepReason } from "./view-types.js";

export type { Budget, GateState, Guardrails, SessionNotice, SessionSettings, SessionState, SessionStatus, SleepReason };

export interface SubmitOptions {
  /** Start (or wake for) a run; `false` files the text as context for the next run without causing one. Default true. */
  wake?: boolean;
  /** Per-run inputs, attached to the run this message joins. */
  inputs?: InputRef[];
  /** The originator (a user id, `"scheduler"`, …); the last originator of a coalesced run wins. */
  from?: string;
}

export interface ResumeOptions {
  /**
   * `continue`: the queue runs as it is. `steer`: `message` is queued ahead of the queue. `abandon`:
   * the queue is dropped (each dropped prompt is reported), then `message`, if any, is queued.
   */
  mode: "continue" | "steer" | "abandon";
  message?: string;
}

export interface SessionOptions {
  /** Host-owned key, e.g. `"tenant-42/chat-7"`; generated (`ses_…`) when absent. */
  id?: string;
  /** Where the session record and its event log live. Default: in memory (nothing survives the process). */
  store?: SessionStore;
  /** The thread to wrap (started on the agent when new). Default: a thread with the session's id. */
  threadId?: string;
  /** Idle time before the session sleeps on its own, ms; at least 60000; 0 never sleeps automatically. Default 15 min. */
  idleSleepMs?: number;
  /** Queued messages kept at most; past it the oldest is dropped with a notice. Default 100. */
  inboxCap?: number;
  budget?: Budget;
  /** The watchdogs of every run the session starts (the agent's own apply when absent). */
  watchdogs?: WatchdogOptions;
  /**
   * Options of every run the session starts (model, effort, policy, approval and question
   * handlers, ...); `watchdogs` above wins over theirs. `onApproval: "stream"` /
   * `onUserInput: "stream"`: answered with `session.respond()` / `answer()` / `decline()`.
   */
  run?: SessionRunOptions;
  /** How long this host's ownership of the session lasts unless renewed (it renews at a third of it), ms. Default 30000; at least 1000. */
  ownerTtlMs?: number;
  /** How much of the event log the store keeps. Default: everything. */
  retention?: { maxEvents?: number; maxAgeMs?: number };
  metadata?: Record<string, string>;
}

/** The call options a session passes to each of its runs (the session owns signal, inputs and the lease wait). */
export type SessionRunOptions = Omit<ThreadCallOptions, "signal" | "inputs" | "waitForLease" | "services" | "output" | "outputSchema">;

/** Options of `openSession`. */
export interface OpenSessionOptions {
  /** Where the session was created. */
  store: SessionStore;
  /** See {@link SessionOptions.run}; not stored, so given again on every open. */
  run?: SessionRunOptions;
  /** See {@link SessionOptions.watchdogs}. */
  watchdogs?: WatchdogOptions;
  /** See {@link SessionOptions.ownerTtlMs}. */
  ownerTtlMs?: number;
}

/** One entry of a session's durable event log: a run's canonical event or a session notice. */
export interface SessionEvent {
  /** Session-wide, strictly increasing from 1, never reused. */
  seq: number;
  sessionId: string;
  /** Epoch ms when the session logged it. */
  at: number;
  event: AgentEvent | SessionNotice;
}

/** A session: see docs/sessions.md. Every method rejects with `SessionArchivedError` once archived (except reads). */
export interface Session extends AsyncDisposable {
  readonly id: string;
  state(): SessionState;
  /** The gate, the guardrails, the queue's prompt ids and the run in flight, as now. */
  status(): SessionStatus;
  /** Queue a message; resolves with its prompt id as soon as it is durably queued (not when it runs). */
  submit(text: string, options?: SubmitOptions): Promise<{ promptId: string }>;
  /** Reach the running turn natively where the driver steers, otherwise lead the next run. */
  steer(text: string): Promise<"native" | "next_run">;
  /** Run `text` when the current turn would otherwise end (natively where the driver queues follow-ups). */
  followUp(text: string): Promise<void>;
  /** Cancel the run in flight; true when there was one. Safe to repeat while it unwinds. */
  interrupt(): Promise<boolean>;
  /** Close the gate and cancel the run in flight, atomically; true when a run was in flight. */
  interruptAndHold(reason: string): Promise<boolean>;
  /** Let the run in flight finish and admit no new one until `resume`. */
  pause(reason: string): Promise<void>;
  /** Queue first (per `mode`), then open the gate, then wake. */
  resume(options: ResumeOptions): Promise<void>;
  /** A fresh provider conversation in the same workspace with the same settings; the session keeps its id. */
  clear(): Promise<void>;
  /**
   * The provider's native goal of the session's current thread (`Thread.goal()`: probed, failing
   * closed); undefined where the driver or its provider has none.
   */
  goal(options?: GoalCallOptions): Promise<GoalControl | undefined>;
  /** The provider's native compaction as one ordinary turn; `FeatureUnsupportedError` where it has none. */
  compact(): Promise<void>;
  /**
   * Set the model and effort of later runs (`null`: back to the agent's default; absent: unchanged);
   * the run in flight keeps its own. Durable; resolves with the settings now in force.
   */
  configure(settings: { model?: string | null; effort?: string | null }): Promise<SessionSettings>;
  /** Release processes and sleep; the next input wakes it. */
  sleep(): Promise<void>;
  /** Refuse all further input, for good. */
  archive(): Promise<void>;
  /**
   * Raise the session cost ceiling by `usd` (> 0), or the cost and token ceilings by
   * `{ usd, tokens }`; clears a tripped session ceiling once it is above spend again. A ceiling
   * that was never set cannot be raised (`ConfigError`).
   */
  addBudget(amount: number | { usd?: number; tokens?: number }): Promise<void>;
  /** Clear the tripped state of the current run's ceiling so the next run may start. */
  resetRunCeiling(): Promise<void>;
  /** Answer a pending approval of the run in flight (see `RunStream.respond`). */
  respond(requestId: string, decision: ApprovalResponse): void;
  /** Answer a pending question of the run in flight (see `RunStream.answer`). */
  answer(requestId: string, answers: Record<string, string | string[]>): void;
  /** Decline a pending question of the run in flight. */
  decline(requestId: string): void;
  /** Replay from `after` (exclusive; default 0 = everything kept), then the live tail. */
  events(options?: { after?: number; signal?: AbortSignal; batch?: false }): AsyncIterable<SessionEvent>;
  /**
   * The same events in the same order, delivered in bursts: each step yields every event queued
   * for this reader (a replayed page, or what was logged since its last step), never an empty
   * array — one promise per burst instead of one per event, for a viewer that writes them out together.
   */
  events(options: { after?: number; signal?: AbortSignal; batch: true }): AsyncIterable<readonly SessionEvent[]>;
  /** Stop driving the session in this process (the record stays); runs in flight are cancelled. */
  close(): Promise<void>;
}

/* ---------------- The session store SPI ---------------- */

/** One queued message as the store keeps it. Inputs are not stored (only how many there were). */
export interface QueuedPrompt {
  promptId: string;
  text: string;
  from?: string;
  wake: boolean;
  /** `steer`: leads the next run; `follow_up`: runs after the current one. */
  kind: "prompt" | "steer" | "follow_up";
  /** Inputs attached in this process; lost on restart (the prompt is then dropped with `inputs_lost`). */
  inputCount: number;
  /** ISO-8601. */
  queuedAt: string;
}

export interface SessionRecord {
  id: string;
  /** The thread the session drives now (changes on `clear` and on a handoff). */
  threadId: string;
  /** Driver id of the agent that created it. */
  driver: string;
  workspace: string;
  state: SessionState;
  sleepReason?: SleepReason;
  gate: GateState;
  guardrails: Guardrails;
  queue: QueuedPrompt[];
  /** The run in flight when the record was last written; a restart records it as `host_restart`. */
  inFlight?: { runId: string; promptIds: string[]; startedAt: string };
  /**
   * The options the session was created with that must survive a restart (idle sleep, inbox cap,
   * retention), and the model and effort `configure` set for its runs.
   */
  settings: { idleSleepMs: number; inboxCap: number; retention?: { maxEvents?: number; maxAgeMs?: number } } & SessionSettings;
  metadata: Record<string, string>;
  /** Single-driver ownership across hosts sharing the store. */
  owner?: { id: string; expiresAt: number };
  createdAt: string;
  updatedAt: string;
}

export type NewSessionRecord = Omit<SessionRecord, "createdAt" | "updatedAt" | "owner">;

/** The fields a session's owner rewrites. */
export type SessionPatch = Partial<Pick<SessionRecord, "threadId" | "state" | "sleepReason" | "gate" | "guardrails" | "queue" | "inFlight" | "settings" | "metadata">> & {
  /** Explicitly remove `inFlight` / `sleepReason`. */
  clear?: ("inFlight" | "sleepReason")[];
};

/**
 * Durable session records and event logs. Every implementation passes `runSessionStoreSuite`
 * (`agent-adaptor/testing`). Writes are the owner's: a host that lost ownership gets `LeaseLostError`.
 */
export interface SessionStore {
  /** Rejects with `SessionExistsError` when the id is taken. */
  create(record: NewSessionRecord): Promise<SessionRecord>;
  get(id: string): Promise<SessionRecord | undefined>;
  /** Newest `updatedAt` first; default limit 100. */
  list(options?: { limit?: number; state?: SessionState }): Promise<SessionRecord[]>;
  /** Removes the record and its log; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Take ownership if free, expired or already `owner`'s; atomically across hosts. False when another owner holds it. */
  acquireOwner(id: string, owner: string, ttlMs: number): Promise<boolean>;
  renewOwner(id: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseOwner(id: string, owner: string): Promise<void>;
  /** Apply `patch` as the owner; durable once resolved. */
  update(id: string, owner: string, patch: SessionPatch): Promise<SessionRecord>;
  /** Append events (their `seq` already assigned, contiguous, above the last stored) as the owner. */
  appendEvents(id: string, owner: string, events: readonly SessionEvent[]): Promise<void>;
  /** Events with `seq > after`, ascending, at most `limit` (default 1000). */
  readEvents(id: string, options: { after: number; limit?: number }): Promise<SessionEvent[]>;
  /** The highest stored `seq` (0 when none). */
  lastSeq(id: string): Promise<number>;
  /** Drop events beyond the retention; returns how many went. */
  trimEvents(id: string, retention: { maxEvents?: number; maxAgeMs?: number }): Promise<number>;
  close(): Promise<void>;
}
