/**
 * What the attach server's HTTP API sends, as the console reads it: the library's own types
 * (type-only imports, erased by the bundler) from modules that stay Node-free for this reason —
 * events, inspection, the session's view shapes (src/session/view-types.ts) and the server's
 * public shapes (src/server/public-types.ts). Where the server's shape is looser than what it
 * sends (a question as a plain record), the console reads the event's own type.
 */
import type { AgentEvent, ApprovalOption, EventPayloads, Question } from "../../src/events/types.js";
import type { BudgetCeiling } from "../../src/errors/index.js";
import type { Inspection, Observation, PanelName } from "../../src/inspect/types.js";
import type { QueuedPromptView, SessionView as ServerSessionView } from "../../src/server/public-types.js";
import type { Budget, GateState, Guardrails, SessionNotice, SessionSettings, SessionState, SessionStatus, SleepReason } from "../../src/session/view-types.js";

export type { AgentEvent, ApprovalOption, Question, Inspection, Observation, PanelName };
export type { Budget, BudgetCeiling, GateState, Guardrails, SessionNotice, SessionSettings, SessionState, SessionStatus, SleepReason };

/** One entry of a session's event stream: its session-wide sequence number and the event. */
export interface StreamEntry {
  seq: number;
  event: AgentEvent | SessionNotice;
}

/** `SessionStatus` plus what the server adds (GET /api/sessions). */
export interface SessionView extends SessionStatus, Pick<ServerSessionView, "agent" | "live" | "createdAt" | "updatedAt" | "metadata"> {}

export interface AgentInfo {
  name: string;
  driver: { id: string; name: string };
  workspace: string;
}

type ApprovalRequested = EventPayloads["approval.requested"];
type QuestionRequested = EventPayloads["question.requested"];

/** An `approval.requested` event's fields plus its run. */
export interface PendingApproval extends ApprovalRequested {
  runId: string;
}

/** A `question.requested` event's fields plus its run. */
export interface PendingQuestion extends QuestionRequested {
  runId: string;
}

/** A message waiting in a session's inbox (GET /api/sessions/:id/queue). */
export type QueuedPrompt = QueuedPromptView;

/** The error body of every refused request. */
export interface ApiErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}
