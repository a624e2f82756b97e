/**
 * The Responses API (`POST {baseURL}/responses`, streamed), stateless: every request carries the
 * whole conversation as input items (messages, `function_call`, `function_call_output`), so the
 * endpoint keeps nothing and a thread resumes anywhere. Reasoning arrives as summary or reasoning
 * text deltas; usage with `response.completed`.
 */
import type { FunctionTool, ResponseCreateParamsStreaming, ResponseInputContent, ResponseInputItem, ResponseStreamEvent, ResponseUsage } from "openai/resources/responses/responses";
import type { ContentPart, ConversationMessage, ToolCallRecord } from "../conversation.js";
import { ProviderError } from "../../../errors/index.js";
import { dataUrl, distinctCallIds, omittedMedia, type DeltaSink, type ModelAnswer, type ModelRequest, type RequestUsage, type ToolSpec, type WireApi, requestUsage } from "./types.js";
import { readEventStream } from "./event-stream.js";
import { expectEventStream, noEvents } from "./answer-type.js";

function inputContent(part: ContentPart): ResponseInputContent {
  if (part.type === "text") return { type: "input_text", text: part.text };
  if (part.omitted !== undefined) return { type: "input_text", text: omittedMedia(part.type, part.omitted) };
  if (part.type === "image") return { type: "input_image", image_url: dataUrl(part.mediaType, part.data), detail: "auto" };
  if (part.type === "file") return { type: "input_file", filename: part.name, file_data: dataUrl(part.mediaType, part.data) };
  // Not offered on this API (the descriptor declares no audio); kept readable all the same.
  return { type: "input_text", text: "[audio input is not supported by the Responses API]" };
}

function items(m: ConversationMessage): ResponseInputItem[] {
  switch (m.role) {
    case "user":
      return [{ role: "user", content: m.content.map(inputContent) }];
    case "assistant": {
      const out: ResponseInputItem[] = [];
      if (m.text !== "") out.push({ role: "assistant", content: m.text });
      for (const call of m.toolCalls) out.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments });
      return out;
    }
    case "tool":
      return [{ type: "function_call_output", call_id: m.callId, output: m.output }];
  }
}

/** The wire form of a tool list, built once per list (a driver's runs share theirs, see toolbox.ts). */
const wireTools = new WeakMap<readonly ToolSpec[], FunctionTool[]>();

function toolsParam(tools: readonly ToolSpec[]): FunctionTool[] {
  let out = wireTools.get(tools);
  if (out === undefined) wireTools.set(tools, (out = tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: false }))));
  return out;
}

/** The streamed request body for one model request. */
export function responsesParams(request: ModelRequest): ResponseCreateParamsStreaming {
  const params: ResponseCreateParamsStreaming = { model: request.model, input: request.messages.flatMap(items), stream: true };
  if (request.instructions !== undefined && request.instructions !== "") params.instructions = request.instructions;
  if (request.tools.length > 0) params.tools = toolsParam(request.tools);
  if (request.effort !== undefined) params.reasoning = { effort: request.effort as NonNullable<ResponseCreateParamsStreaming["reasoning"]>["effort"] };
  if (request.outputSchema !== undefined) params.text = { format: { type: "json_schema", name: "output", schema: request.outputSchema, strict: false } };
  if (request.maxOutputTokens !== undefined) params.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  return params;
}

function usageOf(raw: ResponseUsage | undefined | null): RequestUsage | undefined {
  if (raw === undefined || raw === null) return undefined;
  return requestUsage({
    input: raw.input_tokens,
    output: raw.output_tokens,
    total: raw.total_tokens,
    cached: raw.input_tokens_details?.cached_tokens,
    reasoning: raw.output_tokens_details?.reasoning_tokens,
    cost: (raw as { cost?: unknown }).cost,
  });
}

interface PartialCall {
  itemId: string;
  callId: string;
  name: string;
  arguments: string;
}

class ResponsesAnswer {
  text = "";
  reasoning = "";
  readonly calls: PartialCall[] = [];
  usage: RequestUsage | undefined;
  finishReason: string | undefined;
  model: string | undefined;

  take(event: ResponseStreamEvent, sink: DeltaSink): Promise<void> | undefined {
    switch (event.type) {
      case "response.output_text.delta":
        this.text += event.delta;
        return sink.text(event.delta);
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        this.reasoning += event.delta;
        return sink.reasoning(event.delta);
      case "response.output_item.added":
        if (event.item.type === "function_call") this.calls.push({ itemId: event.item.id ?? event.item.call_id, callId: event.item.call_id, name: event.item.name, arguments: event.item.arguments ?? "" });
        return undefined;
      case "response.function_call_arguments.delta": {
        const call = this.calls.find((c) => c.itemId === event.item_id);
        if (call) call.arguments += event.delta;
        return undefined;
      }
      case "response.output_item.done":
        if (event.item.type === "function_call") this.#doneCall(event.item);
        return undefined;
      case "response.completed":
      case "response.incomplete":
        this.usage = usageOf(event.response.usage);
        this.model = event.response.model;
        this.finishReason = event.type === "response.completed" ? "stop" : (event.response.incomplete_details?.reason ?? "incomplete");
        return undefined;
      case "response.failed":
        throw new ProviderError(`the model request failed: ${event.response.error?.message ?? "no reason given"}`, { code: "provider_error", retryable: false });
      case "error":
        throw new ProviderError(`the model request failed: ${event.message}`, { code: "provider_error", retryable: false });
      default:
        return undefined;
    }
  }

  #doneCall(item: { id?: string; call_id: string; name: string; arguments: string }): void {
    // By item id first: two items may (wrongly) share a call id, and each keeps its own arguments.
    const call = this.calls.find((c) => c.itemId === (item.id ?? item.call_id)) ?? this.calls.find((c) => c.callId === item.call_id);
    if (call === undefined) this.calls.push({ itemId: item.id ?? item.call_id, callId: item.call_id, name: item.name, arguments: item.arguments });
    else call.arguments = item.arguments;
  }

  answer(): ModelAnswer {
    const toolCalls: ToolCallRecord[] = distinctCallIds(this.calls.map((c) => ({ id: c.callId, name: c.name, arguments: c.arguments })));
    const out: ModelAnswer = { text: this.text, reasoning: this.reasoning, toolCalls };
    if (this.usage !== undefined) out.usage = this.usage;
    if (this.finishReason !== undefined) out.finishReason = this.finishReason;
    if (this.model !== undefined) out.model = this.model;
    return out;
  }
}

export const responsesApi: WireApi = {
  name: "responses",
  async stream(client, request, sink, signal) {
    const response = await client.responses.create(responsesParams(request), { signal }).asResponse();
    await expectEventStream(response);
    const answer = new ResponsesAnswer();
    let events = 0;
    await readEventStream(response, client, (payload) => {
      events++;
      return answer.take(payload as ResponseStreamEvent, sink);
    });
    if (events === 0) throw noEvents(response);
    if (answer.finishReason === undefined) throw new ProviderError("the model's stream ended before response.completed", { code: "provider_error", retryable: true });
    return answer.answer();
  },
};
