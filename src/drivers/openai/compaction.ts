/**
 * The context guard: before each model request, when the request would take more than
 * `threshold` of the model's context window, the conversation is compacted. The turns before the
 * last `keepTurns` (and the running one) are summarized by the model in one request of their own
 * and replaced by a turn holding the summary; tool outputs of the turns kept are trimmed (head and
 * tail). The conversation as it was before is saved first under its own id (a `context_compacted`
 * notice names it), so nothing said is lost: a rewind past the compaction goes back to it.
 */
import { randomUUID } from "node:crypto";
import type { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import type { OpenAIClient } from "./client.js";
import type { CompactionSettings } from "./config.js";
import { ContextWindows, estimateTokens } from "./context.js";
import { historyOf, type ConversationFile, type ConversationMessage, type ConversationTurn } from "./conversation.js";
import { cutMiddle, newSessionId, type Conversations } from "./conversation-store.js";
import { sumTurns, type TurnUsage } from "./usage.js";
import type { ModelRequest, RequestUsage, WireApi } from "./wire/types.js";

const PROVIDER = "openai";
/** Below this estimate no window is looked up: every model holds it. */
const LOOKUP_FLOOR_TOKENS = 2048;

export const SUMMARY_PROMPT =
  "Summarize the conversation so far for your own continuation of this task: the user's goals and constraints, what was done (files read and changed, commands run and their results), decisions and why, and what remains open. Be concise but keep every detail needed to continue; write only the summary.";
const SUMMARY_INSTRUCTIONS = "You compact a coding agent's conversation into a summary that replaces it. Do not call tools.";
const SUMMARY_HEADER = "[Summary of the earlier conversation, written when it was compacted]";

export interface GuardContext {
  settings: CompactionSettings;
  windows: ContextWindows;
  client: OpenAIClient;
  wire: WireApi;
  conversation: ConversationFile;
  store: Conversations;
  emitter: OrderedEmitter;
  usage: TurnUsage;
  signal: AbortSignal;
  requestTimeoutMs: number;
}

/** The running turn's last tool batch (the results after its last assistant message) stays whole. */
function trimToolOutputs(turns: ConversationTurn[], max: number): number {
  let trimmed = 0;
  const current = turns.at(-1);
  const lastAssistant = current === undefined ? -1 : current.messages.findLastIndex((m) => m.role === "assistant");
  for (const turn of turns) {
    turn.messages = turn.messages.map((message, index) => {
      if (message.role !== "tool" || message.output.length <= max || (turn === current && index > lastAssistant)) return message;
      trimmed++;
      return { ...message, output: cutMiddle(message.output, max) };
    });
  }
  return trimmed;
}

export class ContextGuard {
  readonly #g: GuardContext;
  /** What the endpoint counted for the turn's last request, and how many messages it carried. */
  #counted: { tokens: number; messages: number } | undefined;
  /**
   * A summary request of this run failed. It is not asked again before every later request of the
   * run: a summarizer that fails (often because the older turns themselves pass the window) would
   * fail again, each time after another copy of the transcript was saved.
   */
  #summaryFailed = false;

  constructor(g: GuardContext) {
    this.#g = g;
  }

  /** Records what the endpoint counted for a request of `messages` messages (its answer included). */
  observe(usage: RequestUsage | undefined, messages: number): void {
    if (usage?.input !== undefined) this.#counted = { tokens: usage.input + (usage.output ?? 0), messages };
  }

  #estimate(request: ModelRequest): number {
    const chars = estimateTokens(request);
    const counted = this.#counted;
    if (counted === undefined || counted.messages > request.messages.length) return chars;
    return Math.max(chars, counted.tokens + estimateTokens({ messages: request.messages.slice(counted.messages), tools: [] }));
  }

  /** Compacts the conversation when `request` would pass the threshold; whether it did. */
  async check(request: ModelRequest): Promise<boolean> {
    const g = this.#g;
    if (this.#summaryFailed) return false;
    const before = this.#estimate(request);
    if (g.windows.configured === undefined && before < LOOKUP_FLOOR_TOKENS) return false;
    const window = await g.windows.of(g.client, request.model, g.signal);
    g.usage.contextSize = window;
    if (window === undefined || before <= window * g.settings.threshold) return false;
    await this.compact(request, { before, window });
    this.#counted = undefined;
    return true;
  }

  /** Summarizes the older turns and trims tool outputs; the transcript before is saved first. */
  async compact(request: ModelRequest, size?: { before: number; window: number }): Promise<void> {
    const g = this.#g;
    const conversation = g.conversation;
    const transcriptId = newSessionId();
    const now = new Date().toISOString();
    await g.store.save({ ...structuredClone(conversation), id: transcriptId, createdAt: now, updatedAt: now, transcriptOf: conversation.id });
    const olderEnd = conversation.turns.length - 1 - g.settings.keepTurns;
    const older = conversation.turns.slice(0, Math.max(0, olderEnd));
    let summarized = 0;
    let failure: string | undefined;
    if (older.length > 1 || (older.length === 1 && older[0]!.summary === undefined)) {
      try {
        const summary = await this.#summarize(request, older);
        const during = conversation.turns.at(-1)!.runId;
        conversation.turns = [summaryTurn(summary, older, { transcriptId, duringRunId: during }), ...conversation.turns.slice(older.length)];
        summarized = older.length;
      } catch (error) {
        g.signal.throwIfAborted();
        failure = error instanceof Error ? error.message : String(error);
        this.#summaryFailed = true;
      }
    }
    const trimmed = trimToolOutputs(conversation.turns, g.settings.toolOutputChars);
    (conversation.compactions ??= []).push({ at: now, beforeTurn: summarized, transcriptId });
    await g.store.save(conversation);
    const after = estimateTokens({ ...request, messages: historyOf(conversation.turns) });
    const sizes = size === undefined ? "" : ` (about ${size.before} → ${after} tokens of a ${size.window}-token window)`;
    const why = failure === undefined ? "" : `; the summary request failed (${failure}), so only tool outputs were trimmed`;
    const message = `compacted the conversation: ${summarized} earlier turn(s) summarized, ${trimmed} tool output(s) trimmed${sizes}${why}; the transcript before is kept as ${transcriptId}`;
    await g.emitter.emit({ type: "notice", level: failure === undefined ? "info" : "warning", code: "context_compacted", message, provenance: { provider: PROVIDER } });
  }

  async #summarize(request: ModelRequest, older: readonly ConversationTurn[]): Promise<string> {
    const g = this.#g;
    const trimmed = structuredClone(older) as ConversationTurn[];
    trimToolOutputs([...trimmed, { runId: "", startedAt: "", messages: [] }], g.settings.toolOutputChars);
    const messages: ConversationMessage[] = [...historyOf(trimmed), { role: "user", content: [{ type: "text", text: SUMMARY_PROMPT }], origin: "summary" }];
    const summaryRequest: ModelRequest = { model: request.model, instructions: SUMMARY_INSTRUCTIONS, messages, tools: [], ...(request.effort !== undefined ? { effort: request.effort } : {}) };
    const discard = { text: () => undefined, reasoning: () => undefined };
    const signal = AbortSignal.any([g.signal, AbortSignal.timeout(g.requestTimeoutMs)]);
    const answer = await g.wire.stream(g.client, summaryRequest, discard, signal);
    if (answer.usage !== undefined) {
      await g.emitter.emit({ type: "usage.observed", usage: g.usage.add(answer.usage, { context: false }), provenance: { provider: PROVIDER } });
    }
    if (answer.text.trim() === "") throw new Error("the model answered with an empty summary");
    return answer.text.trim();
  }
}

function summaryTurn(summary: string, older: readonly ConversationTurn[], made: { transcriptId: string; duringRunId: string }): ConversationTurn {
  const turn: ConversationTurn = {
    runId: `compaction_${randomUUID()}`,
    startedAt: new Date().toISOString(),
    messages: [{ role: "user", content: [{ type: "text", text: `${SUMMARY_HEADER}\n\n${summary}` }], origin: "summary" }],
    ended: "completed",
    summary: { runIds: older.flatMap((t) => [t.runId, ...(t.summary?.runIds ?? [])]), ...made },
  };
  const model = older.at(-1)?.model;
  if (model !== undefined) turn.model = model;
  const usage = sumTurns(older.map((t) => t.usage));
  if (usage !== undefined) turn.usage = usage;
  return turn;
}
