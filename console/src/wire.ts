/**
 * What the attach server's HTTP API sends, as the console reads it. Event and inspection shapes
 * are the library's own types (type-only imports, erased by the bundler). The session shapes are
 * copied, because src/session/types.ts reaches into Node-only modules; a type-level test
 * (test/server/console/wire-types.test.ts) pins each copy to the library's type, so drift fails
 * the typecheck.
 */
import type { AgentEvent, ApprovalOption, Question } from "../../src/events/types.js";
import type { ErrorCode } from "../../src/errors/codes.js";
import type { Inspection, Observation, PanelName } from "../../src/inspect/types.js";

export type { AgentEvent, ApprovalOption, Question, Inspection, Observation, PanelName };

export type SessionState = "created" | "running" | "idle" | "sleeping" | "archived";
export type SleepReason = "manual" | "idle_timeout" | "restart_failure";
export type GateState = { open: true } | { open: false; by: "hold" | "pause"; reason: string; since: string };
export type BudgetCeiling = "sessionUsd" | "sessionTokens" | "runUsd" | "runTokens";

export interface Budget {
  sessionUsd?: number;
  runUsd?: number;
  sessionTokens?: number;
  runTokens?: number;
}

export interface Guardrails {
  spentUsd: number;
  spentTokens: number;
  budget: Budget;
  conversationCostUsd?: { threadId: string; usd: number };
  tripped?: { ceiling: BudgetCeiling; at: string; runId?: string };
}

export interface SessionSettings {
  model?: string;
  effort?: string;
}

/** The session's own notices, beside the runs' events (src/session/types.ts `SessionNotice`). */
export type SessionNotice =
  | { type: "session.state"; state: SessionState; reason?: SleepReason | string }
  | { type: "session.prompt_queued"; promptId: string; from?: string; wake: boolean }
  | { type: "session.prompt_dropped"; promptId: string; reason: "inbox_full" | "abandoned" | "inputs_lost" }
  | { type: "session.run_admitted"; runId: string; promptIds: string[]; from?: string }
  | { type: "session.steer"; promptId: string; delivery: "native" | "next_run" }
  | { type: "session.follow_up"; promptId: string; delivery: "native" | "next_run" }
  | { type: "session.configured"; settings: SessionSettings }
  | { type: "session.gate"; gate: GateState }
  | { type: "session.budget"; guardrails: Guardrails }
  | { type: "session.run_interrupted"; runId: string; code: "host_restart" }
  | { type: "session.handoff"; fromThreadId: string; toThreadId: string; reason: "provider_session_missing" | "clear" }
  | { type: "session.error"; code: ErrorCode; message: string; promptIds?: string[] };

/** src/session/types.ts `SessionStatus`. */
export interface SessionStatus {
  id: string;
  state: SessionState;
  sleepReason?: SleepReason;
  gate: GateState;
  guardrails: Guardrails;
  queued: string[];
  inFlight?: { runId: string; promptIds: string[] };
  settings: SessionSettings;
  threadId: string;
  lastSeq: number;
  nativeCommands?: { name: string; description?: string; argumentHint?: string }[];
}

/** One entry of a session's event stream: its session-wide sequence number and the event. */
export interface StreamEntry {
  seq: number;
  event: AgentEvent | SessionNotice;
}

/** `SessionStatus` plus what the server adds (GET /api/sessions). */
export interface SessionView extends SessionStatus {
  agent: string;
  /** Whether this server drives the session now (sessions are opened on demand). */
  live: boolean;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, string>;
}

export interface AgentInfo {
  name: string;
  driver: { id: string; name: string };
  workspace: string;
}

/** An `approval.requested` event's fields plus its run. */
export interface PendingApproval {
  runId: string;
  requestId: string;
  kind: "command" | "file_change" | "permissions" | "tool";
  callId?: string;
  summary: string;
  options: ApprovalOption[];
}

/** A `question.requested` event's fields plus its run. */
export interface PendingQuestion {
  runId: string;
  requestId: string;
  questions: Question[];
}

/** A message waiting in a session's inbox (GET /api/sessions/:id/queue; the server's `QueuedPromptView`). */
export interface QueuedPrompt {
  promptId: string;
  kind: "prompt" | "steer" | "follow_up";
  from?: string;
  queuedAt: string;
  text: string;
  truncated?: boolean;
  inputCount: number;
}

/** The error body of every refused request. */
export interface ApiErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}
