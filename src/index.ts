/**
 * agent-adaptor: drive the coding agents people already run through one provider-neutral API.
 * Every public export is listed by name.
 */
export { createAgent } from "./agent/agent.js";
export type { Agent } from "./agent/agent.js";
export type { RunStream } from "./agent/run-stream.js";
export type { Thread, ThreadCallOptions } from "./agent/thread.js";
export type { GoalCallOptions, GoalControl } from "./agent/thread-goals.js";
export type { Goal, GoalOperation, GoalResponse, GoalStatus, SettableGoalStatus } from "./driver/goals.js";
export type {
  HistoryInput,
  HistoryOptions,
  HistoryPage,
  HistoryTurn,
  NewHistoryTurn,
  NewThreadRecord,
  ThreadCheckpoint,
  ThreadLease,
  ThreadListOptions,
  ThreadRecord,
  ThreadStore,
} from "./thread/store.js";
export { PROVIDER_STATE_MAX_BYTES } from "./thread/store.js";
export { memoryThreadStore } from "./thread/stores/memory.js";
export type { MemoryThreadStoreOptions } from "./thread/stores/memory.js";
export { sqliteThreadStore, SQLITE_THREAD_SCHEMA_VERSION } from "./thread/stores/sqlite.js";
export type { SqliteThreadStore, SqliteThreadStoreOptions } from "./thread/stores/sqlite.js";
export { postgresThreadStore, POSTGRES_THREAD_SCHEMA_VERSION } from "./thread/stores/postgres.js";
export type {
  PostgresClientLike,
  PostgresPoolLike,
  PostgresQuery,
  PostgresQueryResult,
  PostgresThreadStore,
  PostgresThreadStoreOptions,
} from "./thread/stores/postgres.js";
export { createSession, openSession, DEFAULT_IDLE_SLEEP_MS, DEFAULT_INBOX_CAP, DEFAULT_OWNER_TTL_MS, MIN_IDLE_SLEEP_MS } from "./session/index.js";
export type {
  Budget,
  GateState,
  Guardrails,
  NewSessionRecord,
  OpenSessionOptions,
  QueuedPrompt,
  ResumeOptions,
  Session,
  SessionEvent,
  SessionNotice,
  SessionOptions,
  SessionPatch,
  SessionRecord,
  SessionRunOptions,
  SessionSettings,
  SessionState,
  SessionStatus,
  SessionStore,
  SleepReason,
  SubmitOptions,
} from "./session/index.js";
export {
  memorySessionStore,
  sqliteSessionStore,
  SQLITE_SESSION_SCHEMA_VERSION,
  postgresSessionStore,
  POSTGRES_SESSION_SCHEMA_VERSION,
} from "./session/stores/index.js";
export type {
  MemorySessionStoreOptions,
  SqliteDatabaseLike,
  SqliteSessionStore,
  SqliteSessionStoreOptions,
  PostgresSessionStore,
  PostgresSessionStoreOptions,
} from "./session/stores/index.js";
export { input, InputRef, InputError, DEFAULT_INPUT_LIMITS } from "./input/index.js";
export type {
  InputDiagnostic,
  InputDiagnosticHandler,
  InputErrorCode,
  InputErrorDetails,
  InputOpener,
  InputOpenerOptions,
  InputRefOptions,
  InputSourceStream,
} from "./input/index.js";
export type { Result, RawRecord, ResultSummary } from "./events/types.js";
export type { AgentOptions, CallDefaults, CallOptions, EventBufferOptions } from "./agent/options.js";
export type { WatchdogOptions } from "./agent/watchdogs.js";
export type { AgentObserver, ObservedOperation, ObservedRun, RunObservation } from "./agent/observers.js";
export type { OutputMode, OutputOption, OutputSchema, OutputSpec, StructuredOf } from "./agent/structured/types.js";
export type {
  ApprovalHandler,
  ApprovalRequest,
  HostApprovalRequest,
  HostUserInputRequest,
  RequestOrigin,
  InputLimits,
  InstructionBundle,
  JsonSchema,
  HostTool,
  HostToolContext,
  McpServerConfig,
  Policy,
  SkillRef,
  ToolArgs,
  ToolDeclaration,
  ToolInputSchema,
  UserInputAnswer,
  UserInputHandler,
  UserInputRequest,
} from "./driver/vocabulary.js";
export { hostTool } from "./resources/host-tools/define.js";
/** The MCP server name host tools reach the provider under (their `tool.*` events' `mcp.server`). */
export { HOST_TOOLS_SERVER_NAME } from "./resources/host-tools/server-name.js";

export type {
  AgentEvent,
  ApprovalDecision,
  ApprovalOption,
  ApprovalResponse,
  DriverEvent,
  DriverEventType,
  EventBase,
  EventOf,
  EventPayloads,
  EventType,
  FileChange,
  McpToolRef,
  PlanEntry,
  Provenance,
  Question,
  RequestResolver,
  RunFailure,
  TerminalEvent,
  TerminalEventType,
  ToolCompleted,
  ToolKind,
  ToolStarted,
  ToolUpdated,
} from "./events/types.js";
export { EVENT_TYPES, EVENTS_SCHEMA_VERSION, TERMINAL_EVENT_TYPES, isTerminalEvent } from "./events/types.js";
export type { Usage } from "./events/usage.js";
export { USAGE_KEYS } from "./events/usage.js";

export type {
  AuthMethodInfo,
  AuthReport,
  ConfigurationReport,
  ConfigurationSettings,
  DriverInfo,
  EffortInfo,
  EnvironmentReport,
  Evidence,
  Inspection,
  McpReport,
  McpServerStatus,
  ModelInfo,
  NativeCommandInfo,
  Observation,
  ObservationReason,
  ObservationStatus,
  PanelName,
  PrepareReport,
  ProfileSnapshot,
  ProviderCapabilities,
  QuotaReport,
  QuotaWindow,
  ReasonCode,
  SkillInfo,
  SkillSnapshot,
} from "./inspect/types.js";
export { PANEL_NAMES } from "./inspect/types.js";
export { allUnavailable, observed, unavailable, unsupported } from "./driver/observations.js";

export type { DeliveryMode, InputKind } from "./input/kinds.js";
export type {
  CompactSupport,
  Descriptor,
  Driver,
  EventSink,
  FeatureSupport,
  GoalRequest,
  HostToolsEndpoint,
  HostToolsLink,
  InputKindCapability,
  InspectRequest,
  InspectResponse,
  ModelDefaults,
  PrepareRequest,
  PrepareResponse,
  ProviderStateHandle,
  ResolvedInput,
  ResolvedResources,
  ResourceSupport,
  RewindRequest,
  RunOperation,
  RunRequest,
  RunResponse,
  StandbyHandle,
  StandbyUse,
  TraceContext,
} from "./driver/types.js";

export {
  AdaptorError,
  AgentClosedError,
  AuthRequiredError,
  ConfigError,
  DriverContractError,
  ExecutableNotFoundError,
  FeatureUnsupportedError,
  LeaseLostError,
  ThreadBusyError,
  ThreadExistsError,
  ThreadIncompatibleError,
  ThreadNotFoundError,
  ProtocolError,
  ProviderError,
  RunCancelledError,
  RunFailedError,
  OutputInvalidError,
  StoreError,
  ResponseRejectedError,
  SessionExistsError,
  SessionNotFoundError,
  SubscriberTooSlowError,
  SessionError,
  BudgetExhaustedError,
} from "./errors/index.js";
export type { BudgetCeiling, SessionErrorCode } from "./errors/index.js";
export type { DeliveryPhase, OutputIssueInfo, PartialRunOutcome, ProtocolErrorCode, ResponseRejectedCode, StoreErrorCode } from "./errors/index.js";
/** The kind of resource a `FeatureUnsupportedError` names (`resource.kind`). */
export type { UnsupportedResourceKind } from "./errors/index.js";
/** One setting a stored thread and the agent opening it disagree on (`ThreadIncompatibleError.mismatches`). */
export type { ThreadMismatch } from "./errors/index.js";
export { ERROR_CODES, isErrorCode } from "./errors/index.js";
/** The error a JSON-RPC peer (Codex app-server, an ACP agent) answered with; `rpcCode` holds its code. */
export { JsonRpcError } from "./process/jsonrpc-error.js";
export type { DriverFamily, ErrorClassName, ErrorCode, ErrorCodeInfo, ErrorCodeOf, SharedErrorCode } from "./errors/index.js";
export { NOTICE_CODES, isNoticeCode } from "./events/notice-codes.js";
export type { NoticeCode, NoticeCodeInfo, NoticeCodeOf, SharedNoticeCode } from "./events/notice-codes.js";
