/**
 * Typed errors. Every error thrown by agent-adaptor extends {@link AdaptorError} and carries a
 * stable `code`; branch on `err.code`, or on `AdaptorError.is(err)` when several copies of the
 * package may be loaded (where `instanceof` fails). Messages never contain secrets, input paths,
 * file contents or raw provider payloads.
 */

import type { ErrorCode } from "./codes.js";

export { ERROR_CODES, isErrorCode } from "./codes.js";
export type { DriverFamily, ErrorClassName, ErrorCode, ErrorCodeInfo, ErrorCodeOf, SharedErrorCode } from "./codes.js";

const MARKER = Symbol.for("agent-adaptor.error");

/** Whether a failure happened before or after the prompt may have reached the provider. */
export type DeliveryPhase = "before_delivery" | "after_delivery";

/** Base of every error agent-adaptor throws. */
export class AdaptorError extends Error {
  /** Stable machine-readable code, e.g. `"agent_closed"`: one of {@link ERROR_CODES}. */
  readonly code: ErrorCode;
  /** The run this error ended, when it ended one. */
  declare readonly runId?: string;
  /** For an error that ended a run: whether the prompt may have reached the provider. */
  declare readonly phase?: DeliveryPhase;
  readonly [MARKER] = true;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  /** `instanceof` that also works across duplicated package copies. */
  static is(value: unknown): value is AdaptorError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Invalid configuration or option, detected before anything starts. Codes: `config_invalid`, `option_scope`. */
export class ConfigError extends AdaptorError {
  constructor(message: string, code: "config_invalid" | "option_scope" = "config_invalid", options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** A verb was called after `close()` began. */
export class AgentClosedError extends AdaptorError {
  constructor(message = "the agent is closed") {
    super("agent_closed", message);
  }
}

/** A driver broke the Driver SPI contract (events after a terminal, an observed panel without evidence, ...). */
export class DriverContractError extends AdaptorError {
  readonly driver: string;
  constructor(driver: string, message: string) {
    super("driver_contract", `driver ${driver}: ${message}`);
    this.driver = driver;
  }
}

/** The provider reported or caused a failure. */
export class ProviderError extends AdaptorError {
  readonly retryable: boolean;
  override readonly phase: DeliveryPhase;
  constructor(
    message: string,
    options: { code?: ErrorCode; retryable?: boolean; phase?: DeliveryPhase; cause?: unknown } = {},
  ) {
    super(options.code ?? "provider_error", message, { cause: options.cause });
    this.retryable = options.retryable ?? false;
    this.phase = options.phase ?? "after_delivery";
  }
}

/** The provider executable could not be found or started. */
export class ExecutableNotFoundError extends AdaptorError {
  /** The path (or command name) that was tried. */
  readonly executable: string;
  /** How to install the provider, e.g. `npm install -g @openai/codex`, when the driver knows. */
  readonly install?: string;
  constructor(executable: string, message = `executable not found: ${executable}`, options: { install?: string; cause?: unknown } = {}) {
    super("executable_not_found", options.install === undefined ? message : `${message}; install it with: ${options.install}`, { cause: options.cause });
    this.executable = executable;
    if (options.install !== undefined) this.install = options.install;
  }

  /** The failure without the path tried, for snapshots shown beyond the operator (inspection panels). */
  get summary(): string {
    const what = this.message.startsWith("executable not found") ? "the provider executable was not found" : "the provider executable could not be started";
    return this.install === undefined ? what : `${what}; install it with: ${this.install}`;
  }

  /**
   * `error` restated to name the path tried and how to install the provider; any other error is
   * returned unchanged. Drivers wrap their launch with it.
   */
  static explain(error: unknown, install: string): unknown {
    if (!(error instanceof ExecutableNotFoundError) || error.install !== undefined) return error;
    const reason = error.message.startsWith("executable not found") ? "executable not found" : error.message.replace(/:.*$/, "");
    const explained = new ExecutableNotFoundError(error.executable, `${reason}: ${error.executable}`, { install });
    // The spawn failure stays available for debugging without being part of the message.
    Object.defineProperty(explained, "cause", { value: error.cause, enumerable: false, configurable: true, writable: true });
    return explained;
  }
}

/** The provider needs a login or credentials that are not present. */
export class AuthRequiredError extends AdaptorError {
  /** The login command or the environment variable that provides credentials, when known. */
  readonly remedy?: string;
  constructor(message = "the provider requires authentication", options: { remedy?: string; cause?: unknown } = {}) {
    super("auth_required", options.remedy === undefined ? message : `${message}; ${options.remedy}`, { cause: options.cause });
    if (options.remedy !== undefined) this.remedy = options.remedy;
  }
}

/** The codes of a {@link ProtocolError}. */
export type ProtocolErrorCode = "protocol_error" | "frame_too_large" | "invalid_json" | "invalid_utf8" | "peer_exited" | "request_cancelled";

/** A protocol-level violation on a provider stream. */
export class ProtocolError extends AdaptorError {
  declare readonly code: ProtocolErrorCode;
  constructor(message: string, code: ProtocolErrorCode = "protocol_error", options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** A run was cancelled (by `cancel()`, an aborted signal, or breaking out of the stream). */
export class RunCancelledError extends AdaptorError {
  constructor(message = "the run was cancelled") {
    super("run_cancelled", message);
  }
}

/**
 * Stamp an error that ended run `runId` before the prompt could be delivered, so the host sees
 * the failure as itself (an `InputError`, a `ConfigError`, ...) and still knows which run it ended.
 */
export function markRunRefusal<E extends AdaptorError>(error: E, runId: string): E {
  Object.defineProperty(error, "runId", { value: runId, enumerable: true, configurable: true });
  Object.defineProperty(error, "phase", { value: "before_delivery", enumerable: true, configurable: true });
  return error;
}

/** What a failed run produced before it failed. */
export interface PartialRunOutcome {
  runId: string;
  /** Assistant text received so far. */
  text: string;
  providerSessionId?: string;
}

/**
 * A run ended with `run.failed`. `code` is the failure's code (`provider_error`,
 * `driver_contract`, ...); `phase` says whether the prompt may have reached the provider.
 */
export class RunFailedError extends AdaptorError {
  override readonly phase: DeliveryPhase;
  readonly retryable: boolean;
  readonly partial: PartialRunOutcome;
  constructor(
    failure: { code: ErrorCode; message: string; phase: DeliveryPhase; retryable: boolean },
    partial: PartialRunOutcome,
    options?: { cause?: unknown },
  ) {
    super(failure.code, failure.message, options);
    this.phase = failure.phase;
    this.retryable = failure.retryable;
    this.partial = partial;
  }
}

/** One reason a structured value was refused: the schema's message and where in the value. */
export interface OutputIssueInfo {
  readonly message: string;
  /** Keys and indexes from the value's root to the offending member; empty for the root. */
  readonly path: readonly (string | number)[];
}

/**
 * The run completed at the provider but its answer is not the structured output the call's
 * `output` asked for: not a JSON value, or refused by the schema (`issues`, empty when not JSON).
 * Code `output_invalid`; the raw final message is in `partial.text`.
 */
export class OutputInvalidError extends RunFailedError {
  readonly issues: readonly OutputIssueInfo[];
  constructor(message: string, partial: PartialRunOutcome, issues: readonly OutputIssueInfo[] = []) {
    super({ code: "output_invalid", message, phase: "after_delivery", retryable: true }, partial);
    this.issues = issues.map((issue) => ({ message: issue.message, path: [...issue.path] }));
  }
}

/** No thread with that id exists in the store. */
export class ThreadNotFoundError extends AdaptorError {
  constructor(message = "no such thread") {
    super("thread_not_found", message);
  }
}

/** A thread with that id already exists. */
export class ThreadExistsError extends AdaptorError {
  constructor(message = "a thread with that id already exists") {
    super("thread_exists", message);
  }
}

/** Another writer holds the thread's lease. */
export class ThreadBusyError extends AdaptorError {
  constructor(message = "another run holds this thread") {
    super("thread_busy", message);
  }
}

/** The caller's lease expired or was taken over; its writes are refused. */
export class LeaseLostError extends AdaptorError {
  constructor(message = "the thread lease was lost") {
    super("lease_lost", message);
  }
}

/** No session with that id exists in the store. */
export class SessionNotFoundError extends AdaptorError {
  constructor(message = "no such session") {
    super("session_not_found", message);
  }
}

/** A session with that id already exists. */
export class SessionExistsError extends AdaptorError {
  constructor(message = "a session with that id already exists") {
    super("session_exists", message);
  }
}

/**
 * A live subscriber of a session's event log fell further behind than its buffer holds and was
 * dropped, so the run and the other subscribers never wait for it. Subscribe again with
 * `after: lastSeq` to continue from the store without a gap.
 */
export class SubscriberTooSlowError extends AdaptorError {
  /** The `seq` of the last event this subscriber received (0 when none). */
  readonly lastSeq: number;
  /** The buffer size it exceeded, in events. */
  readonly bufferSize: number;
  constructor(lastSeq: number, bufferSize: number) {
    super("subscriber_too_slow", `the subscriber fell more than ${bufferSize} events behind the live log and was dropped`);
    this.lastSeq = lastSeq;
    this.bufferSize = bufferSize;
  }
}

/** The codes of a {@link SessionError}. */
export type SessionErrorCode = "session_archived" | "session_closed" | "session_busy" | "session_owned";

/**
 * A session refused a call: it is archived (`session_archived`), closed in this process
 * (`session_closed`), has a run in flight the call cannot act beside (`session_busy`), or another
 * host drives it (`session_owned`, retryable once that host's ownership expires).
 */
export class SessionError extends AdaptorError {
  declare readonly code: SessionErrorCode;
  constructor(code: SessionErrorCode, message: string) {
    super(code, message);
  }
}

/** The ceilings a {@link BudgetExhaustedError} may name. */
export type BudgetCeiling = "sessionUsd" | "sessionTokens" | "runUsd" | "runTokens";

/**
 * A session's ceiling is tripped: new runs are refused until `addBudget` raises a session ceiling
 * or `resetRunCeiling` clears a run ceiling. Spend is never reset.
 */
export class BudgetExhaustedError extends AdaptorError {
  /** The tripped ceiling. */
  readonly ceiling: BudgetCeiling;
  constructor(ceiling: BudgetCeiling, message = `the session's ${ceiling} ceiling is tripped`) {
    super("budget_exhausted", message);
    this.ceiling = ceiling;
  }
}

/** One setting that differs between a stored thread and the agent opening it. */
export interface ThreadMismatch {
  /** The fingerprint dimension, e.g. `workspace`, `model`, `driver.provider.id`. */
  dimension: string;
  /** The host setting behind it, e.g. `createAgent option workspace`, `codex driver config args`. */
  setting: string;
  /**
   * The value the thread was created under: readable, redacted, bounded; `(not set)` when it had
   * none, and a placeholder when an earlier version recorded only a digest.
   */
  recorded: string;
  /** This agent's value, in the same form. */
  current: string;
}

/** The thread was created under a different, incompatible configuration. */
export class ThreadIncompatibleError extends AdaptorError {
  /** Names of the fingerprint dimensions that differ (e.g. `["workspace", "model"]`). */
  readonly dimensions: string[];
  /** Each differing setting with both values (never a secret: those are not part of the fingerprint). */
  readonly mismatches: ThreadMismatch[];
  /** A bare dimension name (no values known) reads `(unknown)` on both sides. */
  constructor(mismatches: readonly (ThreadMismatch | string)[]) {
    const full = mismatches.map((m) =>
      typeof m === "string" ? { dimension: m, setting: m, recorded: "(unknown)", current: "(unknown)" } : { ...m },
    );
    super("thread_incompatible", `the thread is incompatible with this agent: ${full.map(describeMismatch).join("; ")}`);
    this.dimensions = full.map((m) => m.dimension);
    this.mismatches = full;
  }
}

function describeMismatch(m: ThreadMismatch): string {
  if (m.recorded === "(unknown)" && m.current === "(unknown)") return `${m.dimension} differs`;
  return `${m.dimension} differs (${m.setting}: recorded ${JSON.stringify(m.recorded)}, now ${JSON.stringify(m.current)})`;
}

/** The kinds of resource a driver may not deliver (see {@link FeatureUnsupportedError.resource}). */
export type UnsupportedResourceKind = "instructions" | "tool" | "service" | "skill" | "mcp";

/**
 * The driver does not support a feature natively (e.g. fork); nothing is emulated. When the
 * feature is a resource kind the agent (or a run's `services`) asked for, `resource` names it:
 * refused before any process starts.
 */
export class FeatureUnsupportedError extends AdaptorError {
  readonly feature: string;
  /** The driver's id. */
  readonly driver: string;
  /** The resource the driver does not deliver: its kind and its name (`instructions` has none). */
  declare readonly resource?: { kind: UnsupportedResourceKind; name?: string };
  constructor(feature: string, driver: string, resource?: { kind: UnsupportedResourceKind; name?: string }) {
    const named = resource?.name === undefined ? "" : ` (${resource.kind} "${resource.name}")`;
    super("feature_unsupported", `driver ${driver} does not support ${feature}${named}`);
    this.feature = feature;
    this.driver = driver;
    if (resource) this.resource = { ...resource };
  }
}

/** The codes of a refused stream answer (see {@link ResponseRejectedError}). */
export type ResponseRejectedCode = "request_not_pending" | "approval_timeout" | "response_invalid";

/**
 * `stream.respond()` / `answer()` / `decline()` refused an answer, synchronously: the request is not
 * waiting (`request_not_pending`: unknown id, or already settled by the handler, the policy, a cancel
 * or an earlier answer; `approval_timeout`: it timed out), or the answer does not fit it
 * (`response_invalid`). `requestId` names the request.
 */
export class ResponseRejectedError extends AdaptorError {
  declare readonly code: ResponseRejectedCode;
  readonly requestId: string;
  constructor(code: ResponseRejectedCode, requestId: string, message: string) {
    super(code, message);
    this.requestId = requestId;
  }
}

/**
 * Stable codes of a thread or session store failure:
 * `store_unavailable` (cannot open or reach the database), `store_auth_failed` (credentials or
 * role refused), `store_read_only` (the database or its directory cannot be written),
 * `store_corrupt` (not a database, or a damaged one), `store_busy` (locked past the busy timeout,
 * every pooled connection in use, too many connections), `store_schema_newer`, `store_closed`,
 * `store_failed` (anything else the database reported), `store_seq_conflict` (session events that
 * do not continue the stored log), `provider_state_too_large` (a driver's thread-scoped state over
 * its size limit; nothing written).
 */
export type StoreErrorCode =
  | "store_unavailable"
  | "store_auth_failed"
  | "store_read_only"
  | "store_corrupt"
  | "store_busy"
  | "store_schema_newer"
  | "store_closed"
  | "store_failed"
  | "store_seq_conflict"
  | "provider_state_too_large";

/**
 * A thread store failed. The message never holds a path, a connection string or a credential;
 * `retryable` says whether the same call may succeed later unchanged (busy, unreachable server).
 */
export class StoreError extends AdaptorError {
  declare readonly code: StoreErrorCode;
  readonly retryable: boolean;
  constructor(code: StoreErrorCode, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
    this.retryable = options.retryable ?? false;
  }
}
