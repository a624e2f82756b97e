/**
 * One run: bind a Codex thread (`thread/start`, `thread/resume` or `thread/fork`), start one turn
 * (`turn/start` with the prompt and native image inputs), map its notifications to canonical
 * events until `turn/completed`, and answer Codex's approval and question requests through core.
 *
 * Cancellation sends `turn/interrupt` and waits briefly for the interrupted turn; the process is
 * always retired afterwards. A `turn/completed` read before the cancel was acted on is the turn's
 * outcome: the run announces it at once and a later cancel only retires the process. Every item
 * the turn started and never finished is closed before the terminal. A prompt is never sent
 * twice: once `turn/start` may have been written, every failure is reported with phase
 * `after_delivery` and nothing is replayed.
 */
import { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import { interruptWithinGrace } from "../../driver/kit/connection.js";
import { MalformedFrameNotices } from "../../driver/malformed-frames.js";
import type { EventSink, RunRequest, RunResponse, StandbyHandle } from "../../driver/types.js";
import { ConfigError, ProviderError } from "../../errors/index.js";
import { JsonRpcError, STOP_ESCALATION } from "../../process/index.js";
import type { Policy } from "../../driver/vocabulary.js";
import type { DriverEvent } from "../../events/types.js";
import { answerServerRequest } from "./approvals.js";
import type { ClientMethod, ClientParams, CodexConnection } from "./connection.js";
import { exitFailure, stderrExcerpt, turnFailure } from "./errors.js";
import { TurnMapper, type TurnOutcome } from "./events.js";
import type { AskForApproval } from "./protocol/v2/AskForApproval.js";
import type { SandboxMode } from "./protocol/v2/SandboxMode.js";
import type { ThreadForkParams } from "./protocol/v2/ThreadForkParams.js";
import type { ThreadForkResponse } from "./protocol/v2/ThreadForkResponse.js";
import type { ThreadResumeParams } from "./protocol/v2/ThreadResumeParams.js";
import type { ThreadResumeResponse } from "./protocol/v2/ThreadResumeResponse.js";
import type { ThreadStartParams } from "./protocol/v2/ThreadStartParams.js";
import type { ThreadStartResponse } from "./protocol/v2/ThreadStartResponse.js";
import type { TurnStartParams } from "./protocol/v2/TurnStartParams.js";
import type { TurnStartResponse } from "./protocol/v2/TurnStartResponse.js";
import type { TurnSteerParams } from "./protocol/v2/TurnSteerParams.js";
import type { UserInput } from "./protocol/v2/UserInput.js";

/** How long a cancelled run waits for Codex to end the turn before the process is stopped anyway (the kit's escalation). */
const INTERRUPT_GRACE_MS = STOP_ESCALATION.interruptGraceMs;

const SANDBOX: Record<NonNullable<Policy["sandbox"]>, SandboxMode> = {
  "read-only": "read-only",
  "workspace-write": "workspace-write",
  "full-access": "danger-full-access",
};

const APPROVAL: Record<Exclude<NonNullable<Policy["approval"]>, "on-failure">, AskForApproval> = {
  never: "never",
  "on-request": "on-request",
  untrusted: "untrusted",
};

/** Thread settings from the effective call options; undefined members are left to Codex's config. */
export function threadSettings(request: Pick<RunRequest, "model" | "policy" | "workspace" | "resources">): {
  cwd: string;
  model?: string;
  sandbox?: SandboxMode;
  approvalPolicy?: AskForApproval;
  developerInstructions?: string;
  config?: Record<string, boolean>;
} {
  const settings: ReturnType<typeof threadSettings> = { cwd: request.workspace };
  if (request.model !== undefined) settings.model = request.model;
  const { sandbox, approval, network } = request.policy;
  if (sandbox !== undefined) settings.sandbox = SANDBOX[sandbox];
  if (approval !== undefined) {
    if (approval === "on-failure") {
      throw new ConfigError('codex: approval policy "on-failure" is not offered by codex app-server (use never, on-request or untrusted)');
    }
    settings.approvalPolicy = APPROVAL[approval];
  }
  if (network !== undefined) settings.config = { "sandbox_workspace_write.network_access": network };
  if (request.resources.instructions !== undefined && request.resources.instructions !== "") {
    settings.developerInstructions = request.resources.instructions;
  }
  return settings;
}

/** `turn/start` input: the prompt, then each image as a native `localImage`. */
export function turnInput(request: Pick<RunRequest, "prompt" | "inputs">): UserInput[] {
  const input: UserInput[] = [{ type: "text", text: request.prompt, text_elements: [] }];
  for (const item of request.inputs) {
    if (item.kind === "image" && item.deliveryMode === "native") input.push({ type: "localImage", path: item.localPath });
    else {
      throw new ProviderError(`codex: ${item.kind} inputs delivered as ${item.deliveryMode} are not supported`, {
        code: "input_mode_unsupported",
        phase: "before_delivery",
      });
    }
  }
  return input;
}

export interface RunContext {
  /** A connection for this run: the claimed standby, or a fresh process. */
  acquire(request: RunRequest, signal: AbortSignal): Promise<CodexConnection>;
  /** The thread already loaded on the acquired connection (a warm writer's), if any. */
  loadedThread?(): string | undefined;
  /** Keeps the connection running, bound to `threadId`, as the thread's warm writer. */
  keep?(connection: CodexConnection, threadId: string): StandbyHandle;
  /** Makes the run steerable; returns the unregister function. */
  registerSteer(runId: string, steer: (text: string, signal: AbortSignal) => Promise<void>): () => void;
}

const abortedReason = (signal: AbortSignal): unknown => signal.reason ?? new Error("aborted");

/** A JSON-RPC error answer as a typed error; a thread Codex cannot find has its own code. */
function refused(method: string, error: unknown, phase: "before_delivery" | "after_delivery"): unknown {
  if (!(error instanceof JsonRpcError)) return error;
  const missing = (method === "thread/resume" || method === "thread/fork") && /no rollout found|invalid session id|not found/i.test(error.message);
  return new ProviderError(`codex refused ${method}: ${error.message}`, {
    code: missing ? "provider_session_not_found" : "provider_error",
    phase,
    cause: error,
  });
}

/** Runs one turn. Resolves with the run's response; rejects with a typed error or the abort reason. */
export async function runTurn(request: RunRequest, sink: EventSink, signal: AbortSignal, context: RunContext): Promise<RunResponse> {
  // Everything that can be refused is refused before a process starts.
  const settings = threadSettings(request);
  const input = turnInput(request);
  signal.throwIfAborted();

  // All events go through one chain, so notifications, request notices and protocol notices keep
  // their order and a slow consumer pauses reading (the notification handler awaits its emit).
  const emitter = new OrderedEmitter(sink);
  const emit = emitter.emit;
  const mapper = new TurnMapper(emitter.offer);
  const malformed = new MalformedFrameNotices(emit, "codex app-server");
  /** Server requests (approvals, questions) still being answered by the host. */
  const pendingRequests = new Set<Promise<void>>();

  const connection = await context.acquire(request, signal);
  /** Set once the completed turn's process is handed back as the thread's warm writer. */
  let kept = false;
  let delivered = false;
  let turnId: string | undefined;
  /** What Codex settled for the thread (model, policies), kept for `Result.raw()`. */
  let threadEcho: Record<string, unknown> | undefined;
  let interrupted = false;
  let resolveTurnId!: () => void;
  const turnKnown = new Promise<void>((resolve) => (resolveTurnId = resolve));

  const detach = connection.attach({
    onNotification: (method, params) => mapper.handle(method, params),
    onRequest: (method, params, id) => {
      const answer = answerServerRequest(method, params, `codex_${id}`, {
        request,
        fileChanges: (itemId) => mapper.fileChanges(itemId),
        notice: (level, code, message) => mapper.notice(level, code, message),
      });
      const settled = answer.then(
        () => undefined,
        () => undefined,
      );
      pendingRequests.add(settled);
      void settled.then(() => pendingRequests.delete(settled));
      return answer;
    },
    onProtocolError: (error, excerpt) => {
      // A failure with a cause is ours (a handler, the read itself), not an unreadable line.
      const reported = error.cause === undefined
        ? malformed.report(error.code, excerpt)
        : mapper.notice("warning", "protocol_error", `codex app-server: ${error.message}`);
      void reported.catch(() => {});
    },
  });

  const interrupt = async (): Promise<void> => {
    if (interrupted) return;
    interrupted = true;
    const threadId = mapper.threadId;
    if (turnId === undefined || threadId === undefined || mapper.done || !connection.alive) return;
    const grace = AbortSignal.timeout(INTERRUPT_GRACE_MS);
    try {
      await connection.request("turn/interrupt", { threadId, turnId }, grace);
    } catch {
      // No active turn any more, or the process is gone: nothing left to interrupt.
    }
  };

  const exitWatch = connection.exited.then((exit) => ({ exit }));
  let abortListener: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    abortListener = () => resolve("aborted");
    if (signal.aborted) abortListener();
    else signal.addEventListener("abort", abortListener, { once: true });
  });
  const unregisterSteer = context.registerSteer(request.runId, async (text, steerSignal) => {
    await Promise.race([turnKnown, mapper.outcome, aborted]);
    if (turnId === undefined || mapper.done || signal.aborted) {
      throw new ProviderError("codex: the run has no active turn to steer", { code: "steer_rejected", phase: "after_delivery" });
    }
    const params: TurnSteerParams = { threadId: mapper.threadId!, input: [{ type: "text", text, text_elements: [] }], expectedTurnId: turnId };
    await connection.request("turn/steer", params, steerSignal);
  });

  /** Races a request against the process exiting and the run being cancelled. */
  const guarded = async <M extends ClientMethod>(method: M, params: ClientParams<M>): Promise<unknown> => {
    const outcome = await Promise.race([
      connection.request<unknown, M>(method, params, signal).then(
        (value) => ({ value }),
        (error: unknown) => {
          throw refused(method, error, delivered ? "after_delivery" : "before_delivery");
        },
      ),
      exitWatch,
      aborted,
    ]);
    if (outcome === "aborted") throw abortedReason(signal);
    if ("exit" in outcome) {
      await connection.process.stop();
      throw exitFailure(`during ${method}`, outcome.exit, connection.process.stderrTail(), delivered ? "after_delivery" : "before_delivery");
    }
    return outcome.value;
  };

  try {
    // --- bind the thread ---------------------------------------------------------------------
    const thread = request.thread;
    let method: "thread/fork" | "thread/resume" | "thread/start" | "loaded";
    let bound: Partial<ThreadStartResponse | ThreadResumeResponse | ThreadForkResponse> | undefined;
    const loaded = context.loadedThread?.();
    if (loaded !== undefined && thread?.providerSessionId === loaded && thread.fork !== true) {
      // A warm writer: the thread is still loaded in this app-server, so the turn starts on it directly.
      method = "loaded";
      bound = { thread: { id: loaded } as ThreadStartResponse["thread"] };
    } else if (thread?.providerSessionId !== undefined && thread.fork === true) {
      method = "thread/fork";
      const params: ThreadForkParams = { threadId: thread.providerSessionId, ...settings, excludeTurns: true };
      bound = (await guarded(method, params)) as ThreadForkResponse;
    } else if (thread?.providerSessionId !== undefined) {
      method = "thread/resume";
      const params: ThreadResumeParams = { threadId: thread.providerSessionId, ...settings, excludeTurns: true };
      bound = (await guarded(method, params)) as ThreadResumeResponse;
    } else {
      method = "thread/start";
      const params: ThreadStartParams = { ...settings };
      bound = (await guarded(method, params)) as ThreadStartResponse;
    }
    const threadId = bound?.thread?.id;
    threadEcho = {
      method,
      model: bound?.model,
      modelProvider: bound?.modelProvider,
      approvalPolicy: bound?.approvalPolicy,
      sandbox: bound?.sandbox,
      reasoningEffort: bound?.reasoningEffort,
    };
    if (typeof threadId !== "string" || threadId === "") {
      throw new ProviderError("codex: the thread request answered without a thread id", { code: "malformed_response", phase: "before_delivery" });
    }
    mapper.threadId = threadId;
    await emit({ type: "thread.bound", providerSessionId: threadId, provenance: { provider: "codex", event: method } });
    const undelivered = [
      request.resources.tools.length > 0 ? "host tools" : undefined,
      request.resources.skills.length > 0 ? "skills" : undefined,
    ].filter((x): x is string => x !== undefined);
    if (undelivered.length > 0) {
      await emit({
        type: "notice",
        level: "warning",
        code: "resources_unsupported",
        message: `the codex driver does not deliver the agent's ${undelivered.join(" and ")} to Codex yet; they were not offered to the model`,
      });
    }

    // --- start the turn ----------------------------------------------------------------------
    const turnParams: TurnStartParams = { threadId, input };
    // Core folds the config's default under the call's (Driver.defaults): this is the effective one.
    if (request.effort !== undefined) turnParams.effort = request.effort;
    if (request.outputSchema !== undefined) turnParams.outputSchema = request.outputSchema as TurnStartParams["outputSchema"];
    signal.throwIfAborted();
    request.markDelivered();
    delivered = true;
    // Not cancelled locally: once written, the turn is interrupted properly instead of abandoned.
    const started = await Promise.race([
      connection.request<TurnStartResponse>("turn/start", turnParams).then(
        (value) => ({ value }),
        (error: unknown) => {
          throw refused("turn/start", error, "after_delivery");
        },
      ),
      exitWatch,
    ]);
    if ("exit" in started) {
      await connection.process.stop();
      throw exitFailure("during turn/start", started.exit, connection.process.stderrTail(), "after_delivery");
    }
    turnId = started.value?.turn?.id;
    resolveTurnId();
    if (signal.aborted) await interrupt();

    // --- wait for the end of the turn --------------------------------------------------------
    let ended = await Promise.race([mapper.outcome, exitWatch, aborted]);
    // The turn had completed before the cancel was acted on: it is the outcome, not the cancel.
    if (ended === "aborted" && mapper.done) ended = await mapper.outcome;
    if (ended === "aborted") {
      // Interrupt, then a short grace; a Codex that ignores it is stopped by the group escalation below.
      await interruptWithinGrace(interrupt, Promise.race([mapper.outcome, exitWatch]));
      // A pending approval or question is resolved as cancelled by core; let that land before the terminal.
      await interruptWithinGrace(() => Promise.all(pendingRequests), Promise.all(pendingRequests));
      throw abortedReason(signal);
    }
    if ("exit" in ended) {
      // A turn/completed may still sit in the pipe behind the exit.
      const late = await Promise.race([mapper.outcome, connection.peer.done.then(() => undefined)]);
      if (late === undefined) {
        await connection.process.stop();
        throw exitFailure("during the turn", ended.exit, connection.process.stderrTail(), "after_delivery");
      }
      ended = late;
    }
    await malformed.flush();
    await emitter.drain();
    const response = await finish(ended, request, mapper, connection, emit, threadEcho);
    if (request.keepWarm === true && context.keep && ended.turn.status === "completed" && connection.alive && !signal.aborted) {
      response.writer = context.keep(connection, mapper.threadId!);
      kept = true;
    }
    return response;
  } catch (error) {
    await mapper.closeOpenItems().catch(() => undefined);
    await malformed.flush().catch(() => undefined);
    throw await emitter.failure(error, signal);
  } finally {
    if (abortListener) signal.removeEventListener("abort", abortListener);
    unregisterSteer();
    detach();
    // A finished turn is the run's outcome at once: its process retires in the background (the
    // driver owns it until it exits; close() reaps it). Any other ending stops it before returning.
    if (!kept) await retireConnection(connection, mapper.done && !signal.aborted);
  }
}

function retireConnection(connection: CodexConnection, turnOver: boolean): Promise<void> {
  const closing = connection.close();
  if (!turnOver) return closing;
  void closing.catch(() => undefined);
  return Promise.resolve();
}

async function finish(
  outcome: TurnOutcome,
  request: RunRequest,
  mapper: TurnMapper,
  connection: CodexConnection,
  emit: (event: DriverEvent) => Promise<void>,
  threadEcho: Record<string, unknown> | undefined,
): Promise<RunResponse> {
  const { turn, fatal } = outcome;
  const status = turn.status;
  await mapper.closeOpenItems();
  if (status === "failed") throw turnFailure(turn.error ?? fatal, "after_delivery");
  const text = mapper.finalText(turn.items);
  const response: RunResponse = {
    text,
    providerSessionId: mapper.threadId!,
    raw: { threadId: mapper.threadId, thread: threadEcho, turn: { id: turn.id, status, durationMs: turn.durationMs ?? undefined } },
  };
  const tail = stderrExcerpt(connection.process.stderrTail(), 4000);
  if (tail !== "") response.stderrTail = tail;
  if (mapper.usage !== undefined) response.usage = { ...mapper.usage };
  if (request.outputSchema !== undefined) {
    try {
      response.structured = JSON.parse(text) as unknown;
    } catch {
      await emit({ type: "notice", level: "warning", code: "structured_output_invalid", message: "the final message is not valid JSON" });
    }
  }
  if (status === "interrupted") {
    // Codex stopped the turn itself (e.g. an approval answered "deny and stop").
    await emit({ type: "run.cancelled", reason: "the Codex turn was interrupted" });
    return response;
  }
  if (status !== "completed") {
    throw new ProviderError(`codex: the turn ended with an unexpected status ${String(status)}`, { code: "malformed_response", phase: "after_delivery" });
  }
  // Announced the moment it is known, so a cancel arriving while the process retires cannot rewrite it.
  await emit({ type: "run.completed", provenance: { provider: "codex", event: "turn/completed" } });
  return response;
}
