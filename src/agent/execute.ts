/**
 * The single execution path (DESIGN §3, §5): every `run()` and `stream()` — on an Agent or a
 * Thread — starts here. It stamps `run.started`, calls the driver with a checked sink, routes
 * approvals and questions, and publishes exactly one terminal event, last.
 */
import { randomUUID } from "node:crypto";
import type { Descriptor, Driver, ResolvedResources, RunRequest, RunResponse, StandbyHandle } from "../driver/types.js";
import {
  AdaptorError,
  AuthRequiredError,
  ConfigError,
  DriverContractError,
  ExecutableNotFoundError,
  FeatureUnsupportedError,
  markRunRefusal,
  ProviderError,
  RunCancelledError,
  RunFailedError,
  StoreError,
  type DeliveryPhase,
} from "../errors/index.js";
import { RunTimeline } from "../events/timeline.js";
import type { ApprovalDecision, DriverEvent, Result, RunFailure } from "../events/types.js";
import { assertDriverEvent, DRIVER_TERMINAL_TYPES } from "../events/validate.js";
import { withPlaceholders, type Redactor } from "../redact/redact.js";
import { InputError, type InputDiagnosticHandler } from "../input/errors.js";
import { materializeInputs, type MaterializedInputs } from "../input/materialize.js";
import type { CallOptions, EventBufferOptions } from "./options.js";
import type { ApprovalRequest, InputLimits, Policy, UserInputAnswer, UserInputRequest } from "../driver/vocabulary.js";
import { startupDeadline } from "./startup-deadline.js";
import { inputPathPlaceholders } from "./input-paths.js";
import { raceAbort } from "./prepare.js";
import { RunStreamImpl, type RunStream } from "./run-stream.js";

/** Event types whose text is model output; every other event is redacted before publication. */
const CONTENT_EVENTS = new Set(["message.delta", "message.completed", "reasoning.delta", "reasoning.completed"]);

export interface ExecutionContext {
  driver: Driver;
  driverId: string;
  workspace: string;
  resources: ResolvedResources;
  events: Required<EventBufferOptions>;
  redactor: Redactor;
  /** The driver's static input capabilities and the agent's limits. */
  inputs: { capabilities: Descriptor["inputs"]; limits?: InputLimits; onDiagnostic?: InputDiagnosticHandler };
  /** Whether the driver honours `outputSchema` (`descriptor().features.structuredOutput`). */
  structuredOutput: boolean;
  /** `AgentOptions.startupTimeoutMs`, defaulted (see `startup-deadline.ts`). */
  startupTimeoutMs: number;
  /**
   * Claim the prepared standby for these effective settings and thread binding, only if it is
   * compatible and the driver says it can serve the run; otherwise it stays for a later run.
   */
  claimStandby(options: EffectiveCallOptions, thread: ThreadBinding | undefined): StandbyHandle | undefined;
  /** Register the run so `close()` can cancel it and wait for it. */
  track(run: { cancel(reason: unknown): void; settled: Promise<void> }): () => void;
}

export type EffectiveCallOptions = Omit<CallOptions, "signal"> & { policy: Policy };

export interface ThreadBinding {
  id: string;
  providerSessionId?: string;
  fork?: boolean;
}

/** How a thread takes part in a run: lease and checkpoint validation first, checkpoint last. */
export interface ThreadRunHooks {
  threadId: string;
  /**
   * Acquire the lease and validate the checkpoint before anything launches; `onLost` is called if
   * the lease is lost while the run is alive. Rejects (e.g. `thread_busy`) to fail the run.
   */
  begin(signal: AbortSignal, onLost: (error: Error) => void): Promise<ThreadBinding>;
  /** The provider's session id became known. */
  bound(providerSessionId: string): Promise<void>;
  /** Save the checkpoint and release the lease. Called on every ending once `begin` resolved. */
  end(outcome: { runId: string; status: "completed" | "failed" | "cancelled"; providerSessionId?: string }): Promise<void>;
}

export function startExecution(
  context: ExecutionContext,
  prompt: string,
  options: EffectiveCallOptions,
  signal: AbortSignal | undefined,
  thread?: ThreadRunHooks,
): RunStream {
  const runId = `run_${randomUUID()}`;
  const timeline = new RunTimeline({
    runId,
    bufferSize: context.events.bufferSize,
    overflow: context.events.overflow,
    ...(thread ? { threadId: thread.threadId } : {}),
  });
  const controller = new AbortController();
  let cancelReason: string | undefined;
  const cancel = (reason?: unknown) => {
    if (controller.signal.aborted) return;
    cancelReason = typeof reason === "string" ? reason : reason instanceof Error ? reason.message : undefined;
    controller.abort(new RunCancelledError(cancelReason));
  };
  const onCallerAbort = () => cancel(signal?.reason instanceof Error ? signal.reason.message : "the caller's signal aborted");
  if (signal?.aborted) onCallerAbort();
  else signal?.addEventListener("abort", onCallerAbort, { once: true });

  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const untrack = context.track({ cancel, settled });

  const result = runToTerminal(context, timeline, prompt, options, controller, () => cancelReason, thread).finally(() => {
    signal?.removeEventListener("abort", onCallerAbort);
    untrack();
    settle();
  });
  return new RunStreamImpl({ timeline, result, settled, cancel });
}

async function runToTerminal(
  context: ExecutionContext,
  timeline: RunTimeline,
  prompt: string,
  options: EffectiveCallOptions,
  controller: AbortController,
  cancelReason: () => string | undefined,
  thread: ThreadRunHooks | undefined,
): Promise<Result> {
  const { driver, driverId } = context;
  /** The agent's redactor; once the run's input copies exist, it also hides their paths. */
  let redactor: Redactor = context.redactor;
  const startedAt = Date.now();
  const signal = controller.signal;
  let delivered = false;
  let contractError: DriverContractError | undefined;
  /** A core-side failure (lost lease) that ends the run regardless of what the driver does. */
  let fatal: AdaptorError | Error | undefined;
  let announced: DriverEvent | undefined;
  let binding: ThreadBinding | undefined;
  let providerSessionId: string | undefined;

  const deadline = startupDeadline(context.startupTimeoutMs, (failure) => {
    fatal ??= failure;
    controller.abort(failure);
  });

  const violate = (error: DriverContractError): never => {
    contractError ??= error;
    controller.abort(error);
    throw error;
  };

  const sink = {
    // Not async: the common case publishes synchronously and returns nothing to await.
    emit: (event: DriverEvent): Promise<void> | undefined => {
      try {
        if (contractError) throw contractError;
        try {
          assertDriverEvent(driverId, event);
        } catch (error) {
          violate(error as DriverContractError);
        }
        if (announced) violate(new DriverContractError(driverId, `emitted ${event.type} after its terminal event`));
        if (DRIVER_TERMINAL_TYPES.has(event.type)) {
          announced = event;
          deadline.dispose();
          return undefined;
        }
        deadline.observe(event);
        if (event.type === "thread.bound") {
          providerSessionId = event.providerSessionId;
          if (thread) return thread.bound(event.providerSessionId).then(() => publish(event));
        }
        return publish(event);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
  const publish = (event: DriverEvent): Promise<void> | undefined => {
    try {
      const published = CONTENT_EVENTS.has(event.type) ? event : redactor.redactValue(event);
      return timeline.publish(published as Parameters<RunTimeline["publish"]>[0]);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const decideApproval = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    const safeRequest = redactor.redactValue(request);
    await timeline.publish({ type: "approval.requested", ...withoutInput(safeRequest) });
    let decision: ApprovalDecision;
    let by: "handler" | "policy" | "cancel" = "handler";
    if (signal.aborted) {
      decision = { decision: "deny", message: "the run was cancelled", interrupt: true };
      by = "cancel";
    } else if (options.onApproval) {
      try {
        // A handler that ignores the signal must not hold a cancelled run open.
        decision = await raceAbort(options.onApproval(safeRequest, signal), signal);
      } catch {
        decision = { decision: "deny", message: signal.aborted ? "the run was cancelled" : "the approval handler failed" };
        if (!signal.aborted) {
          await timeline.publish({ type: "notice", level: "warning", code: "approval_handler_failed", message: "the approval handler threw; the request was denied" });
        }
      }
      if (signal.aborted) by = "cancel";
    } else {
      // Without a handler nothing may be approved on the host's behalf; say so, never silently.
      decision = { decision: "deny", message: "no approval handler is configured" };
      by = "policy";
      await timeline.publish({ type: "notice", level: "warning", code: "approval_denied_by_policy", message: "no approval handler is configured; the request was denied" });
    }
    await timeline.publish({ type: "approval.resolved", requestId: request.requestId, decision: redactor.redactValue(decision), by });
    return decision;
  };

  const answerQuestion = async (request: UserInputRequest): Promise<UserInputAnswer> => {
    await timeline.publish({ type: "question.requested", requestId: request.requestId, questions: redactor.redactValue(request.questions) });
    let answer: UserInputAnswer = { declined: true };
    if (options.onUserInput && !signal.aborted) {
      try {
        answer = await raceAbort(options.onUserInput(redactor.redactValue(request), signal), signal);
      } catch {
        answer = { declined: true };
      }
    }
    await timeline.publish({ type: "question.resolved", requestId: request.requestId, answered: !("declined" in answer) });
    return answer;
  };

  let standby: StandbyHandle | undefined;
  let materialized: MaterializedInputs | undefined;
  let response: RunResponse | undefined;
  let thrown: unknown;
  try {
    await timeline.publish({ type: "run.started", driver: driverId, ...(options.model ? { model: options.model } : {}) });
    signal.throwIfAborted();
    if (options.outputSchema !== undefined && !context.structuredOutput) {
      // Refused before anything launches: a driver that cannot honour it would silently drop it.
      throw new FeatureUnsupportedError("structured output (outputSchema)", driverId);
    }
    if (options.inputs && options.inputs.length > 0) {
      // Copied, hashed and checked before any lease, process or prompt.
      materialized = await materializeInputs(options.inputs, {
        driverId,
        capabilities: context.inputs.capabilities,
        signal,
        ...(context.inputs.limits ? { limits: context.inputs.limits } : {}),
        ...(context.inputs.onDiagnostic ? { onDiagnostic: context.inputs.onDiagnostic } : {}),
      });
      redactor = withPlaceholders(context.redactor, await inputPathPlaceholders(materialized.inputs));
    }
    if (thread) {
      // Lease and checkpoint validation come before any process is claimed or launched.
      binding = await thread.begin(signal, (error) => {
        fatal ??= error;
        controller.abort(error);
      });
      providerSessionId = binding.providerSessionId;
    }
    signal.throwIfAborted();
    standby = options.spawn === true ? undefined : context.claimStandby(options, binding);
    const request: RunRequest = {
      runId: timeline.runId,
      prompt,
      inputs: materialized ? materialized.inputs.map((resolved) => ({ ...resolved })) : [],
      policy: options.policy,
      workspace: context.workspace,
      resources: structuredClone(context.resources),
      approve: decideApproval,
      ask: answerQuestion,
      markDelivered: () => {
        delivered = true;
      },
      registerSecret: (value) => {
        if (typeof value === "string") redactor.addSecret(value);
      },
    };
    if (options.model !== undefined) request.model = options.model;
    if (options.effort !== undefined) request.effort = options.effort;
    if (options.outputSchema !== undefined) request.outputSchema = options.outputSchema;
    if (options.metadata !== undefined) request.metadata = { ...options.metadata };
    if (binding) request.thread = { ...binding };
    if (standby) request.standby = standby;
    signal.throwIfAborted();
    try {
      response = await driver.run(request, sink, signal);
    } catch (error) {
      // The one safe fallback (DESIGN §8): a claimed standby that failed before the prompt could
      // have been delivered is replaced by a cold launch. After possible delivery, never.
      if (!standby || delivered || signal.aborted || contractError || fatal || announced) throw error;
      await standby.close();
      standby = undefined;
      delete request.standby;
      await timeline.publish({ type: "notice", level: "warning", code: "standby_fallback", message: "the prepared process failed before delivery; launching a fresh one" });
      response = await driver.run(request, sink, signal);
    }
  } catch (error) {
    thrown = error;
  } finally {
    deadline.dispose();
    // The driver and its event sources have stopped: its standby and the run's input copies go.
    await standby?.close();
    await materialized?.dispose();
  }

  const phase: DeliveryPhase = delivered ? "after_delivery" : "before_delivery";
  const partial = (failure: RunFailure) => ({
    runId: timeline.runId,
    text: echoesFailure(timeline.assistantText, failure.message) ? "" : timeline.assistantText,
    ...(providerSessionId !== undefined ? { providerSessionId } : {}),
  });
  const fail = async (failure: RunFailure, cause?: unknown): Promise<never> => {
    const safe = { ...failure, message: redactor.redactText(failure.message) };
    await timeline.finish({ type: "run.failed", error: safe });
    // Only redacted text along the whole cause chain: logging an error prints its causes.
    throw new RunFailedError(safe, partial(failure), { cause: cause === undefined ? undefined : redactor.redactValue(cause) });
  };
  /** A run that could not start rejects with its own error, stamped with the run id and phase. */
  const refuse = async (error: AdaptorError): Promise<never> => {
    await timeline.finish({ type: "run.failed", error: { ...failureOf(error, "before_delivery"), message: redactor.redactText(error.message) } });
    throw markRunRefusal(redactor.redactValue(error), timeline.runId);
  };

  // A driver that announced run.completed had the provider's final answer: a cancel arriving
  // after that (while the driver retires its process) does not rewrite the run.
  const completedBeforeCancel = announced?.type === "run.completed" && thrown === undefined;
  const cancelled = (signal.aborted && !completedBeforeCancel) || announced?.type === "run.cancelled";
  const status = contractError || fatal || (thrown !== undefined && !signal.aborted) || announced?.type === "run.failed"
    ? "failed"
    : cancelled
      ? "cancelled"
      : "completed";
  if (response?.providerSessionId !== undefined) providerSessionId = response.providerSessionId;
  if (thread && binding) {
    try {
      await thread.end({ runId: timeline.runId, status, ...(providerSessionId !== undefined ? { providerSessionId } : {}) });
    } catch (error) {
      fatal ??= error as Error;
    }
  }

  if (fatal) return fail(failureOf(fatal, phase), fatal);
  if (contractError) {
    return fail({ code: contractError.code, message: contractError.message, phase, retryable: false }, contractError);
  }
  if (thrown !== undefined && !signal.aborted && binding === undefined && thread) {
    // The thread refused the run (busy, incompatible, not found) before anything launched.
    return AdaptorError.is(thrown) ? refuse(thrown) : fail(failureOf(thrown, "before_delivery"), thrown);
  }
  if (cancelled) {
    const reason = cancelReason() ?? (announced?.type === "run.cancelled" ? announced.reason : undefined);
    await timeline.finish({ type: "run.cancelled", ...(reason !== undefined ? { reason: redactor.redactText(reason) } : {}) });
    throw new RunCancelledError(reason === undefined ? undefined : redactor.redactText(reason));
  }
  if (thrown !== undefined && !delivered && isRefusal(thrown)) return refuse(thrown);
  if (thrown !== undefined) return fail(failureOf(thrown, phase), thrown);
  if (announced?.type === "run.failed") return fail({ ...announced.error, phase: delivered ? announced.error.phase : "before_delivery" });
  if (typeof response !== "object" || response === null || typeof response.text !== "string") {
    return fail({ code: "driver_contract", message: `driver ${driverId}: run() resolved without a text result`, phase, retryable: false });
  }

  const completed = response;
  const transcriptOf = () => timeline.transcript();
  const result: Result = {
    runId: timeline.runId,
    status: "completed",
    text: completed.text,
    durationMs: Date.now() - startedAt,
    transcript: transcriptOf,
    raw: () => ({
      provider: driverId,
      ...(completed.raw !== undefined ? { terminal: redactor.redactValue(completed.raw) } : {}),
      ...(completed.stderrTail !== undefined ? { stderrTail: redactor.redactText(completed.stderrTail) } : {}),
    }),
  };
  if (thread) result.threadId = thread.threadId;
  if (completed.structured !== undefined) result.structured = completed.structured;
  if (completed.usage !== undefined) result.usage = { ...completed.usage };
  const sessionId = completed.providerSessionId ?? providerSessionId;
  if (sessionId !== undefined) result.providerSessionId = sessionId;
  await timeline.finish({ type: "run.completed", result });
  return result;
}

function withoutInput(request: ApprovalRequest): Omit<ApprovalRequest, "input"> {
  const { input: _input, ...rest } = request;
  return rest;
}

/**
 * Errors that say why a run could not start. Thrown before the prompt could be delivered, they
 * reject the run as themselves; `RunFailedError` is for failures of a run that got under way.
 */
function isRefusal(error: unknown): error is AdaptorError {
  return (
    error instanceof InputError ||
    error instanceof ConfigError ||
    error instanceof ExecutableNotFoundError ||
    error instanceof AuthRequiredError ||
    error instanceof FeatureUnsupportedError
  );
}

/**
 * Whether the assistant text is only the provider's error text (CLIs print an API or login error
 * as an assistant message): then it is not model output and does not become `partial.text`.
 */
function echoesFailure(text: string, message: string): boolean {
  const echoed = text.trim();
  return echoed.length > 0 && (echoed === message.trim() || (echoed.length >= 12 && message.includes(echoed)));
}

function failureOf(error: unknown, phase: DeliveryPhase): RunFailure {
  if (AdaptorError.is(error)) {
    return {
      code: error.code,
      message: error.message,
      phase,
      retryable: error instanceof ProviderError || error instanceof StoreError ? error.retryable : false,
    };
  }
  return { code: "provider_error", message: error instanceof Error ? error.message : "the driver failed", phase, retryable: false };
}
