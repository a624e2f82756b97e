/**
 * A conversation's title (`title: true`): once, after its first completed turn, one short model
 * request (no tools) names the conversation from its first prompt and answer. It is stored in the
 * conversation, announced by a `title_generated` notice, and returned in the run's `raw`. A
 * failed title request is a warning, never the run's failure.
 */
import type { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import type { OpenAIClient } from "./client.js";
import type { ConversationFile, ConversationMessage } from "./conversation.js";
import type { TurnUsage } from "./usage.js";
import type { WireApi } from "./wire/types.js";

const PROVIDER = "openai";
const TITLE_PROMPT = "Write a title of at most 8 words for the conversation above. Answer with the title only: no quotes, no trailing period.";
/** Characters of the first prompt and answer the title request carries. */
const EXCERPT_CHARS = 4000;
const MAX_TITLE_CHARS = 120;

export interface TitleContext {
  client: OpenAIClient;
  wire: WireApi;
  model: string;
  conversation: ConversationFile;
  emitter: OrderedEmitter;
  usage: TurnUsage;
  signal: AbortSignal;
  requestTimeoutMs: number;
}

/** The first prompt's text and the first answer, cut short. */
function excerpt(conversation: ConversationFile): ConversationMessage[] {
  const messages = conversation.turns.flatMap((t) => t.messages);
  const prompt = messages.find((m) => m.role === "user");
  const answer = messages.findLast((m) => m.role === "assistant" && m.text !== "");
  const out: ConversationMessage[] = [];
  if (prompt?.role === "user") {
    const text = prompt.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("\n");
    out.push({ role: "user", content: [{ type: "text", text: text.slice(0, EXCERPT_CHARS) }] });
  }
  if (answer?.role === "assistant") out.push({ role: "assistant", text: answer.text.slice(0, EXCERPT_CHARS), toolCalls: [] });
  return out;
}

/** The model's answer as a one-line title. */
export function cleanTitle(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.replace(/^["'“”‘’`*#\s]+|["'“”‘’`*.\s]+$/g, "").slice(0, MAX_TITLE_CHARS).trim();
}

/** Generates and stores the title; returns it (undefined when the request failed or said nothing). */
export async function generateTitle(ctx: TitleContext): Promise<string | undefined> {
  const messages: ConversationMessage[] = [...excerpt(ctx.conversation), { role: "user", content: [{ type: "text", text: TITLE_PROMPT }] }];
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.requestTimeoutMs)]);
  try {
    const answer = await ctx.wire.stream(ctx.client, { model: ctx.model, messages, tools: [] }, { text: () => undefined, reasoning: () => undefined }, signal);
    if (answer.usage !== undefined) {
      await ctx.emitter.emit({ type: "usage.observed", usage: ctx.usage.add(answer.usage, { context: false }), provenance: { provider: PROVIDER } });
    }
    const title = cleanTitle(answer.text);
    if (title === "") throw new Error("the model answered with an empty title");
    ctx.conversation.title = title;
    await ctx.emitter.emit({ type: "notice", level: "info", code: "title_generated", message: `conversation titled: ${title}`, provenance: { provider: PROVIDER } });
    return title;
  } catch (error) {
    ctx.signal.throwIfAborted();
    const why = error instanceof Error ? error.message : String(error);
    await ctx.emitter.emit({ type: "notice", level: "warning", code: "title_generated", message: `no title: the title request failed (${why})`, provenance: { provider: PROVIDER } });
    return undefined;
  }
}
