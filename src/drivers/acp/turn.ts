/**
 * The prompt turn: send one `session/prompt`, wait for the first of the agent's answer, a cancel
 * or a watchdog, and end with exactly one outcome.
 *
 * Cancellation (seed rules): every pending permission request is answered `cancelled` first
 * (the answers are written before anything else), then `session/cancel` is sent; a cancel sent
 * while the prompt is active makes the run cancelled even if the agent then answers `end_turn`;
 * the run never ends before the agent's response or the process's retirement. The kit's stop
 * escalation bounds the wait: an agent that has not answered the prompt within the interrupt
 * grace is stopped (stdin end and SIGTERM, then SIGKILL), so even one ignoring everything is gone
 * within about a second. A prompt response that arrived before `session/cancel` was sent is the
 * turn's outcome: it is announced at once, and the late cancel only retires the process. Every
 * item the turn started and never finished is closed before the terminal. Watchdogs follow the
 * same path as a cancel, then fail the run with their code.
 */
import type { ContentBlock, PromptResponse } from "@agentclientprotocol/sdk/unstable";
import { interruptWithinGrace } from "../../driver/kit/connection.js";
import type { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import type { RunRequest, RunResponse } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import { STOP_ESCALATION } from "../../process/index.js";
import { stderrExcerpt, str } from "../../driver/json.js";
import type { AcpPresetTraits } from "./config.js";
import type { AcpConnection } from "./connection.js";
import { quotaUsage, tokenUsage, type UpdateMapper } from "./events.js";
import type { PermissionDesk } from "./permissions.js";
import type { BoundSession } from "./session.js";
import type { TurnWatchdogs, WatchdogTrip } from "./watchdogs.js";
import { readFrame, type Lenient } from "../../driver/lens.js";

/**
 * How long a cancelled turn may take to end before the agent is stopped. Longer than the kit's
 * default: Gemini CLI answers `session/cancel` in 160–240 ms on a loaded machine and loses the
 * session it is saving when terminated first; 500 ms, then SIGTERM and SIGKILL 500 ms later,
 * still ends an agent that ignores everything within about a second.
 */
const CANCEL_GRACE_MS = 500;
/** How long pending approvals may take to settle after a watchdog trip (core settles them at once on a host cancel). */
const APPROVAL_SETTLE_MS = 2000;

const abortedReason = (signal: AbortSignal): unknown => signal.reason ?? new Error("aborted");

export interface TurnContext {
  connection: AcpConnection;
  session: BoundSession;
  blocks: ContentBlock[];
  request: Pick<RunRequest, "markDelivered">;
  signal: AbortSignal;
  traits: AcpPresetTraits;
  mapper: UpdateMapper;
  emitter: OrderedEmitter;
  permissions: PermissionDesk;
  watchdogs: TurnWatchdogs;
  /** Called once the agent ended the turn by itself (answered or failed the prompt, no cancel). */
  onTurnOver?(): void;
}

type Outcome = { value: unknown } | { error: unknown } | "aborted" | WatchdogTrip;

/** Delivers the prompt and ends the turn. Resolves with the response; rejects with a typed error or the abort reason. */
export async function runPromptTurn(context: TurnContext): Promise<RunResponse> {
  const { connection, session, signal } = context;
  signal.throwIfAborted();
  context.request.markDelivered();
  context.watchdogs.touch();
  const prompt = connection.request("session/prompt", { sessionId: session.sessionId, prompt: context.blocks }, undefined, "after_delivery");
  prompt.catch(() => {});
  /** The agent's answer, as soon as it arrived. */
  let answered: { value: unknown } | undefined;
  void prompt.then((value) => (answered = { value }), () => undefined);
  context.watchdogs.start();

  let outcome = await firstOutcome(prompt, signal, context.watchdogs.tripped);
  // The answer arrived before session/cancel could be sent: it is the outcome, not the cancel.
  if (outcome === "aborted" && answered !== undefined) outcome = answered;
  if (outcome === "aborted" || "code" in outcome) return cancelTurn(context, prompt, outcome);
  context.onTurnOver?.();
  if ("error" in outcome) {
    await context.emitter.settled();
    throw outcome.error;
  }
  return answeredTurn(context, readFrame<PromptResponse>(outcome.value) ?? {});
}

/** The first of the prompt's answer (or failure), the run's abort, and a watchdog trip. */
async function firstOutcome(prompt: Promise<unknown>, signal: AbortSignal, tripped: Promise<WatchdogTrip>): Promise<Outcome> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([prompt.then((value) => ({ value }), (error: unknown) => ({ error })), aborted, tripped]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** Cancels the turn (seed order), waits for the agent or retires it, closes open items, and rejects. */
async function cancelTurn(context: TurnContext, prompt: Promise<unknown>, outcome: "aborted" | WatchdogTrip): Promise<never> {
  const { connection, session, permissions, mapper, emitter } = context;
  connection.cancelledSessions.add(session.sessionId);
  let answered = false;
  const turnEnded = prompt.then(
    () => (answered = true),
    () => (answered = true),
  );
  const interrupt = (async () => {
    // ACP: pending permission requests are answered `cancelled` before `session/cancel` is sent.
    permissions.cancelAll();
    await connection.answersWritten("session/request_permission");
    await connection.notify("session/cancel", { sessionId: session.sessionId });
  })();
  await interruptWithinGrace(() => interrupt, turnEnded, CANCEL_GRACE_MS);
  // An agent that ended its turn on the cancelled answers still gets its session/cancel, unless writing it stalls.
  if (answered) await interruptWithinGrace(() => interrupt, interrupt);
  else await connection.stopNow();
  await permissions.settled(outcome === "aborted" ? STOP_ESCALATION.interruptGraceMs : APPROVAL_SETTLE_MS);
  await mapper.finish().catch(() => {});
  await emitter.settled();
  if (outcome === "aborted") throw abortedReason(context.signal);
  await emitter.emit({ type: "notice", level: "warning", code: outcome.code, message: outcome.message });
  throw new ProviderError(outcome.message, { code: outcome.code, phase: "after_delivery" });
}

/** Usage the prompt response reports, from the sources the preset reads. */
async function reportAnswerUsage(context: TurnContext, answer: Lenient<PromptResponse>): Promise<void> {
  const { mapper, emitter } = context;
  if (mapper.usesSource("prompt_response")) {
    const usage = tokenUsage(answer.usage);
    if (usage !== undefined) {
      mapper.mergeUsage(usage);
      await emitter.emit({ type: "usage.observed", usage, provenance: { provider: "acp", event: "session/prompt.usage" } });
    }
  }
  if (mapper.usesSource("meta_quota")) {
    const usage = quotaUsage(answer._meta);
    if (usage !== undefined) {
      mapper.mergeUsage(usage);
      await emitter.emit({ type: "usage.observed", usage, provenance: { provider: "acp", event: "session/prompt._meta.quota" } });
    }
  }
}

/** The agent answered the prompt: the response, with the terminal the stop reason calls for. */
async function answeredTurn(context: TurnContext, answer: Lenient<PromptResponse>): Promise<RunResponse> {
  const { connection, session, mapper, emitter } = context;
  const stopReason = str(answer.stopReason);
  await mapper.finish();
  await reportAnswerUsage(context, answer);
  await emitter.drain();
  if (context.traits.phantomTurnAfterCancel === true && stopReason === "end_turn" && mapper.updates === 0 && connection.cancelledSessions.has(session.sessionId)) {
    throw new ProviderError("the agent answered with an empty end_turn left over from a cancelled prompt", { code: "phantom_turn", retryable: true, phase: "after_delivery" });
  }
  const response: RunResponse = {
    text: mapper.finalText(),
    providerSessionId: session.sessionId,
    raw: { sessionId: session.sessionId, stopReason, method: session.method },
  };
  const usage = mapper.usage;
  if (usage !== undefined) response.usage = usage;
  const tail = stderrExcerpt(connection.process.stderrTail(), 4000);
  if (tail !== "") response.stderrTail = tail;
  await connection.flushMalformed();
  if (stopReason === "cancelled") {
    await emitter.emit({ type: "run.cancelled", reason: "the agent ended the turn as cancelled" });
    return response;
  }
  if (stopReason === "refusal") {
    throw new ProviderError("the agent refused to continue (stopReason refusal)", { code: "refusal", phase: "after_delivery" });
  }
  if (stopReason !== "end_turn") {
    await emitter.emit({ type: "notice", level: "warning", code: "stop_reason", message: `the turn ended with stopReason ${String(stopReason)}` });
  }
  // Announced the moment it is known, so a cancel arriving while the process retires cannot rewrite it.
  await emitter.emit({ type: "run.completed", provenance: { provider: "acp", event: "session/prompt" } });
  return response;
}
