/**
 * The AI SDK's UI message stream chunks this bridge writes, typed here by hand so the bridge needs
 * no `ai` at runtime or to compile. Each member is assignable to the `ai` package's
 * `UIMessageChunk<AgentUIMessageMetadata, AgentUIDataTypes>` (test/bridges/ai-sdk-types.test.ts
 * checks it against ai 6).
 */
import type { ApprovalDecision, ApprovalOption, PlanEntry, Question, RequestResolver } from "../../events/types.js";
import type { NoticeCode } from "../../events/notice-codes.js";
import type { Usage } from "../../events/usage.js";
import type { ErrorCode } from "../../errors/codes.js";

/** The message metadata the bridge sets: `start` carries the run, `finish` its outcome. */
export interface AgentUIMessageMetadata {
  /** The run the message shows: what the actions endpoint is answered with. */
  runId?: string;
  threadId?: string;
  driver?: string;
  model?: string;
  providerSessionId?: string;
  usage?: Usage;
  durationMs?: number;
  /** How the run ended. */
  status?: "completed" | "failed" | "cancelled";
  /** `status: "failed"`: the error's code. */
  errorCode?: ErrorCode;
}

/** An approval request as a data part (`data-approval`, id = `requestId`): updated in place when it is resolved. */
export interface AgentUIApprovalData {
  requestId: string;
  runId: string;
  kind: "command" | "file_change" | "permissions" | "tool";
  summary: string;
  options: ApprovalOption[];
  /** The tool call it is about: its tool part shows the AI SDK's `approval-requested` state. */
  callId?: string;
  status: "pending" | "resolved";
  decision?: ApprovalDecision;
  by?: RequestResolver;
}

/** A question request as a data part (`data-question`, id = `requestId`): updated in place when it is resolved. */
export interface AgentUIQuestionData {
  requestId: string;
  runId: string;
  questions: Question[];
  status: "pending" | "answered" | "declined";
  by?: RequestResolver;
}

export interface AgentUINoticeData {
  level: "info" | "warning";
  code: NoticeCode;
  message: string;
  count?: number;
}

/** The data parts the bridge writes, by name (`data-<name>`): the `DATA_TYPES` of a `UIMessage`. */
export type AgentUIDataTypes = {
  approval: AgentUIApprovalData;
  question: AgentUIQuestionData;
  plan: { entries: PlanEntry[] };
  usage: Usage;
  notice: AgentUINoticeData;
};

/** What a tool part's `toolMetadata` holds: the canonical fields a UI renders a call by. */
export type AgentUIToolMetadata = {
  kind: string;
  command?: string;
  cwd?: string;
  mcpServer?: string;
  mcpTool?: string;
};

/** The output of a tool part once its call ended (or, `preliminary`, while it runs). */
export type AgentUIToolOutput = {
  status: "running" | "completed";
  /** The output text (while running: the latest part of it, at most 16 KiB). */
  output?: string;
  exitCode?: number;
  files?: { path: string; change: "added" | "modified" | "deleted"; movedFrom?: string; diff?: string }[];
};

type DataChunk = { [K in keyof AgentUIDataTypes]: { type: `data-${K}`; id?: string; data: AgentUIDataTypes[K]; transient?: boolean } }[keyof AgentUIDataTypes];

/** One chunk of the AI SDK UI message stream protocol (v1), as this bridge writes it. */
export type AgentUIMessageChunk =
  | { type: "start"; messageId?: string; messageMetadata?: AgentUIMessageMetadata }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-start"; toolCallId: string; toolName: string; dynamic: true; title?: string; toolMetadata?: AgentUIToolMetadata }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown; dynamic: true; title?: string; toolMetadata?: AgentUIToolMetadata }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | { type: "tool-output-available"; toolCallId: string; output: AgentUIToolOutput; dynamic: true; preliminary?: boolean }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; dynamic: true }
  | { type: "tool-output-denied"; toolCallId: string }
  | DataChunk
  | { type: "message-metadata"; messageMetadata: AgentUIMessageMetadata }
  | { type: "finish"; finishReason?: "stop" | "error" | "other"; messageMetadata?: AgentUIMessageMetadata }
  | { type: "error"; errorText: string }
  | { type: "abort"; reason?: string };
