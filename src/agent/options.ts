/**
 * Agent options, split by scope (DESIGN §3). Construction-only options live in
 * {@link AgentOptions}; call options in {@link CallOptions}, whose defaults may be set at
 * construction through `defaults`. Passing a construction-only key per call is a
 * `ConfigError` with code `option_scope`.
 */
import type { ThreadStore } from "../thread/store.js";
import type { InputDiagnosticHandler } from "../input/errors.js";
import type { InputRef } from "../input/refs.js";
import type {
  ApprovalHandler,
  InputLimits,
  InstructionBundle,
  JsonSchema,
  McpServerConfig,
  Policy,
  HostTool,
  SkillRef,
  UserInputHandler,
} from "../driver/vocabulary.js";
import type { OutputOption } from "./structured/types.js";
import type { WatchdogOptions } from "./watchdogs.js";
import type { TraceContext } from "../driver/types.js";
import type { AgentObserver } from "./observers.js";

export interface EventBufferOptions {
  /** Maximum events held for a slow consumer. Default 1024. */
  bufferSize?: number;
  /** `block` (default) pauses the driver; `drop-deltas` coalesces `*.delta` events. */
  overflow?: "block" | "drop-deltas";
}

/** Call-scoped options that may also be set as construction `defaults`. */
export interface CallDefaults {
  model?: string;
  effort?: string;
  policy?: Policy;
  /**
   * Who answers approval requests: a handler, or `"stream"` — the host answers with
   * `stream.respond()` while reading `stream()`. Either way `respond()` may answer first (the first
   * answer wins). Unset (or `"stream"` under `run()`, which has no stream to answer from): every
   * request is denied by policy at once, with an `approval_denied_by_policy` notice.
   */
  onApproval?: ApprovalHandler | "stream";
  /** Who answers questions: a handler, or `"stream"` (`stream.answer()` / `decline()`). Unset: declined. */
  onUserInput?: UserInputHandler | "stream";
  /**
   * How long an approval or a question waits for its answer before it is denied (declined) with
   * `by: "timeout"` and an `approval_timeout` notice. Unset or 0: it waits until answered or the
   * run is cancelled.
   */
  approvalTimeoutMs?: number;
  metadata?: Record<string, string>;
  /**
   * Structured output: a Standard Schema (zod 4, valibot, ...), a JSON Schema, or
   * `{ schema, mode }` (see {@link OutputMode}). `result.structured` holds the validated value;
   * an answer that is not JSON or fails the schema rejects with `OutputInvalidError`.
   */
  output?: OutputOption;
  /** @deprecated Use `output` (a JSON Schema given here means `output: schema`). Not both. */
  outputSchema?: JsonSchema;
  /** `true`: never use the prepared standby. */
  spawn?: boolean;
  /**
   * The run's watchdogs (turn idle, hard cap, repeated identical tool calls), on every driver. A
   * call's value overrides the default's field by field. See {@link WatchdogOptions}.
   */
  watchdogs?: WatchdogOptions;
}

/**
 * Options of one `run()` / `stream()` call. `O` is the call's `output`, from which
 * `result.structured` takes its type ({@link StructuredOf}).
 */
export interface CallOptions<O extends OutputOption | undefined = OutputOption | undefined> extends Omit<CallDefaults, "output"> {
  /** {@inheritDoc CallDefaults.output} */
  output?: O;
  signal?: AbortSignal;
  /**
   * Per-run images, files and audio (`input.fromPath`, `input.fromFS`, `input.fromOpener`).
   * Call-only: there is no default. They follow the prompt, in order.
   */
  inputs?: readonly InputRef[];
  /**
   * Run-scoped services: host tools offered to this run only (e.g. a per-request database handle),
   * beside the agent's `tools`, without changing the agent's identity (a prepared standby still
   * serves the run). Call-only. Names may not repeat the agent's tools.
   */
  services?: readonly HostTool[];
  /**
   * The caller's W3C trace context for this run. A provider process launched for the run gets it
   * as `TRACEPARENT` / `TRACESTATE` in its environment, so providers that continue a trace from
   * there (Codex, Claude Code) report their spans under the caller's. Call-only; never a secret.
   */
  traceContext?: TraceContext;
}

/** Construction-only options of {@link createAgent}. */
export interface AgentOptions {
  /** Absolute path; default `process.cwd()`. */
  workspace?: string;
  instructions?: string | InstructionBundle[];
  /**
   * Host tools the provider may call, served through the agent's loopback MCP server (see
   * `hostTool()` for a typed definition). The handler runs in the host with validated arguments.
   */
  tools?: HostTool[];
  skills?: SkillRef[];
  mcp?: McpServerConfig[];
  /** Where threads are kept. Default: an in-memory store owned (and closed) by the agent. */
  threadStore?: ThreadStore;
  events?: EventBufferOptions;
  /** Limits of per-run inputs; zero or undefined selects the safe default, never unlimited. */
  inputLimits?: InputLimits;
  /** Receives the detailed cause of an input failure (errors themselves never carry it). */
  onInputDiagnostic?: InputDiagnosticHandler;
  /**
   * How long a run may wait, from the provider's first report that it is retrying its model
   * endpoint and before the model shows any progress, until it fails with
   * `provider_unreachable` (retryable). Default 60000 ms; 0 waits as long as the provider retries.
   */
  startupTimeoutMs?: number;
  /**
   * How long a thread's provider process stays warm after a completed turn, waiting for the
   * thread's next turn, which then skips spawn and resume (drivers that support it: Codex, Claude,
   * CodeBuddy, ACP). Default 60000 ms; 0 retires the process after every turn.
   */
  threadWriterIdleMs?: number;
  /**
   * How long a run's thread lease (one writer per thread across every host sharing the store)
   * lasts unless renewed; the run renews it at a third of this. A host killed mid-run keeps its
   * threads from other hosts until the lease runs out. Default 30000 ms; at least 1000.
   */
  threadLeaseTtlMs?: number;
  /**
   * Observers of the agent's runs, inspections and preparations (telemetry, e.g.
   * `openTelemetry()` from `agent-adaptor/bridges/otel`). Called synchronously; what one throws
   * is ignored. See {@link AgentObserver}.
   */
  observers?: AgentObserver[];
  defaults?: CallDefaults;
}

/**
 * Every construction key. Typed against {@link AgentOptions}, so an option added without an
 * entry here does not compile (and would otherwise be refused at run time as unknown).
 */
export const AGENT_OPTION_KEYS = {
  workspace: true,
  instructions: true,
  tools: true,
  skills: true,
  mcp: true,
  threadStore: true,
  events: true,
  inputLimits: true,
  onInputDiagnostic: true,
  startupTimeoutMs: true,
  threadWriterIdleMs: true,
  threadLeaseTtlMs: true,
  observers: true,
  defaults: true,
} as const satisfies Record<keyof AgentOptions, true>;

/** Every call key and whether it may be a construction default. Typed against {@link CallOptions}. */
export const CALL_OPTION_KEYS = {
  model: "defaultable",
  effort: "defaultable",
  policy: "defaultable",
  onApproval: "defaultable",
  onUserInput: "defaultable",
  approvalTimeoutMs: "defaultable",
  metadata: "defaultable",
  output: "defaultable",
  outputSchema: "defaultable",
  spawn: "defaultable",
  watchdogs: "defaultable",
  signal: "call-only",
  inputs: "call-only",
  services: "call-only",
  traceContext: "call-only",
} as const satisfies Record<keyof CallOptions, "defaultable" | "call-only">;

/**
 * Construction options of the design that do not exist yet. They are refused with a
 * `ConfigError` naming the key instead of being accepted and silently dropped.
 */
export const UNSUPPORTED_AGENT_KEYS: readonly string[] = [
  "identity",
  "workspaceSpec",
  "workspaceManager",
  "skillProviders",
  "profile",
  "profileResources",
  "subagents",
  "hooks",
  "configPatches",
];
