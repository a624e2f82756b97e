/**
 * `agent-adaptor/events`: the wire contract of run events for hosts that only receive them, such
 * as a browser front end. Types, type guards, a reducer and the versioned schemas, with no Node
 * import anywhere in its module graph (test/events/browser-entry.test.ts keeps it so).
 *
 * @packageDocumentation
 */
export type {
  AgentEvent,
  ApprovalDecision,
  ApprovalOption,
  ApprovalResponse,
  EventBase,
  EventOf,
  EventPayloads,
  EventType,
  FileChange,
  McpToolRef,
  NativeCommandInfo,
  PlanEntry,
  Provenance,
  Question,
  RequestResolver,
  ResultSummary,
  RunFailure,
  TerminalEvent,
  TerminalEventType,
  ToolCompleted,
  ToolKind,
  ToolStarted,
  ToolUpdated,
} from "./types.js";
export { EVENTS_SCHEMA_VERSION, EVENT_TYPES, TERMINAL_EVENT_TYPES } from "./types.js";
export type { Usage } from "./usage.js";
export { USAGE_KEYS } from "./usage.js";
export type { NoticeCode } from "./notice-codes.js";
export type { ErrorCode } from "../errors/codes.js";
export { isAgentEvent, isDeltaEvent, isEventType, isKnownEventType, isRequestEvent, isTerminalEvent, isToolEvent } from "./guards.js";
export { foldRunEvents, initialRunState, reduceRunEvent } from "./reducer.js";
export type { NoticeState, PendingApproval, PendingQuestion, RunState, TextItemState, ToolCallState } from "./reducer.js";
export { agentEventJsonSchema, agentEventSchema, agentEventSchemas, exactAgentEventSchema, exactAgentEventSchemas } from "./schema.js";
export type { AgentEventSchemas, JsonSchemaDocument } from "./schema.js";
