/**
 * Chat Completions (`POST {baseURL}/chat/completions`, streamed): the API every OpenAI-compatible
 * server speaks (llama.cpp, vLLM, Ollama, OpenRouter, gateways). Reasoning arrives as the common
 * `reasoning_content` (or `reasoning`) extension of the delta; usage in the final chunk asked for
 * with `stream_options.include_usage`.
 */
import type { ChatCompletionChunk, ChatCompletionContentPart, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { ProviderError } from "../../../errors/index.js";
import type { ContentPart, ConversationMessage, ToolCallRecord } from "../conversation.js";
import { dataUrl, distinctCallIds, omittedMedia, type DeltaSink, type ModelAnswer, type ModelRequest, type RequestUsage, type ToolSpec, type WireApi, requestUsage } from "./types.js";
import { readEventStream } from "./event-stream.js";
import { expectEventStream, noEvents } from "./answer-type.js";

function contentPart(part: ContentPart): ChatCompletionContentPart {
  if (part.type === "text") return { type: "text", text: part.text };
  if (part.omitted !== undefined) return { type: "text", text: omittedMedia(part.type, part.omitted) };
  if (part.type === "image") return { type: "image_url", image_url: { url: dataUrl(part.mediaType, part.data) } };
  if (part.type === "audio") return { type: "input_audio", input_audio: { data: part.data, format: part.format } };
  return { type: "file", file: { filename: part.name, file_data: dataUrl(part.mediaType, part.data) } };
}

function message(m: ConversationMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case "user": {
      const only = m.content.length === 1 ? m.content[0] : undefined;
      // A lone text part as a string: the form every server accepts.
      if (only?.type === "text") return { role: "user", content: only.text };
      return { role: "user", content: m.content.map(contentPart) as ChatCompletionContentPart[] };
    }
    case "assistant":
      return {
        role: "assistant",
        content: m.text === "" && m.toolCalls.length > 0 ? null : m.text,
        ...(m.toolCalls.length > 0 ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })) } : {}),
      };
    case "tool":
      return { role: "tool", tool_call_id: m.callId, content: m.output };
  }
}

/** The wire form of a tool list, built once per list (a driver's runs share theirs, see toolbox.ts). */
const wireTools = new WeakMap<readonly ToolSpec[], ChatCompletionTool[]>();

function toolsParam(tools: readonly ToolSpec[]): ChatCompletionTool[] {
  let out = wireTools.get(tools);
  if (out === undefined) wireTools.set(tools, (out = tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }))));
  return out;
}

/** The streamed request body for one model request. */
export function chatParams(request: ModelRequest): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.instructions !== undefined && request.instructions !== "") messages.push({ role: "system", content: request.instructions });
  for (const m of request.messages) messages.push(message(m));
  const params: ChatCompletionCreateParamsStreaming = { model: request.model, messages, stream: true, stream_options: { include_usage: true } };
  if (request.tools.length > 0) params.tools = toolsParam(request.tools);
  if (request.effort !== undefined) params.reasoning_effort = request.effort as ChatCompletionCreateParamsStreaming["reasoning_effort"];
  if (request.outputSchema !== undefined) params.response_format = { type: "json_schema", json_schema: { name: "output", schema: request.outputSchema, strict: false } };
  if (request.maxOutputTokens !== undefined) params.max_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  return params;
}

function usageOf(raw: ChatCompletionChunk["usage"] | undefined): RequestUsage | undefined {
  if (raw === undefined || raw === null) return undefined;
  return requestUsage({
    input: raw.prompt_tokens,
    output: raw.completion_tokens,
    total: raw.total_tokens,
    cached: raw.prompt_tokens_details?.cached_tokens,
    reasoning: raw.completion_tokens_details?.reasoning_tokens,
    cost: (raw as { cost?: unknown }).cost,
  });
}

interface PartialCall {
  id?: string;
  name: string;
  arguments: string;
}

/** The streamed answer's state: deltas pass straight through; calls are assembled by index. */
class ChatAnswer {
  text = "";
  reasoning = "";
  readonly calls: PartialCall[] = [];
  usage: RequestUsage | undefined;
  finishReason: string | undefined;
  model: string | undefined;

  /** One chunk; returns the sink's pending promise, if any. */
  take(chunk: ChatCompletionChunk, sink: DeltaSink): Promise<void> | undefined {
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = usageOf(chunk.usage);
    const choice = chunk.choices?.[0];
    if (choice === undefined) return undefined;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta as (typeof choice.delta & { reasoning_content?: unknown; reasoning?: unknown }) | undefined;
    if (delta === undefined) return undefined;
    if (delta.tool_calls) this.#calls(delta.tool_calls);
    const thinking = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : undefined;
    let pending: Promise<void> | undefined;
    if (thinking) {
      this.reasoning += thinking;
      pending = sink.reasoning(thinking);
    }
    if (typeof delta.content === "string" && delta.content !== "") {
      this.text += delta.content;
      const taking = pending === undefined ? sink.text(delta.content) : pending.then(() => sink.text(delta.content!));
      pending = taking;
    }
    return pending;
  }

  #calls(deltas: NonNullable<ChatCompletionChunk.Choice.Delta["tool_calls"]>): void {
    for (const d of deltas) {
      const index = typeof d.index === "number" ? d.index : this.calls.length;
      const call = (this.calls[index] ??= { name: "", arguments: "" });
      if (d.id) call.id = d.id;
      if (d.function?.name) call.name += d.function.name;
      if (d.function?.arguments) call.arguments += d.function.arguments;
    }
  }

  answer(seq: number): ModelAnswer {
    // A call without a name still gets a result (an unknown-tool error the model reads), not a silent drop.
    const toolCalls: ToolCallRecord[] = distinctCallIds(
      this.calls
        .filter((c) => c !== undefined && (c.name !== "" || c.id !== undefined || c.arguments !== ""))
        .map((c, i) => ({ id: c.id ?? `call_${seq}_${i}`, name: c.name, arguments: c.arguments })),
    );
    const out: ModelAnswer = { text: this.text, reasoning: this.reasoning, toolCalls };
    if (this.usage !== undefined) out.usage = this.usage;
    if (this.finishReason !== undefined) out.finishReason = this.finishReason;
    if (this.model !== undefined) out.model = this.model;
    return out;
  }
}

let requests = 0;

export const chatApi: WireApi = {
  name: "chat",
  async stream(client, request, sink, signal) {
    const response = await client.chat.completions.create(chatParams(request), { signal }).asResponse();
    await expectEventStream(response);
    const answer = new ChatAnswer();
    let events = 0;
    await readEventStream(response, client, (payload) => {
      events++;
      return answer.take(payload as ChatCompletionChunk, sink);
    });
    if (events === 0) throw noEvents(response);
    if (answer.finishReason === undefined && answer.usage === undefined) throw new ProviderError("the model's stream ended without a finish reason", { code: "provider_error", retryable: true });
    return answer.answer(++requests);
  },
};
