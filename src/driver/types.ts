/**
 * The Driver SPI (DESIGN §4). A driver is a configured provider integration: it captures its
 * config at construction and is the only code that speaks a provider protocol. Core validates
 * everything a driver returns or emits and turns violations into `DriverContractError`.
 */
import type { ApprovalRequest, JsonSchema, McpServerConfig, Policy, SkillRef, ToolDeclaration, UserInputAnswer, UserInputRequest } from "../driver/vocabulary.js";
import type { ApprovalDecision, DriverEvent } from "../events/types.js";
import type { Usage } from "../events/usage.js";
import type { Inspection } from "../inspect/types.js";
import type { DeliveryMode, InputKind } from "../input/kinds.js";
import type { GoalOperation, GoalResponse } from "./goals.js";

/** Static input capability of a driver for one kind. Empty `modes` = unsupported. */
export interface InputKindCapability {
  modes: DeliveryMode[];
  /** Media-type patterns such as `image/*`. */
  mediaTypes?: string[];
  /** Undefined = unknown, not unlimited. */
  maxCount?: number;
  maxBytes?: number;
}

export type FeatureSupport = "native" | "unsupported";

/**
 * Support for the provider's native compaction (`RunRequest.operation: "compact"`). `"advertised"`:
 * only when the provider advertises it at run time (an ACP agent's `/compact` command); the driver
 * refuses the run with `FeatureUnsupportedError` before sending anything otherwise.
 */
export type CompactSupport = FeatureSupport | "advertised";

/**
 * What a run asks of the provider. `prompt`: a turn with `RunRequest.prompt`. `compact`: the
 * provider's native compaction of the bound conversation as one turn (`Thread.compact()`); the
 * prompt is empty and there are no inputs.
 */
export type RunOperation = "prompt" | "compact";

/** Static invariants of a driver. Never a model catalogue or a runtime fallback. */
export interface Descriptor {
  id: string;
  name: string;
  transport: string;
  inputs: Record<InputKind, InputKindCapability>;
  features: {
    steer: FeatureSupport;
    resume: FeatureSupport;
    fork: FeatureSupport;
    approvals: boolean;
    userQuestions: boolean;
    structuredOutput: boolean;
    /** Native compaction (`Thread.compact()`). Absent: unsupported. */
    compact?: CompactSupport;
  };
  /** The resource kinds this driver delivers to the provider; anything else is refused before launch. */
  resources: ResourceSupport;
  configSchema?: JsonSchema;
}

/**
 * Which construction resources (and run-scoped services) a driver delivers natively. A resource the
 * driver does not deliver is refused with `FeatureUnsupportedError` before any process starts.
 */
export interface ResourceSupport {
  instructions: boolean;
  /** Host tools and run-scoped services, through the agent's loopback MCP server ({@link HostToolsLink}). */
  hostTools: boolean;
  skills: boolean;
  /** MCP servers by transport; `"advertised"`: only when the provider advertises it at initialization. */
  mcp: { stdio: boolean; http: boolean | "advertised" };
}

/** Model and effort defaults a driver's config gives (see {@link Driver.defaults}). */
export interface ModelDefaults {
  /** The model the driver config names, when it names one. */
  model?: string;
  /** The reasoning effort the driver config names, when it names one. */
  effort?: string;
}

/** Stable resources resolved by core from construction options. */
export interface ResolvedResources {
  instructions?: string;
  tools: ToolDeclaration[];
  skills: SkillRef[];
  mcp: McpServerConfig[];
}

export interface InspectRequest {
  workspace: string;
  resources: ResolvedResources;
}

/**
 * The provider observations a driver returns — every panel of an `Inspection` — which core
 * checks, copies and redacts.
 */
export interface InspectResponse extends Omit<Inspection, "driver"> {
  /** Values (API keys the provider echoed, tokens) that must be redacted everywhere. */
  secrets?: string[];
}

/** A warm, unbound provider process a driver retained in `prepare()`. Owned by the driver. */
export interface StandbyHandle {
  readonly pid?: number;
  /** False once the process has exited; core never hands a dead standby to a run. */
  isAlive(): boolean;
  /** Stop and reap the process. Idempotent. */
  close(): Promise<void>;
}

/**
 * What a run would ask of a prepared standby, for {@link Driver.canUseStandby}. Core asks only
 * after the thread's lease and checkpoint are settled, and only when the run's settings already
 * match the standby's compatibility signature.
 */
export interface StandbyUse {
  /** The thread binding: a `providerSessionId` means the run resumes (or, with `fork`, forks) it. */
  thread?: { id: string; providerSessionId?: string; fork?: boolean };
  model?: string;
  effort?: string;
  policy: Policy;
  /** The run's JSON Schema when its structured output is delivered natively (`RunRequest.outputSchema`). */
  outputSchema?: JsonSchema;
}

export interface PrepareRequest extends InspectRequest {
  model?: string;
  effort?: string;
  policy: Policy;
  /** Deterministic compatibility signature core keys the standby by. */
  signature: string;
  /**
   * Present when the agent has host tools: the standby's process registers an endpoint opened here
   * (unbound until a run claims the standby and calls `RunRequest.hostTools.bind`).
   */
  hostTools?: HostToolsLink;
}

/**
 * The agent's loopback MCP server serving its host tools (and a run's services). One endpoint per
 * provider process; the server starts lazily on the first `open()` and closes with the agent.
 */
export interface HostToolsLink {
  /** The MCP server name the provider registers the endpoint under (reserved: no agent MCP server may use it). */
  readonly serverName: string;
  /** Opens an endpoint for one provider process. From a `RunRequest` it is bound to that run already. */
  open(): Promise<HostToolsEndpoint>;
}

/** One provider process's way into the loopback server. Its credentials are registered as secrets. */
export interface HostToolsEndpoint {
  /** As a Streamable HTTP MCP server on 127.0.0.1: the bearer token is in `headers`. */
  readonly http: { name: string; url: string; headers: Record<string, string> };
  /** As a stdio MCP server (a bridge to the same endpoint) for providers without HTTP MCP: the address travels in `env`. */
  readonly stdio: { name: string; command: string; args: string[]; env: Record<string, string> };
  /** Revokes the endpoint (its token stops working). Idempotent. */
  close(): Promise<void>;
}

export interface PrepareResponse {
  inspection: InspectResponse;
  process: "unsupported" | "transient" | "ready";
  /** Present exactly when `process` is `"ready"`. */
  standby?: StandbyHandle;
}

/** What {@link Driver.goals} is asked. */
export interface GoalRequest {
  operation: GoalOperation;
  /** The conversation the goal belongs to; absent only for `probe` (a thread with no turn yet). */
  providerSessionId?: string;
  workspace: string;
  resources: ResolvedResources;
}

/** A per-run input after core materialized it. Never carries the caller's original path. */
export interface ResolvedInput {
  id: string;
  kind: InputKind;
  name: string;
  mediaType: string;
  localPath: string;
  size: number;
  sha256: string;
  deliveryMode: DeliveryMode;
}

/**
 * Thread-scoped provider state: one opaque JSON document per thread that a driver keeps in the
 * agent's thread store instead of (or besides) a directory of its own, so any host sharing the
 * store resumes, forks and rewinds the thread. Core hands one to a run on a thread
 * ({@link RunRequest.providerState}) and to {@link Driver.rewind}; a fork starts with a copy of its
 * parent's document, and deleting a thread deletes it.
 */
export interface ProviderStateHandle {
  /** The largest document {@link ProviderStateHandle.save} takes, in UTF-8 bytes of its JSON text. */
  readonly maxBytes: number;
  /** The document last saved for the thread (a copy of the parent's for a fork); undefined when none. */
  load(): Promise<unknown>;
  /**
   * Replaces the thread's document with `document` (a JSON value: plain objects, arrays, strings,
   * finite numbers, booleans, null), written as the holder of the thread's lease and durable once
   * the promise resolves. Every secret registered with the run (the driver's, the host's, those
   * learned during the run) is removed from its strings first; redacting secret-shaped tokens in
   * text is the driver's part, which alone knows which strings are text. Rejects with
   * `StoreError` `provider_state_too_large` when its JSON text is over `maxBytes`,
   * `LeaseLostError` when the thread's lease was lost, and `ConfigError` for a value JSON cannot
   * carry; nothing is written then.
   */
  save(document: unknown): Promise<void>;
}

export interface RunRequest {
  runId: string;
  /** Absent: `"prompt"`. A driver without `features.compact` never receives `"compact"`. */
  operation?: RunOperation;
  prompt: string;
  inputs: ResolvedInput[];
  model?: string;
  effort?: string;
  policy: Policy;
  outputSchema?: JsonSchema;
  metadata?: Record<string, string>;
  workspace: string;
  resources: ResolvedResources;
  thread?: { id: string; providerSessionId?: string; fork?: boolean };
  /**
   * Set on a thread run when the agent's thread store keeps provider state: the thread's document,
   * loaded and saved under the run's lease. A driver that persists its conversation itself keeps
   * it here for thread runs, so another host sharing the store resumes it.
   */
  providerState?: ProviderStateHandle;
  /**
   * Claimed by core for this run when compatible: a prepared standby, or the thread's warm writer
   * a previous run returned as {@link RunResponse.writer}. The driver closes it after the run
   * unless it hands the same process back as the run's `writer`.
   */
  standby?: StandbyHandle;
  /**
   * Core would keep the process warm for the thread's next turn: a driver that can may leave it
   * running when the turn completes and return it as {@link RunResponse.writer}. Set only on
   * thread runs.
   */
  keepWarm?: boolean;
  /** Routes to the host's approval handler or, without one, to the policy. */
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  ask(request: UserInputRequest): Promise<UserInputAnswer>;
  /** Call once the prompt may have reached the provider. */
  markDelivered(): void;
  /** Register a secret learned during the run (an echoed key); core redacts it from then on. */
  registerSecret(value: string): void;
  /**
   * Present when the agent has host tools or the run adds services (`CallOptions.services`).
   * A driver launching a process opens an endpoint bound to this run; a driver continuing on a
   * claimed standby or warm writer binds that process's endpoint to this run instead. Core
   * unbinds at the run's end and aborts handlers still running. When the binding changes the
   * tools listed (the run's services), `bind` resolves once the process has listed them again
   * after the `tools/list_changed` announcement (bounded: at most two seconds; at once for an MCP
   * session that let an earlier announcement pass the bound unanswered; never rejects): a
   * driver whose provider re-lists on that announcement awaits it before sending the prompt.
   */
  hostTools?: HostToolsLink & { bind(endpoint: HostToolsEndpoint): Promise<void> };
  /**
   * The caller's W3C trace context (`CallOptions.traceContext`). A driver that launches a process
   * for this run passes it as `TRACEPARENT` / `TRACESTATE` in the child's environment, so a
   * provider that continues a trace from there (Codex, Claude Code) parents its spans under it. A
   * claimed standby or warm writer was started before: its environment is not changed.
   */
  traceContext?: TraceContext;
}

/** A W3C trace context: `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`) and the optional `tracestate`. */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/**
 * Where a driver emits events. `emit` returns `undefined` when the event was accepted at once,
 * else a promise the driver must await before reading more provider output (backpressure).
 * `await sink.emit(e)` is always correct; skipping the await of `undefined` is faster.
 */
export interface EventSink {
  emit(event: DriverEvent): Promise<void> | undefined;
}

export interface RunResponse {
  text: string;
  structured?: unknown;
  usage?: Usage;
  providerSessionId?: string;
  /** Redacted terminal payload, for `Result.raw()`. */
  raw?: unknown;
  stderrTail?: string;
  /**
   * Only when `keepWarm` was asked and the turn completed: the still-running process, bound to
   * `providerSessionId`, as a handle core owns from now on (it closes it when idle, on a lost
   * lease, an incompatible call or `close()`). Core offers it to the thread's next run as
   * `RunRequest.standby` after {@link Driver.canUseStandby} accepts it; the driver then continues
   * the session on it without a resume. A run returning it must not close the claimed standby's
   * process, which the writer now holds.
   */
  writer?: StandbyHandle;
}

/** What {@link Driver.rewind} is asked: a stored provider session and the thread's runs that leave it. */
export interface RewindRequest {
  /** The session to rewind; it stays as it was (the pre-rewind transcript). */
  providerSessionId: string;
  /** The runs whose turns leave the conversation, oldest first (the thread's turns after the one rewound to). */
  dropRunIds: string[];
  workspace: string;
  /** The thread's provider state, under the rewind's lease (as on {@link RunRequest.providerState}). */
  providerState?: ProviderStateHandle;
}

export interface Driver {
  descriptor(): Descriptor;
  /** Throws `ConfigError` for an invalid captured config. */
  validateConfig(): void;
  /**
   * Throws `ConfigError` for a policy the provider cannot honour, so it is refused before anything
   * launches instead of being widened. Core calls it at construction (for `defaults`), and with
   * the effective policy before every run and `prepare()`. Absent: every policy is honoured.
   */
  validatePolicy?(policy: Policy): void;
  /**
   * A stable identity of the captured config that changes how the provider's process behaves
   * (executable, home, provider), for reusing a warm process. Held in memory only. A thread's
   * compatibility uses {@link Driver.compatibility}; only a driver without it has a digest of this
   * recorded instead (dimension `driver.config`).
   */
  fingerprint?(): string;
  /**
   * The captured settings that decide whether a stored thread can continue under this driver:
   * readable values keyed by setting name (`provider.id`, `args`, `env.NAME`), each recorded as the
   * thread's fingerprint dimension `driver.<name>` and named with both values when it differs.
   * Leave out whatever may change while the conversation stays the same — credentials (API keys,
   * tokens, header values), endpoints (base URL, port, proxy), and paths that only locate the same
   * provider (executable, home and config directories) — and the model and effort, which
   * {@link Driver.defaults} gives. Values must hold no secret; core bounds and redacts them all the
   * same. The kit's `compatibleEnv`/`compatibleArgs` apply these rules. Absent: see `fingerprint`.
   */
  compatibility?(): Record<string, string>;
  /**
   * The model and effort the captured config gives as defaults. Core folds them under the call's
   * options and the agent's `defaults` (a call wins, then the agent, then the driver), so
   * `RunRequest`/`PrepareRequest` carry the effective values and the standby signature and the
   * thread fingerprint see them; a driver does not fold its own defaults again. Absent: none.
   */
  defaults?(): ModelDefaults;
  /**
   * Secret values in the captured config — the provider key named by `apiKeyEnv`, secret-looking
   * entries of the child's `env`, header values. Core redacts them from every event, error,
   * inspection and `Result.raw()`, registering them before every inspection, preparation and run.
   */
  secrets?(): string[];
  inspect(request: InspectRequest, signal: AbortSignal): Promise<InspectResponse>;
  prepare(request: PrepareRequest, signal: AbortSignal): Promise<PrepareResponse>;
  run(request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse>;
  /**
   * Whether `standby` (which this driver's `prepare()` returned) can serve this run: an unbound
   * process may be unable to resume or fork a session that must be chosen at spawn. Core claims
   * the standby only when this returns true, so a standby is never claimed and then discarded;
   * otherwise it stays for a later run. Absent: the standby serves only runs that open a new
   * provider session (stateless runs and a thread's first turn). Also asked about a thread's warm
   * writer ({@link RunResponse.writer}); a writer it refuses is retired, not kept.
   */
  canUseStandby?(use: StandbyUse, standby: StandbyHandle): boolean;
  /**
   * Deliver `text` to the run in flight at its next safe point. Present exactly when
   * `descriptor().features.steer` is `"native"`; rejects when the run has already ended.
   */
  steer?(runId: string, text: string, signal: AbortSignal): Promise<void>;
  /**
   * Queue `text` for the run in flight, delivered when it would otherwise end: the run goes on
   * with it as the next user message. Present exactly when the provider has such a queue (core
   * derives support from the method's presence); rejects when the run has already ended.
   */
  followUp?(runId: string, text: string, signal: AbortSignal): Promise<void>;
  /**
   * A copy of a stored provider session without the turns of `dropRunIds` (and any turn after the
   * first of them), under a new session id that the thread continues from; the original session
   * is left as it was. Backs `Thread.rewind`. Absent: rewind is refused with
   * `FeatureUnsupportedError` (`rewind`).
   */
  rewind?(request: RewindRequest, signal: AbortSignal): Promise<{ providerSessionId: string }>;
  /**
   * The provider's native goal of a stored conversation (see `GoalOperation`): probe, get, set or
   * clear, outside any run. Resolves `{ supported: false }` when the provider has no goals (an
   * unknown method), so a probe fails closed; rejects for any other failure. Absent: no goals.
   */
  goals?(request: GoalRequest, signal: AbortSignal): Promise<GoalResponse>;
  /** Reclaim every process the driver owns. */
  close(): Promise<void>;
}


