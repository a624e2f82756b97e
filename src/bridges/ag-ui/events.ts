/**
 * The AG-UI events this bridge produces, typed structurally (plain JSON with the protocol's
 * string discriminators) so the declarations compile without the optional `@ag-ui/core`. Each
 * one is a valid `@ag-ui/core` 1.0 event: the tests check every emitted event against the
 * package's own `EventSchemas`.
 */
import type { ApprovalOption, PlanEntry, Question } from "../../events/types.js";
import type { Usage } from "../../events/usage.js";

/** Fields every AG-UI event may carry. */
export interface AgUiEventBase {
  /** Epoch milliseconds: the canonical event's `at`. */
  timestamp?: number;
  metadata?: Record<string, unknown>;
}

/** One JSON Patch operation (RFC 6902), as `STATE_DELTA` carries them. */
export type AgUiPatchOperation =
  | { op: "add" | "replace"; path: string; value: unknown }
  | { op: "remove"; path: string };

/** Something the run waits for: an approval or a question, answered by a later run's `resume`. */
export interface AgUiInterrupt {
  /** The canonical request id (`approval.requested` / `question.requested`). */
  id: string;
  /** `"tool_approval"` or `"user_input"`. */
  reason: string;
  message?: string;
  /** The tool call the approval is for, when the provider named one this run announced. */
  toolCallId?: string;
  /** A JSON Schema of the resume payload this interrupt accepts. */
  responseSchema?: Record<string, unknown>;
  /** ISO 8601: when the paused run is cancelled unless resumed. */
  expiresAt?: string;
  metadata?: Record<string, unknown>;
}

export type AgUiRunOutcome =
  | { type: "success" }
  | { type: "interrupt"; interrupts: AgUiInterrupt[] }
  | { type: "cancelled" };

/** AG-UI token usage for one provider and model. */
export interface AgUiTokenUsage {
  provider?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
}

/** The AG-UI events `toAgUi` and the endpoint emit. */
export type AgUiEvent = AgUiEventBase &
  (
    | { type: "RUN_STARTED"; threadId: string; runId: string; input?: unknown }
    | { type: "RUN_FINISHED"; threadId: string; runId: string; result?: unknown; outcome?: AgUiRunOutcome; usage?: AgUiTokenUsage[] }
    | { type: "RUN_ERROR"; message: string; code?: string }
    | { type: "TEXT_MESSAGE_START"; messageId: string; role: "assistant" }
    | { type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: string }
    | { type: "TEXT_MESSAGE_END"; messageId: string }
    | { type: "REASONING_START"; messageId: string }
    | { type: "REASONING_MESSAGE_START"; messageId: string; role: "reasoning" }
    | { type: "REASONING_MESSAGE_CONTENT"; messageId: string; delta: string }
    | { type: "REASONING_MESSAGE_END"; messageId: string }
    | { type: "REASONING_END"; messageId: string }
    | { type: "TOOL_CALL_START"; toolCallId: string; toolCallName: string }
    | { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string }
    | { type: "TOOL_CALL_END"; toolCallId: string }
    | { type: "TOOL_CALL_RESULT"; messageId: string; toolCallId: string; content: string; role: "tool" }
    | { type: "STATE_SNAPSHOT"; snapshot: Record<string, unknown> }
    | { type: "STATE_DELTA"; delta: AgUiPatchOperation[] }
    | { type: "CUSTOM"; name: string; value: unknown }
  );

export type AgUiEventType = AgUiEvent["type"];

/** A pending approval as the shared state lists it. */
export interface AgUiPendingApproval {
  requestId: string;
  kind: "command" | "file_change" | "permissions" | "tool";
  callId?: string;
  summary: string;
  options: ApprovalOption[];
}

/** A pending question request as the shared state lists it. */
export interface AgUiPendingQuestion {
  requestId: string;
  questions: Question[];
}

/**
 * What the bridge keeps in the AG-UI shared state, under the key `agentAdaptor` (the rest of the
 * state is the client's, left as it was): the plan, the approvals and questions waiting for an
 * answer, and the latest usage.
 */
export interface AgUiRunState {
  plan: PlanEntry[];
  pendingApprovals: AgUiPendingApproval[];
  pendingQuestions: AgUiPendingQuestion[];
  usage?: Usage;
}

/** The key of {@link AgUiRunState} in the AG-UI state. */
export const AG_UI_STATE_KEY = "agentAdaptor";
