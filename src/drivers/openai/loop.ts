/**
 * The agent loop of one turn: model request, tool calls, results, and again, until the model
 * answers without calling a tool. Steering text is added before the next model request of the
 * turn; a follow-up runs when the turn would otherwise end. A model request that fails with a
 * retryable error (429, 5xx, a lost connection) before any of its output was delivered is sent
 * again after a backoff (the server's `retry-after` when it gives one); once output went out it
 * never is. The conversation is saved after every batch of tool results and when the turn ends
 * (however it ends).
 */
import { abortableDelay } from "../../driver/kit/delay.js";
import type { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import { ProviderError } from "../../errors/index.js";
import type { Usage } from "../../events/usage.js";
import type { OpenAIClient } from "./client.js";
import { MAX_TIMER_MS, type ResolvedOpenAIConfig } from "./config.js";
import type { ContextGuard } from "./compaction.js";
import type { ConversationFile, ConversationMessage, ConversationTurn } from "./conversation.js";
import { historyOf } from "./conversation.js";
import { isRetryable, requestFailure, retryAfterMs } from "./failures.js";
import { LinkedAbort } from "./linked-signal.js";
import { runToolCalls, type ToolCallContext } from "./tool-calls.js";
import type { TurnUsage } from "./usage.js";
import type { DeltaSink, ModelAnswer, ModelRequest, WireApi } from "./wire/types.js";

const PROVIDER = "openai";
const MAX_RETRY_DELAY_MS = 30_000;

/** Steering and follow-up text for the run in flight. */
export class RunQueues {
  readonly steers: string[] = [];
  readonly followUps: string[] = [];
  ended = false;
}

export interface LoopContext {
  client: OpenAIClient;
  wire: WireApi;
  config: ResolvedOpenAIConfig;
  emitter: OrderedEmitter;
  signal: AbortSignal;
  /** The request fields every model request repeats. */
  base: Omit<ModelRequest, "messages">;
  /** The conversation: its earlier turns and, last, the one running (whose messages grow as the loop goes). */
  conversation: ConversationFile;
  turn: ConversationTurn;
  /** Compacts the conversation before a request that would not fit the context window. */
  guard?: ContextGuard;
  queues: RunQueues;
  usage: TurnUsage;
  tools: Omit<ToolCallContext, "emit" | "signal" | "redact">;
  /** Called once, right before the first model request leaves. */
  markDelivered(): void;
  /** Saves the conversation as it is now. */
  save(): Promise<void>;
  /** The driver's redaction, for a failed request's message before it is cut. */
  redact(text: string): string;
}

/** What the turn produced. */
export interface LoopResult {
  /** The last assistant text of the turn. */
  text: string;
  usage?: Usage;
}

/** Open text and reasoning items of one model request. */
class Segments {
  #text: string | undefined;
  #reasoning: string | undefined;
  delivered = false;
  readonly #textId: string;
  readonly #reasoningId: string;

  constructor(
    readonly emitter: OrderedEmitter,
    step: number,
  ) {
    this.#textId = `msg_${step}`;
    this.#reasoningId = `rsn_${step}`;
  }

  readonly sink: DeltaSink = {
    text: (delta) => {
      this.delivered = true;
      this.#text = this.#text === undefined ? delta : this.#text + delta;
      return this.emitter.offer({ type: "message.delta", itemId: this.#textId, text: delta });
    },
    reasoning: (delta) => {
      this.delivered = true;
      this.#reasoning = this.#reasoning === undefined ? delta : this.#reasoning + delta;
      return this.emitter.offer({ type: "reasoning.delta", itemId: this.#reasoningId, text: delta });
    },
  };

  /** Completes the items this request opened (also after a failure: what was said stays said). */
  async close(): Promise<void> {
    const provenance = { provider: PROVIDER };
    if (this.#reasoning !== undefined) await this.emitter.emit({ type: "reasoning.completed", itemId: this.#reasoningId, text: this.#reasoning, provenance });
    if (this.#text !== undefined) await this.emitter.emit({ type: "message.completed", itemId: this.#textId, text: this.#text, provenance });
    this.#reasoning = undefined;
    this.#text = undefined;
  }
}

/** Runs the turn to its end. */
export async function runLoop(ctx: LoopContext): Promise<LoopResult> {
  let text = "";
  let delivered = false;
  for (let step = 1; ; step++) {
    if (step > ctx.config.maxSteps) {
      throw new ProviderError(`openai: the turn made ${ctx.config.maxSteps} model requests without finishing (maxSteps)`, { code: "max_turns", phase: "after_delivery" });
    }
    takeQueued(ctx.queues.steers, "steer", ctx.turn);
    if (!delivered) {
      ctx.markDelivered();
      delivered = true;
    }
    const answer = await modelRequest(ctx, step);
    ctx.turn.messages.push({ role: "assistant", text: answer.text, ...(answer.reasoning !== "" ? { reasoning: answer.reasoning } : {}), toolCalls: answer.toolCalls, model: ctx.base.model });
    if (answer.text !== "") text = answer.text;
    if (answer.toolCalls.length > 0) {
      const batch = await runToolCalls(answer.toolCalls, { ...ctx.tools, emit: ctx.emitter.emit, signal: ctx.signal, redact: ctx.redact });
      ctx.turn.messages.push(...batch.results);
      if (answer.toolCalls.some((call) => mayChange(ctx, call.name))) await ctx.save();
      if (batch.interrupt) break;
      continue;
    }
    if (ctx.queues.steers.length > 0) continue;
    if (takeQueued(ctx.queues.followUps, "follow_up", ctx.turn, 1)) continue;
    break;
  }
  const usage = ctx.usage.current();
  return usage === undefined ? { text } : { text, usage };
}

/**
 * Whether a call may have changed something outside the conversation (a write, edit or command, an
 * MCP or host tool, a subagent): a batch with one is saved at once, so a crash never leaves changes
 * the stored transcript does not know about. What only read the workspace (a built-in tool that
 * never asks for approval) is saved with the turn's next save: each save of a thread's
 * conversation is a write of its whole provider state to the thread store.
 */
function mayChange(ctx: LoopContext, name: string): boolean {
  const offered = ctx.tools.toolbox.get(name);
  return offered?.kind !== "builtin" || offered.tool.approval !== undefined;
}

/** Moves up to `max` queued texts into the turn as user messages; whether any was. */
function takeQueued(queue: string[], origin: "steer" | "follow_up", turn: ConversationTurn, max = Infinity): boolean {
  let taken = 0;
  while (queue.length > 0 && taken < max) {
    const text = queue.shift()!;
    const message: ConversationMessage = { role: "user", content: [{ type: "text", text }], origin };
    turn.messages.push(message);
    taken++;
  }
  return taken > 0;
}

/** One model request, retried before delivery; its usage reported. */
async function modelRequest(ctx: LoopContext, step: number): Promise<ModelAnswer> {
  let request: ModelRequest = { ...ctx.base, messages: historyOf(ctx.conversation.turns) };
  if (ctx.guard !== undefined && (await ctx.guard.check(request))) request = { ...ctx.base, messages: historyOf(ctx.conversation.turns) };
  for (let attempt = 0; ; attempt++) {
    const segments = new Segments(ctx.emitter, step);
    const deadline = new RequestDeadline(ctx.signal, ctx.config.requestTimeoutMs);
    try {
      const answer = await ctx.wire.stream(ctx.client, request, segments.sink, deadline.signal).catch((error: unknown) => {
        throw deadline.expired && !ctx.signal.aborted ? deadline.failure(error) : error;
      });
      deadline.clear();
      await segments.close();
      if (answer.usage !== undefined) {
        await ctx.emitter.emit({ type: "usage.observed", usage: ctx.usage.add(answer.usage), provenance: { provider: PROVIDER } });
      }
      ctx.guard?.observe(answer.usage, request.messages.length + 1);
      return answer;
    } catch (error) {
      deadline.clear();
      await segments.close().catch(() => {});
      if (ctx.signal.aborted) throw ctx.signal.reason ?? error;
      if (segments.delivered || attempt >= ctx.config.maxRetries || !isRetryable(error)) {
        throw requestFailure(error, "after_delivery", ctx.config.apiKeyEnv, ctx.redact);
      }
      const wait = Math.min(retryAfterMs(error) ?? ctx.config.retryBaseDelayMs * 2 ** attempt, MAX_RETRY_DELAY_MS);
      const why = requestFailure(error, "after_delivery", ctx.config.apiKeyEnv, ctx.redact).message;
      await ctx.emitter.emit({ type: "notice", level: "warning", code: "provider_retry", message: `retrying the model request in ${Math.round(wait)} ms (attempt ${attempt + 2} of ${ctx.config.maxRetries + 1}): ${why}`, provenance: { provider: PROVIDER } });
      await abortableDelay(wait, ctx.signal);
    }
  }
}

/**
 * The deadlines of the model requests in flight (every run's), on one timer armed for the
 * earliest: a timer armed and cleared per request costs more than the rest of its bookkeeping.
 * The timer does not hold the process open; the request in flight does.
 */
class Deadlines {
  readonly #pending = new Set<RequestDeadline>();
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (`performance.now()` time); Infinity when none is armed. */
  #armedFor = Infinity;

  add(deadline: RequestDeadline): void {
    this.#pending.add(deadline);
    const now = deadline.at - deadline.ms;
    // A timer past its time that has not fired (its clock was swapped, as a test's fake timers do) is replaced by one firing at once.
    if (this.#armedFor < now) this.#arm(now);
    // Requests with the same timeout end in the order they started: the armed timer stays.
    else if (deadline.at < this.#armedFor) this.#arm(deadline.at);
  }

  delete(deadline: RequestDeadline): void {
    this.#pending.delete(deadline);
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedFor = at;
    this.#timer = setTimeout(this.#fire, Math.min(Math.max(0, Math.ceil(at - performance.now())), MAX_TIMER_MS));
    this.#timer.unref();
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const deadline of this.#pending) {
      if (deadline.at <= now) {
        this.#pending.delete(deadline);
        deadline.expire();
      } else next = Math.min(next, deadline.at);
    }
    if (next !== Infinity) this.#arm(next);
  };
}

const deadlines = new Deadlines();

/**
 * The run's signal, also aborted when one model request (its whole stream) outlasts
 * `requestTimeoutMs`: the client's own timeout ends once the response headers arrive, so a
 * stream that stalls after them would otherwise hold the turn until a watchdog or the host.
 */
class RequestDeadline {
  readonly #link: LinkedAbort;
  readonly signal: AbortSignal;
  /** When the request expires (`performance.now()` time). */
  readonly at: number;
  expired = false;

  constructor(
    runSignal: AbortSignal,
    readonly ms: number,
  ) {
    this.#link = new LinkedAbort(runSignal);
    this.signal = this.#link.signal;
    this.at = performance.now() + ms;
    deadlines.add(this);
  }

  expire(): void {
    this.expired = true;
    this.#link.controller.abort();
  }

  clear(): void {
    deadlines.delete(this);
    this.#link.unlink();
  }

  /** The typed failure of a request the deadline cut (retryable while none of its output went out). */
  failure(cause: unknown): ProviderError {
    return new ProviderError(`openai: the model request did not finish within requestTimeoutMs (${this.ms} ms)`, { code: "timeout", retryable: true, phase: "after_delivery", cause });
  }
}
