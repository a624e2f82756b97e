/**
 * Canonical run events (DESIGN §5). Every event carries `seq` (assigned by core, strictly
 * increasing per run from 0), `runId`, an optional `threadId`, `at` (epoch ms) and optional
 * `provenance` (the provider's own ids, never raw payloads).
 */
import type { ErrorCode } from "../errors/codes.js";
import type { NoticeCode } from "./notice-codes.js";
import type { Usage } from "./usage.js";

/** The provider's own identifiers for an event. Never a raw payload. */
export interface Provenance {
  provider: string;
  itemId?: string;
  messageId?: string;
  event?: string;
}

/** Fields core assigns to every event. */
export interface EventBase {
  seq: number;
  runId: string;
  threadId?: string;
  at: number;
  provenance?: Provenance;
}

/**
 * One of the provider's own commands (e.g. `/compact`): as an inspection's `commands` panel lists
 * it, and as a session-scoped `available_commands` notice carries it.
 */
export interface NativeCommandInfo {
  name: string;
  description?: string;
  argumentHint?: string;
}

export type ToolKind = "command" | "file_change" | "mcp" | "web_search" | "subagent" | "read" | "other";

/**
 * One choice the provider offers for an approval request. `id` is stable for the provider (Codex's
 * decision names, the ACP agent's `optionId`, `allow` / `allow_always` / `deny` on Claude) and is
 * what a decision's `optionId` selects.
 */
export interface ApprovalOption {
  id: string;
  label: string;
  kind: "allow_once" | "allow_always" | "deny" | "other";
}

/**
 * The answer to an approval request. `optionId` selects one of the request's offered options (the
 * driver answers exactly that option, e.g. Codex's "allow and remember this command prefix");
 * without it the driver picks the offered option matching `decision` and `scope`. A deny's
 * `message` reaches the model where the provider has a field for it (docs/api.md lists which);
 * `interrupt` also stops the turn.
 */
export type ApprovalDecision =
  | { decision: "allow"; scope?: "once" | "session"; optionId?: string; updatedInput?: unknown }
  | { decision: "deny"; message?: string; interrupt?: boolean; optionId?: string };

/** What a host may answer an approval with: a decision, or just the id of an offered option. */
export type ApprovalResponse = ApprovalDecision | { optionId: string };

/** Who settled an approval request or a question. */
export type RequestResolver = "handler" | "stream" | "policy" | "cancel" | "timeout";

export interface Question {
  id: string;
  question: string;
  header?: string;
  options?: { label: string; description?: string }[];
  multiSelect?: boolean;
  /** A free-text answer is accepted besides the options. */
  allowOther?: boolean;
  /** The answer is a secret (a password, a token): a UI should mask it. */
  secret?: boolean;
}

/**
 * One file a `file_change` tool touched. `path` is as the provider names it (relative to the run's
 * workspace when the provider gives a relative path). `diff` is a unified diff of this file alone
 * (`--- a/path` / `+++ b/path` headers), bounded: past the cap it ends with the line
 * `\ diff truncated: N bytes omitted`.
 */
export interface FileChange {
  path: string;
  change: "added" | "modified" | "deleted";
  /** The previous path, when the provider reports a move. */
  movedFrom?: string;
  diff?: string;
}

/** The MCP server and tool a `kind: "mcp"` call goes to. */
export interface McpToolRef {
  server: string;
  tool: string;
}

/**
 * A tool call began. The normalized fields have the same meaning on every driver; a field the
 * provider does not report is absent (see the per-driver table in docs/api.md).
 */
export interface ToolStarted {
  callId: string;
  kind: ToolKind;
  /** The provider's own name of the tool (`Bash`, `commandExecution`, `write_file`, ...). */
  name?: string;
  /** A human-readable one-line title. */
  title: string;
  /** `kind: "command"`: the command line as one string. */
  command?: string;
  /** `kind: "command"`: the directory it runs in, when the provider says. */
  cwd?: string;
  /** `kind: "file_change"`: the files it will change, when known at the start. */
  files?: FileChange[];
  /** `kind: "mcp"`: the server and tool. */
  mcp?: McpToolRef;
  /** The provider's own input of the call, redacted; shapes differ per provider. */
  rawInput?: unknown;
  /**
   * The `callId` of the call this one runs inside: a subagent's (`kind: "subagent"`) own tool
   * calls name the call that started it. Absent: a call of the run's own agent.
   */
  parentCallId?: string;
}

/** Progress of a tool call. */
export interface ToolUpdated {
  callId: string;
  /** A delta: output produced since the previous `tool.updated` of this call. */
  output?: string;
  /** The call's changed files as now known (each with its diff so far); replaces earlier lists. */
  files?: FileChange[];
}

/** A tool call ended. */
export interface ToolCompleted {
  callId: string;
  status: "completed" | "failed" | "declined" | "cancelled";
  /** The call's whole output as the provider reports it at the end (bounded), when it does. */
  output?: string;
  /** `kind: "command"`: the exit code, when the provider reports one. */
  exitCode?: number;
  /** `kind: "file_change"`: the files changed, each with its unified diff. */
  files?: FileChange[];
}

export interface PlanEntry {
  text: string;
  status: "pending" | "in_progress" | "completed";
}

export interface RunFailure {
  /** One of the error table's codes (`ERROR_CODES`). */
  code: ErrorCode;
  message: string;
  phase: "before_delivery" | "after_delivery";
  retryable: boolean;
}

/** Event payloads without the core-assigned base, keyed by type. */
export interface EventPayloads {
  /** `schemaVersion`: the {@link EVENTS_SCHEMA_VERSION} of the contract these events follow. */
  "run.started": { driver: string; model?: string; schemaVersion: number };
  "thread.bound": { providerSessionId: string };
  "message.delta": { itemId: string; text: string };
  "message.completed": { itemId: string; text: string };
  "reasoning.delta": { itemId: string; text: string };
  "reasoning.completed": { itemId: string; text: string };
  "tool.started": ToolStarted;
  "tool.updated": ToolUpdated;
  "tool.completed": ToolCompleted;
  "plan.updated": { entries: PlanEntry[] };
  "approval.requested": {
    requestId: string;
    kind: "command" | "file_change" | "permissions" | "tool";
    callId?: string;
    summary: string;
    options: ApprovalOption[];
  };
  "approval.resolved": { requestId: string; decision: ApprovalDecision; by: RequestResolver };
  "question.requested": { requestId: string; questions: Question[] };
  "question.resolved": { requestId: string; answered: boolean; by: RequestResolver };
  "usage.observed": { usage: Usage };
  /**
   * `count`: how many occurrences one notice stands for, when a flood was coalesced (malformed frames).
   * `commands`: with code `available_commands`, the commands the provider now offers for the
   * conversation (the whole list, replacing any earlier one).
   */
  notice: { level: "info" | "warning"; code: NoticeCode; message: string; count?: number; commands?: NativeCommandInfo[] };
  /** Plain data: the rich `Result` (with `transcript()` and `raw()`) is `stream.result`. */
  "run.completed": { result: ResultSummary };
  "run.failed": { error: RunFailure };
  "run.cancelled": { reason?: string };
}

/**
 * The version of the event contract (the event types, their fields and the schemas of
 * `agent-adaptor/events`), carried by every `run.started` as `schemaVersion`. Additive changes (a
 * new optional field, a new event type, a new code) keep it; removing or renaming a field or a
 * type, or changing a field's meaning or type, raises it.
 */
export const EVENTS_SCHEMA_VERSION = 1;

export type EventType = keyof EventPayloads;

/** One canonical event type, with its base. */
export type EventOf<K extends EventType> = EventBase & { type: K } & EventPayloads[K];

/** The canonical event union, discriminated on `type`. */
export type AgentEvent = { [K in EventType]: EventOf<K> }[EventType];

export type TerminalEventType = "run.completed" | "run.failed" | "run.cancelled";
export type TerminalEvent = EventOf<TerminalEventType>;

/** Non-terminal event types a driver may emit; `run.started` is core's. */
export type DriverEventType = Exclude<EventType, TerminalEventType | "run.started">;

/**
 * What a driver emits through its `EventSink`: a payload plus its type and optional
 * provenance. Core assigns `seq`, `runId`, `threadId` and `at`. A driver may announce the
 * run's terminal (`run.failed`, `run.cancelled`, or `run.completed` without a result); core
 * publishes it once the driver's `run()` settles, and refuses anything emitted after it.
 */
export type DriverEvent =
  | {
      [K in DriverEventType]: { type: K; provenance?: Provenance } & EventPayloads[K];
    }[DriverEventType]
  | { type: "run.completed"; provenance?: Provenance }
  | { type: "run.failed"; error: RunFailure; provenance?: Provenance }
  | { type: "run.cancelled"; reason?: string; provenance?: Provenance };

export const EVENT_TYPES: readonly EventType[] = [
  "run.started",
  "thread.bound",
  "message.delta",
  "message.completed",
  "reasoning.delta",
  "reasoning.completed",
  "tool.started",
  "tool.updated",
  "tool.completed",
  "plan.updated",
  "approval.requested",
  "approval.resolved",
  "question.requested",
  "question.resolved",
  "usage.observed",
  "notice",
  "run.completed",
  "run.failed",
  "run.cancelled",
];

export const TERMINAL_EVENT_TYPES: readonly TerminalEventType[] = ["run.completed", "run.failed", "run.cancelled"];

/** Whether `event` ends its run: `run.completed`, `run.failed` or `run.cancelled`. */
export function isTerminalEvent(event: { type: string } | null | undefined): event is TerminalEvent {
  return event != null && (TERMINAL_EVENT_TYPES as readonly string[]).includes(event.type);
}

/** Redacted provider terminal payload and stderr tail, for audit. */
export interface RawRecord {
  provider: string;
  terminal?: unknown;
  stderrTail?: string;
}

/**
 * A completed run's outcome as plain JSON data: what `run.completed` carries over the wire.
 * Absent fields are missing keys, never `undefined`.
 */
export interface ResultSummary<T = unknown> {
  runId: string;
  threadId?: string;
  status: "completed";
  /** The final assistant message. */
  text: string;
  structured?: T;
  usage?: Usage;
  providerSessionId?: string;
  durationMs: number;
}

/** The outcome of one completed run: its summary plus the transcript and the raw record. Failures reject with `RunFailedError`. */
export interface Result<T = unknown> extends ResultSummary<T> {
  /** The normalized timeline of this run. */
  transcript(): AgentEvent[];
  raw(): RawRecord;
}
