/**
 * The single execution path (DESIGN §3, §5): every `run()` and `stream()` — on an Agent or a
 * Thread — starts here. It stamps `run.started`, calls the driver with a checked sink
 * (`sink.ts`), routes approvals and questions through the host bridge (`host-bridge.ts`), and
 * publishes exactly one terminal event, last, as the outcome decision (`outcome.ts`) says.
 */
import { randomUUID } from "node:crypto";
import type { Descriptor, Driver, ProviderStateHandle, ResolvedResources, RunRequest, RunResponse, StandbyHandle } from "../driver/types.js";
import { markRunRefusal, RunCancelledError, RunFailedError } from "../errors/index.js";
import { RunTimeline } from "../events/timeline.js";
import { EVENTS_SCHEMA_VERSION, type AgentEvent, type Result, type ResultSummary } from "../events/types.js";
import type { HistoryInput } from "../thread/store.js";
import { withPlaceholders, type Redactor } from "../redact/redact.js";
import type { InputDiagnosticHandler } from "../input/errors.js";
import { materializeInputs, type MaterializedInputs } from "../input/materialize.js";
import type { CallOptions, EventBufferOptions } from "./options.js";
import type { InputLimits, Policy } from "../driver/vocabulary.js";
import { startupDeadline } from "./startup-deadline.js";
import { resolveWatchdogs, RunWatchdogs } from "./watchdogs.js";
import { inputPathPlaceholders } from "./input-paths.js";
import { isDrainedByRun, RunStreamImpl, type RunStream } from "./run-stream.js";
import { CheckedSink } from "./sink.js";
import { midRunInput } from "./mid-run.js";
import { createHostBridge, type HostBridge } from "./host-bridge.js";
import { decideOutcome, failureOf, runStatus, type RunObservation, type RunOutcome } from "./outcome.js";
import { decodeStructured } from "./structured/decode.js";
import { deliverOutput, givenUpFailure, outputDelivery, outputFailure, providerGaveUp, type OutputDelivery } from "./structured/delivery.js";
import type { ResolvedOutput } from "./structured/resolve.js";
import type { ServedTool } from "../resources/host-tools/served-tool.js";
import type { HostTools, RunHostTools } from "./host-tools.js";
import { observeRun, type AgentObserver, type ObservedRun } from "./observers.js";

export interface ExecutionContext {
  driver: Driver;
  driverId: string;
  workspace: string;
  resources: ResolvedResources;
  events: Required<EventBufferOptions>;
  redactor: Redactor;
  /** The driver's static input capabilities and the agent's limits. */
  inputs: { capabilities: Descriptor["inputs"]; limits?: InputLimits; onDiagnostic?: InputDiagnosticHandler };
  /** Whether the driver honours `RunRequest.outputSchema` natively (`descriptor().features.structuredOutput`). */
  structuredOutput: boolean;
  /** `AgentOptions.startupTimeoutMs`, defaulted (see `startup-deadline.ts`). */
  startupTimeoutMs: number;
  /**
   * Claim the prepared standby for these effective settings and thread binding, only if it is
   * compatible and the driver says it can serve the run; otherwise it stays for a later run.
   */
  claimStandby(options: EffectiveCallOptions, thread: ThreadBinding | undefined): StandbyHandle | undefined;
  /** Where a thread run's warm writer goes (`writer.ts`); absent or disabled: none is kept. */
  writers?: {
    readonly enabled: boolean;
    keep(threadId: string, options: EffectiveCallOptions, writer: StandbyHandle, served: { providerSessionId: string; runId: string }): void;
  };
  /** Register the run so `close()` can cancel it and wait for it. */
  track(run: { cancel(reason: unknown): void; settled: Promise<void> }): () => void;
  /** The agent's host tools, when the driver delivers them (`descriptor().resources.hostTools`). */
  hostTools?: HostTools;
  /** `AgentOptions.observers`: offered every run as it starts. */
  observers?: readonly AgentObserver[];
}

export type EffectiveCallOptions = Omit<CallOptions, "signal" | "output" | "outputSchema" | "services"> & {
  policy: Policy;
  output?: ResolvedOutput;
  /** The call's run-scoped services, resolved. */
  services?: readonly ServedTool[];
};

export interface ThreadBinding {
  id: string;
  providerSessionId?: string;
  fork?: boolean;
}

/** How a thread takes part in a run: lease and checkpoint validation first, checkpoint last. */
export interface ThreadRunHooks {
  threadId: string;
  /** What the run asks of the provider (`RunRequest.operation`); absent: a prompt. */
  operation?: RunRequest["operation"];
  /**
   * Acquire the lease and validate the checkpoint before anything launches; `onLost` is called if
   * the lease is lost while the run is alive. Rejects (e.g. `thread_busy`) to fail the run.
   */
  begin(signal: AbortSignal, onLost: (error: Error) => void): Promise<ThreadBinding>;
  /** The provider's session id became known. */
  bound(providerSessionId: string): Promise<void>;
  /** After `begin`: the thread's provider state under the run's lease, when the store keeps it. */
  providerState?(redactor: Redactor): ProviderStateHandle | undefined;
  /** Save the checkpoint and release the lease. Called on every ending once `begin` resolved. */
  end(outcome: { runId: string; status: "completed" | "failed" | "cancelled"; providerSessionId?: string; turn: RunTurn }): Promise<void>;
}

/** What a thread's history keeps of a run: its prompt and inputs (redacted) and its events so far. */
export interface RunTurn {
  prompt: string;
  inputs: HistoryInput[];
  events: AgentEvent[];
}

const NOT_OBSERVED: ReturnType<typeof observeRun> = {};

export function startExecution(
  context: ExecutionContext,
  prompt: string,
  options: EffectiveCallOptions,
  signal: AbortSignal | undefined,
  thread?: ThreadRunHooks,
): RunStream {
  const runId = `run_${randomUUID()}`;
  // Without observers there is no one to describe the run to.
  const { observer, traceContext } = context.observers === undefined ? NOT_OBSERVED : observeRun(context.observers, observedRun(context, runId, options, thread));
  // An observer's trace context (telemetry: its run span, itself under the caller's) reaches the provider.
  if (traceContext !== undefined) options.traceContext = traceContext;
  const timeline = new RunTimeline({
    runId,
    bufferSize: context.events.bufferSize,
    overflow: context.events.overflow,
    ...(thread ? { threadId: thread.threadId } : {}),
    ...(observer ? { observer } : {}),
  });
  const controller = new AbortController();
  // Read for every event: a flag is cheaper than the signal's getter.
  const stop = { stopping: false };
  /**
   * The only way the run's signal aborts. The run stops first (its stream goes quiet, its buffer
   * no longer waits for the reader), then the signal's listeners run: done here rather than by a
   * listener of core's own on the signal, which costs a run more than the rest of its setup.
   */
  const abort = (reason: unknown) => {
    if (stop.stopping) return;
    stop.stopping = true;
    timeline.buffer.release();
    controller.abort(reason);
  };
  const stopping = () => stop.stopping;
  let cancelReason: string | undefined;
  const cancel = (reason?: unknown) => {
    if (stop.stopping) return;
    cancelReason = typeof reason === "string" ? reason : reason instanceof Error ? reason.message : undefined;
    abort(new RunCancelledError(cancelReason));
  };
  const onCallerAbort = () => cancel(signal?.reason instanceof Error ? signal.reason.message : "the caller's signal aborted");
  if (signal?.aborted) onCallerAbort();
  else signal?.addEventListener("abort", onCallerAbort, { once: true });

  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const untrack = context.track({ cancel, settled });

  // The bridge is made as the run starts; the stream answers through it and tells it who reads.
  const link: BridgeLink = { streamed: () => !isDrainedByRun(stream) };
  const result = runToTerminal(context, timeline, prompt, options, { controller, abort, stopping }, () => cancelReason, thread, link).finally(() => {
    signal?.removeEventListener("abort", onCallerAbort);
    untrack();
    settle();
  });
  const input = midRunInput({
    driver: context.driver,
    driverId: context.driverId,
    runId,
    signal: controller.signal,
    ended: () => timeline.ended,
    redactor: () => context.redactor,
  });
  const stream = new RunStreamImpl({ timeline, result, settled, cancel, input, answers: link.bridge!, stopping });
  return stream;
}

/** Joins the run's host bridge (made as the run starts) and its stream (made right after). */
interface BridgeLink {
  bridge?: HostBridge;
  /** Whether the host reads the stream (so it can answer requests from it). */
  streamed(): boolean;
}

/** What one run accumulates on its way to the terminal; the outcome decision reads it. */
interface RunScope {
  readonly context: ExecutionContext;
  readonly timeline: RunTimeline;
  readonly options: EffectiveCallOptions;
  readonly controller: AbortController;
  readonly thread: ThreadRunHooks | undefined;
  /** The caller's prompt, for the thread's history. */
  readonly prompt: string;
  readonly sink: CheckedSink;
  readonly bridge: HostBridge;
  /** Idle, hard cap and repeated tool calls; started when the driver is called. */
  readonly watchdogs: RunWatchdogs;
  /** The agent's redactor; once the run's input copies exist, it also hides their paths. */
  redactor: Redactor;
  delivered: boolean;
  /** A core-side failure (lost lease, startup deadline) that ends the run regardless of the driver. */
  fatal: unknown;
  binding: ThreadBinding | undefined;
  standby: StandbyHandle | undefined;
  /** The run's link to the agent's host tools, when it has any (its own services or the agent's). */
  hostTools: RunHostTools | undefined;
  materialized: MaterializedInputs | undefined;
  /** How the call's structured output reaches the model, decided before launch. */
  outputDelivery?: OutputDelivery;
  response: RunResponse | undefined;
  thrown: unknown;
}

async function runToTerminal(
  context: ExecutionContext,
  timeline: RunTimeline,
  prompt: string,
  options: EffectiveCallOptions,
  stop: { controller: AbortController; abort: (reason: unknown) => void; stopping: () => boolean },
  cancelReason: () => string | undefined,
  thread: ThreadRunHooks | undefined,
  link: BridgeLink,
): Promise<Result> {
  const { controller, abort } = stop;
  const startedAt = Date.now();
  const failFatally = (failure: unknown) => {
    scope.fatal ??= failure;
    abort(failure);
  };
  const deadline = startupDeadline(context.startupTimeoutMs, failFatally);
  const watchdogs = new RunWatchdogs(resolveWatchdogs(options.watchdogs), failFatally, () => timeline.buffer.size >= context.events.bufferSize);
  const sink = new CheckedSink({
    driverId: context.driverId,
    timeline,
    redactor: () => scope.redactor,
    onViolation: (error) => abort(error),
    observe: (event) => {
      deadline.observe(event);
      watchdogs.observe(event);
    },
    onTerminal: () => deadline.dispose(),
    bound: thread ? (providerSessionId) => thread.bound(providerSessionId) : undefined,
    stopping: stop.stopping,
  });
  const bridge = createHostBridge({
    timeline,
    redactor: () => scope.redactor,
    onApproval: options.onApproval,
    onUserInput: options.onUserInput,
    timeoutMs: options.approvalTimeoutMs,
    streamed: link.streamed,
    signal: controller.signal,
  });
  link.bridge = bridge;
  const scope: RunScope = {
    context, timeline, options, controller, thread, sink, bridge, watchdogs, prompt,
    redactor: context.redactor,
    delivered: false,
    fatal: undefined,
    binding: undefined,
    standby: undefined,
    hostTools: undefined,
    materialized: undefined,
    response: undefined,
    thrown: undefined,
  };
  try {
    await launch(scope, prompt, failFatally);
  } catch (error) {
    scope.thrown = error;
  } finally {
    deadline.dispose();
    watchdogs.dispose();
    // Host-tool calls of this run end with it: its endpoints are unbound, its handlers aborted.
    scope.hostTools?.release();
    // The driver and its event sources have stopped: its standby and the run's input copies go
    // (unless the driver handed the standby's process back as the thread's warm writer).
    if (scope.standby !== undefined && scope.response?.writer === undefined) await releaseStandby(scope);
    if (scope.materialized !== undefined) await scope.materialized.dispose();
  }
  return conclude(scope, cancelReason, startedAt);
}

/**
 * Closes the run's claimed standby. After a finished turn (the driver returned a response) its
 * process is already retiring, so the terminal does not wait for it to be reaped (issue #14
 * item 3): the driver owns it until it exits, and the agent's close() reaps it. Otherwise waited.
 */
async function releaseStandby(scope: RunScope): Promise<void> {
  const closing = scope.standby?.close();
  if (closing === undefined) return;
  if (scope.response === undefined) return closing;
  void closing.catch(() => undefined);
}

/** From `run.started` to the driver's `run()` settling: checks, inputs, the thread, the standby. */
async function launch(scope: RunScope, prompt: string, failFatally: (failure: unknown) => void): Promise<void> {
  const { context, timeline, options, thread } = scope;
  const signal = scope.controller.signal;
  await timeline.publish({
    type: "run.started",
    driver: context.driverId,
    ...(options.model ? { model: options.model } : {}),
    schemaVersion: EVENTS_SCHEMA_VERSION,
  });
  signal.throwIfAborted();
  // Refused before anything launches: a driver that cannot honour it would silently drop it.
  if (options.output !== undefined) scope.outputDelivery = outputDelivery(options.output, context.structuredOutput, context.driverId);
  if (options.inputs && options.inputs.length > 0) {
    // Copied, hashed and checked before any lease, process or prompt.
    scope.materialized = await materializeInputs(options.inputs, {
      driverId: context.driverId,
      capabilities: context.inputs.capabilities,
      signal,
      ...(context.inputs.limits ? { limits: context.inputs.limits } : {}),
      ...(context.inputs.onDiagnostic ? { onDiagnostic: context.inputs.onDiagnostic } : {}),
    });
    scope.redactor = withPlaceholders(context.redactor, await inputPathPlaceholders(scope.materialized.inputs));
  }
  if (thread) {
    // Lease and checkpoint validation come before any process is claimed or launched.
    scope.binding = await thread.begin(signal, failFatally);
    scope.sink.providerSessionId = scope.binding.providerSessionId;
  }
  signal.throwIfAborted();
  scope.standby = options.spawn === true ? undefined : context.claimStandby(options, scope.binding);
  scope.hostTools = runHostTools(scope);
  const request = runRequest(scope, prompt);
  signal.throwIfAborted();
  // The turn's clocks run from here: waiting for a lease or copying inputs is not the provider's idleness.
  scope.watchdogs.start();
  try {
    scope.response = await context.driver.run(request, scope.sink, signal);
  } catch (error) {
    // The one safe fallback (DESIGN §8): a claimed standby that failed before the prompt could
    // have been delivered is replaced by a cold launch. After possible delivery, never.
    if (!scope.standby || scope.delivered || signal.aborted || scope.sink.contractError || scope.fatal || scope.sink.announced) throw error;
    await scope.standby.close();
    scope.standby = undefined;
    delete request.standby;
    await timeline.publish({ type: "notice", level: "warning", code: "standby_fallback", message: "the prepared process failed before delivery; launching a fresh one" });
    scope.response = await context.driver.run(request, scope.sink, signal);
  }
}

/** The run's host-tools link: when the driver delivers host tools and the agent or the run has some. */
function runHostTools(scope: RunScope): RunHostTools | undefined {
  const { context, options, timeline, thread } = scope;
  const services = options.services ?? [];
  if (!context.hostTools || (!context.hostTools.hasTools && services.length === 0)) return undefined;
  return context.hostTools.runLink({
    runId: timeline.runId,
    ...(thread ? { threadId: thread.threadId } : {}),
    services,
    signal: scope.controller.signal,
  });
}

/** A starting run as observers see it. */
function observedRun(context: ExecutionContext, runId: string, options: EffectiveCallOptions, thread: ThreadRunHooks | undefined): ObservedRun {
  const run: ObservedRun = { runId, driver: context.driverId };
  if (thread) run.threadId = thread.threadId;
  if (options.model !== undefined) run.model = options.model;
  if (options.effort !== undefined) run.effort = options.effort;
  if (options.traceContext !== undefined) run.traceContext = { ...options.traceContext };
  return run;
}

/** The driver's view of the run: the effective settings, resources, inputs and host callbacks. */
function runRequest(scope: RunScope, prompt: string): RunRequest {
  const { context, options } = scope;
  const request: RunRequest = {
    runId: scope.timeline.runId,
    prompt,
    inputs: scope.materialized ? scope.materialized.inputs.map((resolved) => ({ ...resolved })) : [],
    policy: options.policy,
    workspace: context.workspace,
    resources: copiedResources(context.resources),
    // While the host decides, the provider is not idle.
    approve: (approval) => scope.watchdogs.suspendWhile(scope.bridge.approve(approval)),
    ask: (question) => scope.watchdogs.suspendWhile(scope.bridge.ask(question)),
    markDelivered: () => {
      scope.delivered = true;
      scope.watchdogs.delivered();
    },
    registerSecret: (value) => {
      if (typeof value === "string") scope.redactor.addSecret(value);
    },
  };
  if (options.model !== undefined) request.model = options.model;
  if (options.effort !== undefined) request.effort = options.effort;
  if (options.output !== undefined && scope.outputDelivery !== undefined) deliverOutput(request, options.output, scope.outputDelivery);
  if (options.metadata !== undefined) request.metadata = { ...options.metadata };
  if (options.traceContext !== undefined) request.traceContext = { ...options.traceContext };
  if (scope.binding) request.thread = { ...scope.binding };
  const providerState = scope.binding ? scope.thread?.providerState?.(context.redactor) : undefined;
  if (providerState !== undefined) request.providerState = providerState;
  if (scope.thread?.operation !== undefined) request.operation = scope.thread.operation;
  if (scope.standby) request.standby = scope.standby;
  if (scope.hostTools) request.hostTools = scope.hostTools.link;
  if (scope.binding && context.writers?.enabled) request.keepWarm = true;
  return request;
}

/**
 * The driver's own copy of the agent's resources. Most agents have none to copy: then the copy is
 * made directly, without a structured clone per run.
 */
function copiedResources(resources: ResolvedResources): ResolvedResources {
  if (resources.tools.length !== 0 || resources.skills.length !== 0 || resources.mcp.length !== 0) return structuredClone(resources);
  const copy: ResolvedResources = { tools: [], skills: [], mcp: [] };
  if (resources.instructions !== undefined) copy.instructions = resources.instructions;
  return copy;
}

/** Checkpoint the thread, decide the outcome and publish the one terminal event, last. */
async function conclude(scope: RunScope, cancelReason: () => string | undefined, startedAt: number): Promise<Result> {
  const { sink, thread, binding } = scope;
  // Before the turn is recorded and the terminal published: tool output tails held back for redaction.
  await sink.flushHeldOutput();
  const seen: RunObservation = {
    driverId: scope.context.driverId,
    delivered: scope.delivered,
    aborted: scope.controller.signal.aborted,
    announced: sink.announced,
    contractError: sink.contractError,
    fatal: scope.fatal,
    thrown: scope.thrown,
    threadRefused: thread !== undefined && binding === undefined,
    response: scope.response,
  };
  const providerSessionId = scope.response?.providerSessionId ?? sink.providerSessionId;
  if (thread && binding) {
    try {
      await thread.end({ runId: scope.timeline.runId, status: runStatus(seen), ...(providerSessionId !== undefined ? { providerSessionId } : {}), turn: runTurn(scope) });
    } catch (error) {
      seen.fatal ??= error;
    }
  }
  if (scope.response?.writer !== undefined) await keepOrRetireWriter(scope, seen, providerSessionId);
  return publishOutcome(scope, decideOutcome(seen, cancelReason()), providerSessionId, startedAt);
}

/** The run as history keeps it: prompt, input names and events redacted, no input bytes or paths. */
function runTurn(scope: RunScope): RunTurn {
  const redact = (text: string) => scope.redactor.redactText(text);
  const inputs = (scope.materialized?.inputs ?? []).map((input) => ({ name: redact(input.name), kind: input.kind, mediaType: input.mediaType, size: input.size }));
  // Model output is published as written; at rest it is redacted too, so an echoed key is not kept.
  return { prompt: redact(scope.prompt), inputs, events: scope.redactor.redactValue(scope.timeline.transcript()) };
}

/** A completed thread turn's warm writer is kept for the next turn; any other run's is retired. */
async function keepOrRetireWriter(scope: RunScope, seen: RunObservation, providerSessionId: string | undefined): Promise<void> {
  const writer = scope.response?.writer;
  if (writer === undefined) return;
  delete scope.response!.writer;
  const writers = scope.context.writers;
  if (scope.thread && scope.binding && writers && providerSessionId !== undefined && runStatus(seen) === "completed") {
    // Its endpoint (if the run's process had one) can serve the next turn's services.
    if (scope.hostTools?.heldEndpoint) scope.context.hostTools?.adopt(writer);
    writers.keep(scope.thread.threadId, scope.options, writer, { providerSessionId, runId: scope.timeline.runId });
    return;
  }
  await writer.close().catch(() => undefined);
}

/** Publish the decided terminal; resolve with the result or reject with the run's error. */
async function publishOutcome(scope: RunScope, outcome: RunOutcome, providerSessionId: string | undefined, startedAt: number): Promise<Result> {
  const { timeline, redactor } = scope;
  switch (outcome.kind) {
    case "failed": {
      const { failure, cause } = outcome;
      if (scope.options.output !== undefined && providerGaveUp(failure)) return failGivenUpOutput(scope, failure, providerSessionId);
      const safe = { ...failure, message: redactor.redactText(failure.message) };
      await timeline.finish({ type: "run.failed", error: safe });
      const partial = {
        runId: timeline.runId,
        text: echoesFailure(timeline.assistantText, failure.message) ? "" : timeline.assistantText,
        ...(providerSessionId !== undefined ? { providerSessionId } : {}),
      };
      // Only redacted text along the whole cause chain: logging an error prints its causes.
      throw new RunFailedError(safe, partial, { cause: cause === undefined ? undefined : redactor.redactValue(cause) });
    }
    case "refused": {
      // A run that could not start rejects with its own error, stamped with the run id and phase.
      const { error } = outcome;
      await timeline.finish({ type: "run.failed", error: { ...failureOf(error, "before_delivery"), message: redactor.redactText(error.message) } });
      throw markRunRefusal(redactor.redactValue(error), timeline.runId);
    }
    case "cancelled": {
      const reason = outcome.reason === undefined ? undefined : redactor.redactText(outcome.reason);
      await timeline.finish({ type: "run.cancelled", ...(reason !== undefined ? { reason } : {}) });
      throw new RunCancelledError(reason);
    }
    case "completed":
      return publishCompleted(scope, outcome.response, providerSessionId, startedAt);
  }
}

async function publishCompleted(scope: RunScope, completed: RunResponse, providerSessionId: string | undefined, startedAt: number): Promise<Result> {
  const { timeline, redactor, context } = scope;
  const structured = scope.options.output === undefined ? undefined : await structuredOrFail(scope, scope.options.output, completed, providerSessionId);
  // The summary is what run.completed carries: plain data, no keys holding undefined.
  const summary: ResultSummary = { runId: timeline.runId, status: "completed", text: completed.text, durationMs: Date.now() - startedAt };
  if (scope.thread) summary.threadId = scope.thread.threadId;
  if (structured !== undefined) summary.structured = structured.value;
  if (completed.usage !== undefined) summary.usage = { ...completed.usage };
  if (providerSessionId !== undefined) summary.providerSessionId = providerSessionId;
  // Object.assign, not spread: spreading an object plus extra keys is much slower on Node 20.
  const result: Result = Object.assign({}, summary, {
    transcript: () => timeline.transcript(),
    raw: () => ({
      provider: context.driverId,
      ...(completed.raw !== undefined ? { terminal: redactor.redactValue(completed.raw) } : {}),
      ...(completed.stderrTail !== undefined ? { stderrTail: redactor.redactText(completed.stderrTail) } : {}),
    }),
  });
  await timeline.finish({ type: "run.completed", result: summary });
  return result;
}

/** The provider refused its model's answers to the schema until it gave up: `output_invalid` too, with its message. */
async function failGivenUpOutput(scope: RunScope, failure: { message: string }, providerSessionId: string | undefined): Promise<never> {
  const partial = { runId: scope.timeline.runId, text: scope.timeline.assistantText, ...(providerSessionId !== undefined ? { providerSessionId } : {}) };
  const { failure: invalid, error } = givenUpFailure(failure.message, partial, scope.redactor);
  await scope.timeline.finish({ type: "run.failed", error: invalid });
  throw error;
}

/** The validated structured value; otherwise `run.failed` with `output_invalid`, rejecting with `OutputInvalidError`. */
async function structuredOrFail(scope: RunScope, output: ResolvedOutput, completed: RunResponse, providerSessionId: string | undefined): Promise<{ value: unknown }> {
  const decoded = await decodeStructured(output, completed, (text) => scope.redactor.redactText(text));
  if (decoded.ok) return { value: decoded.value };
  const partial = { runId: scope.timeline.runId, ...(providerSessionId !== undefined ? { providerSessionId } : {}) };
  const { failure, error } = outputFailure(decoded, completed, partial, scope.redactor);
  await scope.timeline.finish({ type: "run.failed", error: failure });
  throw error;
}

/**
 * Whether the assistant text is only the provider's error text (CLIs print an API or login error
 * as an assistant message): then it is not model output and does not become `partial.text`.
 */
function echoesFailure(text: string, message: string): boolean {
  const echoed = text.trim();
  return echoed.length > 0 && (echoed === message.trim() || (echoed.length >= 12 && message.includes(echoed)));
}
