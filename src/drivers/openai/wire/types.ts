/**
 * What the loop asks of a wire API (Chat Completions or Responses): send one model request built
 * from the conversation, stream its text and reasoning deltas to the loop as they arrive, and
 * return the whole answer (text, reasoning, tool calls, usage).
 */
import type { JsonSchema } from "../../../driver/vocabulary.js";
import type { OpenAIClient } from "../client.js";
import type { ConversationMessage, ToolCallRecord } from "../conversation.js";

/** One tool offered to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** One model request. */
export interface ModelRequest {
  model: string;
  effort?: string;
  /** The system prompt. */
  instructions?: string;
  messages: readonly ConversationMessage[];
  tools: readonly ToolSpec[];
  /** Structured output: the JSON Schema the final answer must match. */
  outputSchema?: JsonSchema;
  maxOutputTokens?: number;
  temperature?: number;
}

/**
 * Where a decoder hands its deltas. Each returns `undefined` when the consumer took the delta at
 * once, else a promise to await before reading on (backpressure).
 */
export interface DeltaSink {
  text(delta: string): Promise<void> | undefined;
  reasoning(delta: string): Promise<void> | undefined;
}

/** One request's token usage as the endpoint reported it. */
export interface RequestUsage {
  input?: number;
  output?: number;
  total?: number;
  cached?: number;
  reasoning?: number;
  /** US dollars, when the endpoint reports a cost (OpenRouter's `usage.cost`). */
  cost?: number;
}

/** The whole answer of one model request. */
export interface ModelAnswer {
  text: string;
  reasoning: string;
  toolCalls: ToolCallRecord[];
  usage?: RequestUsage;
  /** The endpoint's reason for stopping (`stop`, `tool_calls`, `length`, `incomplete`, ...). */
  finishReason?: string;
  /** The model the endpoint says answered. */
  model?: string;
}

/** A wire API. */
export interface WireApi {
  readonly name: "chat" | "responses";
  stream(client: OpenAIClient, request: ModelRequest, sink: DeltaSink, signal: AbortSignal): Promise<ModelAnswer>;
}

/** A `data:` URL of base64 bytes. */
export function dataUrl(mediaType: string, base64: string): string {
  return `data:${mediaType};base64,${base64}`;
}

/** The text standing in for media the stored transcript dropped. */
export function omittedMedia(kind: string, size: number): string {
  return `[${kind} omitted from the stored conversation: ${size} base64 characters]`;
}

/** A number, or undefined. */
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The usage of one request from the endpoint's fields (each API names them its own way); only the finite numbers. */
export function requestUsage(fields: { readonly [K in keyof RequestUsage]-?: unknown }): RequestUsage {
  const usage: RequestUsage = {};
  for (const key of Object.keys(fields) as (keyof RequestUsage)[]) {
    const n = count(fields[key]);
    if (n !== undefined) usage[key] = n;
  }
  return usage;
}

/**
 * The calls with an id of their own each: a server that repeats an id (or a model that does) would
 * otherwise give two calls one result slot, and two `tool.started` events one call id. A repeat
 * becomes `<id>_<n>`, in the answer and so in the stored conversation the model sees next.
 */
export function distinctCallIds(calls: ToolCallRecord[]): ToolCallRecord[] {
  const seen = new Set<string>();
  for (const call of calls) {
    let id = call.id;
    for (let n = 2; seen.has(id); n++) id = `${call.id}_${n}`;
    call.id = id;
    seen.add(id);
  }
  return calls;
}
