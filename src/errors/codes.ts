/**
 * The one table of error codes. Every `AdaptorError.code` is a key of {@link ERROR_CODES}, so a
 * host can branch on a closed union and a misspelt code fails to compile. docs/api.md's code
 * table is generated from this module (`node scripts/gen-codes-doc.mjs --update`), so it must
 * stay plain data with no runtime imports.
 *
 * A code that only some driver families raise names them in `drivers`; each driver types its own
 * codes as `ErrorCodeOf<"family">`. Adding a code is one row here — the table is the extension
 * point, which keeps the union closed without the errors layer importing any driver.
 */

/** The driver families that may contribute codes of their own (claude and codebuddy are stream-json). */
export type DriverFamily = "codex" | "acp" | "stream-json" | "pi" | "openai" | "fake";

/** The error classes a code is raised as. */
export type ErrorClassName =
  | "AgentClosedError"
  | "AuthRequiredError"
  | "BudgetExhaustedError"
  | "ConfigError"
  | "DriverContractError"
  | "ExecutableNotFoundError"
  | "FeatureUnsupportedError"
  | "InputError"
  | "JsonRpcError"
  | "LeaseLostError"
  | "OutputInvalidError"
  | "ProtocolError"
  | "ProviderError"
  | "ResponseRejectedError"
  | "RunCancelledError"
  | "SessionError"
  | "SessionExistsError"
  | "SessionNotFoundError"
  | "StoreError"
  | "SubscriberTooSlowError"
  | "ThreadBusyError"
  | "ThreadExistsError"
  | "ThreadIncompatibleError"
  | "ThreadNotFoundError";

/** One row of {@link ERROR_CODES}. */
export interface ErrorCodeInfo {
  /** What went wrong, in one line. */
  readonly meaning: string;
  /** The class that carries the code (a run that ends with it also rejects with `RunFailedError`). */
  readonly errorClass: ErrorClassName;
  /** Whether the same call may succeed later unchanged; `"varies"` when the instance's `retryable` says. */
  readonly retryable: boolean | "varies";
  /** The driver families that raise it; absent when core, the SPI or any driver may. */
  readonly drivers?: readonly DriverFamily[];
}

/** Every error code an `AdaptorError` may carry, with its meaning, class, retryability and owning drivers. */
export const ERROR_CODES = {
  // --- configuration and lifecycle -------------------------------------------------------------
  config_invalid: { meaning: "an option or driver config is invalid or cannot be honoured", errorClass: "ConfigError", retryable: false },
  option_scope: { meaning: "an option was given where it is not accepted (agent vs call)", errorClass: "ConfigError", retryable: false },
  agent_closed: { meaning: "a verb was called after `close()` began", errorClass: "AgentClosedError", retryable: false },
  driver_contract: { meaning: "a driver broke the Driver SPI contract", errorClass: "DriverContractError", retryable: false },
  feature_unsupported: { meaning: "the driver does not support the feature natively", errorClass: "FeatureUnsupportedError", retryable: false },
  run_cancelled: { meaning: "the run was cancelled", errorClass: "RunCancelledError", retryable: false },
  // --- answering approvals and questions from the stream ------------------------------------------
  request_not_pending: { meaning: "no request with that id is waiting for an answer (unknown, or already settled)", errorClass: "ResponseRejectedError", retryable: false },
  approval_timeout: { meaning: "the request waited longer than `approvalTimeoutMs` and was denied (a question declined)", errorClass: "ResponseRejectedError", retryable: false },
  response_invalid: { meaning: "the answer does not fit the request (an option it did not offer, an unknown question)", errorClass: "ResponseRejectedError", retryable: false },
  executable_not_found: { meaning: "the provider executable could not be found or started", errorClass: "ExecutableNotFoundError", retryable: false },
  auth_required: { meaning: "the provider needs a login or credentials that are not present", errorClass: "AuthRequiredError", retryable: false },
  driver_closed: { meaning: "the driver was closed before the process could be used", errorClass: "ProviderError", retryable: false },
  // --- the provider ------------------------------------------------------------------------------
  provider_error: { meaning: "the provider reported a failure with no more specific code", errorClass: "ProviderError", retryable: "varies" },
  provider_exited: { meaning: "the provider process exited before the turn or request finished", errorClass: "ProviderError", retryable: "varies" },
  provider_unreachable: { meaning: "the provider could not reach the model service", errorClass: "ProviderError", retryable: true },
  timeout: { meaning: "the provider did not answer within the configured time", errorClass: "ProviderError", retryable: true },
  malformed_response: { meaning: "the provider answered a request with a result the protocol does not allow", errorClass: "ProviderError", retryable: false },
  method_unsupported: { meaning: "the provider does not implement the command it was sent", errorClass: "ProviderError", retryable: false },
  steer_rejected: { meaning: "no turn of that run is in flight to steer", errorClass: "ProviderError", retryable: false, drivers: ["codex", "pi", "openai"] },
  config_value_unavailable: { meaning: "the requested model or effort is not offered by the provider", errorClass: "ProviderError", retryable: false, drivers: ["acp", "pi"] },
  config_value_rejected: { meaning: "the provider did not confirm the requested model or effort", errorClass: "ProviderError", retryable: false, drivers: ["acp", "pi"] },
  config_option_unsupported: { meaning: "the agent offers no session config option for the requested model or effort", errorClass: "ProviderError", retryable: false, drivers: ["acp"] },
  standby_unavailable: { meaning: "the prepared standby was claimed or its process is gone", errorClass: "ProviderError", retryable: false, drivers: ["codex"] },
  context_window_exceeded: { meaning: "the conversation no longer fits the model's context window", errorClass: "ProviderError", retryable: false, drivers: ["codex", "openai"] },
  usage_limit: { meaning: "the account's usage limit or session budget is spent", errorClass: "ProviderError", retryable: false, drivers: ["codex"] },
  rate_limited: { meaning: "the model service rate-limited the request", errorClass: "ProviderError", retryable: true, drivers: ["codex", "stream-json", "openai"] },
  unauthorized: { meaning: "the login has no right to the requested resource (HTTP 403)", errorClass: "ProviderError", retryable: false, drivers: ["codex", "openai"] },
  model_not_found: { meaning: "the model service does not know the model", errorClass: "ProviderError", retryable: false, drivers: ["codex", "openai"] },
  provider_overloaded: { meaning: "the model service is overloaded or out of capacity", errorClass: "ProviderError", retryable: true, drivers: ["codex", "stream-json", "openai"] },
  provider_session_not_found: { meaning: "the provider has no session with the thread's provider session id", errorClass: "ProviderError", retryable: false, drivers: ["codex", "stream-json", "acp", "openai"] },
  policy_violation: { meaning: "the model service refused the request under a usage policy", errorClass: "ProviderError", retryable: false, drivers: ["codex"] },
  too_many_denials: { meaning: "the provider stopped the turn after too many denied approvals", errorClass: "ProviderError", retryable: false, drivers: ["codex"] },
  sandbox_error: { meaning: "the provider's sandbox failed", errorClass: "ProviderError", retryable: false, drivers: ["codex"] },
  phantom_turn: { meaning: "the agent answered with an empty turn left over from a cancelled prompt", errorClass: "ProviderError", retryable: true, drivers: ["acp"] },
  refusal: { meaning: "the agent refused to continue (stop reason refusal)", errorClass: "ProviderError", retryable: false, drivers: ["acp"] },
  idle_timeout: { meaning: "the provider sent nothing for longer than the idle watchdog allows (`watchdogs.idleMs`)", errorClass: "ProviderError", retryable: false },
  hard_cap: { meaning: "the run exceeded the hard cap on its duration (`watchdogs.hardCapMs`)", errorClass: "ProviderError", retryable: false },
  repeat_tool_loop: { meaning: "the agent made the same tool call as many times in a row as allowed (`watchdogs.repeatToolLimit`)", errorClass: "ProviderError", retryable: false },
  mcp_server_failed: { meaning: "an MCP server of the agent could not be started or listed, so the run did not start without it", errorClass: "ProviderError", retryable: false, drivers: ["openai"] },
  control_error: { meaning: "the CLI refused a control request", errorClass: "ProviderError", retryable: false, drivers: ["stream-json"] },
  max_turns: { meaning: "the CLI stopped the turn at its maximum number of turns", errorClass: "ProviderError", retryable: false, drivers: ["stream-json", "openai"] },
  budget_exceeded: { meaning: "the CLI stopped the turn at its maximum budget", errorClass: "ProviderError", retryable: false, drivers: ["stream-json"] },
  output_invalid: { meaning: "the run's final answer is not JSON or does not match the `output` schema (raw text in `partial.text`)", errorClass: "OutputInvalidError", retryable: true },
  structured_output_failed: { meaning: "the CLI gave up producing output that matches the schema", errorClass: "ProviderError", retryable: false, drivers: ["stream-json"] },
  session_workspace_mismatch: { meaning: "the session to resume was recorded in another workspace", errorClass: "ProviderError", retryable: false, drivers: ["stream-json"] },
  // --- the wire ----------------------------------------------------------------------------------
  protocol_error: { meaning: "the provider stream violated its protocol", errorClass: "ProtocolError", retryable: false },
  frame_too_large: { meaning: "a line of provider output exceeded the frame size limit", errorClass: "ProtocolError", retryable: false },
  invalid_json: { meaning: "a line of provider output is not valid JSON", errorClass: "ProtocolError", retryable: false },
  invalid_utf8: { meaning: "a line of provider output is not valid UTF-8", errorClass: "ProtocolError", retryable: false },
  peer_exited: { meaning: "the peer process exited or closed its input", errorClass: "ProtocolError", retryable: false },
  request_cancelled: { meaning: "a request was cancelled, or its connection closed, before an answer", errorClass: "ProtocolError", retryable: false },
  jsonrpc_error: { meaning: "the JSON-RPC peer answered with an error (`rpcCode` holds its code)", errorClass: "JsonRpcError", retryable: false },
  // --- threads and stores ------------------------------------------------------------------------
  thread_not_found: { meaning: "no thread with that id exists in the store", errorClass: "ThreadNotFoundError", retryable: false },
  thread_exists: { meaning: "a thread with that id already exists", errorClass: "ThreadExistsError", retryable: false },
  thread_busy: { meaning: "another run holds the thread's lease", errorClass: "ThreadBusyError", retryable: true },
  thread_incompatible: { meaning: "the thread was created under an incompatible configuration", errorClass: "ThreadIncompatibleError", retryable: false },
  lease_lost: { meaning: "the caller's lease expired or was taken over", errorClass: "LeaseLostError", retryable: false },
  store_unavailable: { meaning: "the store cannot be opened or reached", errorClass: "StoreError", retryable: "varies" },
  store_auth_failed: { meaning: "the database refused the credentials or role", errorClass: "StoreError", retryable: false },
  store_read_only: { meaning: "the database or its directory cannot be written", errorClass: "StoreError", retryable: false },
  store_corrupt: { meaning: "not a database, or a damaged one", errorClass: "StoreError", retryable: false },
  store_busy: { meaning: "locked past the busy timeout, or no connection free", errorClass: "StoreError", retryable: true },
  store_schema_newer: { meaning: "the store was written by a newer schema version", errorClass: "StoreError", retryable: false },
  store_closed: { meaning: "the store was closed", errorClass: "StoreError", retryable: false },
  store_failed: { meaning: "anything else the database reported", errorClass: "StoreError", retryable: false },
  store_seq_conflict: { meaning: "appended session events do not continue the stored log (a gap or a duplicate `seq`)", errorClass: "StoreError", retryable: false },
  provider_state_too_large: { meaning: "a driver's thread-scoped provider state is over its size limit (nothing was written)", errorClass: "StoreError", retryable: false },
  // --- sessions and their event logs ------------------------------------------------------------
  session_not_found: { meaning: "no session with that id exists in the store", errorClass: "SessionNotFoundError", retryable: false },
  session_exists: { meaning: "a session with that id already exists", errorClass: "SessionExistsError", retryable: false },
  subscriber_too_slow: { meaning: "a live event subscriber fell further behind than its buffer and was dropped (`lastSeq` is the last event it got)", errorClass: "SubscriberTooSlowError", retryable: true },
  session_archived: { meaning: "the session is archived and refuses all input", errorClass: "SessionError", retryable: false },
  session_closed: { meaning: "the session was closed in this process (the record stays; `openSession` drives it again)", errorClass: "SessionError", retryable: false },
  session_busy: { meaning: "the session has a run in flight, so the call cannot act now", errorClass: "SessionError", retryable: true },
  session_owned: { meaning: "another host drives the session; it may take over once that host's ownership expires", errorClass: "SessionError", retryable: true },
  budget_exhausted: { meaning: "a session or run ceiling is tripped: new runs are refused until `addBudget` or `resetRunCeiling`", errorClass: "BudgetExhaustedError", retryable: false },
  // --- inputs -----------------------------------------------------------------------------------
  input_invalid: { meaning: "a bad input argument, or content contradicting its media type", errorClass: "InputError", retryable: false },
  input_kind_unsupported: { meaning: "the driver does not accept this kind of input", errorClass: "InputError", retryable: false },
  input_media_type_unsupported: { meaning: "the driver does not accept this media type for this kind", errorClass: "InputError", retryable: false },
  input_mode_unsupported: { meaning: "the required delivery mode is not available for this kind", errorClass: "InputError", retryable: false },
  input_too_large: { meaning: "a count or byte limit was exceeded (`limit` holds it)", errorClass: "InputError", retryable: false },
  input_digest_mismatch: { meaning: "the content's size or SHA-256 differs from what was declared", errorClass: "InputError", retryable: false },
  input_materialization_failed: { meaning: "the source could not be read, or changed while it was copied", errorClass: "InputError", retryable: false },
} as const satisfies Record<string, ErrorCodeInfo>;

/** Every code an {@link AdaptorError} may carry. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes core, the SPI and every driver may raise (rows without `drivers`). */
export type SharedErrorCode = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C] extends { readonly drivers: readonly DriverFamily[] } ? never : C;
}[ErrorCode];

/** The codes of driver family `F` beyond the shared ones (rows whose `drivers` name `F`). */
export type ErrorCodeOf<F extends DriverFamily> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C] extends { readonly drivers: readonly (infer D)[] } ? (F extends D ? C : never) : never;
}[ErrorCode];

/** Whether `value` is a code of the table (for codes read back from storage or another process). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}
