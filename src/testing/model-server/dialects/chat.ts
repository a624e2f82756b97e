/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), spoken by Qwen Code, CodeBuddy, Pi,
 * Copilot BYOK and most OpenAI-compatible clients.
 *
 * Streams `chat.completion.chunk` deltas (`reasoning_content` for reasoning, `tool_calls` deltas
 * with the id and name first and the argument text after), a finish chunk, a `choices: []`
 * usage chunk only when `stream_options.include_usage` is set, then `data: [DONE]`.
 */
import { describeUrl } from "../capture.js";
import { asArray, asRecord, asString, parseJsonOrText } from "../json.js";
import type { JsonRecord } from "../json.js";
import { answerText, chunks, nowSeconds } from "../reply.js";
import type { ReplyPlan } from "../reply.js";
import { jsonEvent } from "../sse.js";
import type { SseEvent } from "../sse.js";
import type { CapturedMessage, CapturedPart, NormalizedRequest } from "../types.js";
import { openAiErrorBody } from "./codec.js";
import type { DialectCodec } from "./codec.js";

function contentPart(raw: unknown): CapturedPart {
  const part = asRecord(raw);
  const type = asString(part.type) ?? "unknown";
  switch (type) {
    case "text":
      return { type: "text", text: asString(part.text) ?? "" };
    case "refusal":
      return { type: "text", text: asString(part.refusal) ?? "" };
    case "image_url": {
      const url = asString(asRecord(part.image_url).url) ?? asString(part.image_url);
      return url === undefined ? { type: "image", source: "url" } : { type: "image", ...describeUrl(url) };
    }
    case "input_audio": {
      const format = asString(asRecord(part.input_audio).format);
      return { type: "audio", source: "base64", ...(format === undefined ? {} : { mediaType: `audio/${format}` }) };
    }
    case "file": {
      const file = asRecord(part.file);
      const filename = asString(file.filename);
      const data = asString(file.file_data);
      const where = data === undefined ? { source: "file" as const } : describeUrl(data);
      const fixed = data !== undefined && where.source === "url" ? { source: "base64" as const } : where;
      return { type: "file", ...fixed, ...(filename === undefined ? {} : { filename }) };
    }
    default:
      return { type: "other", kind: type };
  }
}

function contentParts(content: unknown): CapturedPart[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return asArray(content).map(contentPart);
}

function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  const texts = contentParts(content).flatMap((p) => (p.type === "text" ? [p.text] : []));
  return texts.length > 0 ? texts.join("\n") : undefined;
}

function message(raw: unknown): CapturedMessage {
  const m = asRecord(raw);
  switch (m.role) {
    case "system":
    case "developer":
      return { role: "system", parts: contentParts(m.content) };
    case "user":
      return { role: "user", parts: contentParts(m.content) };
    case "assistant": {
      const parts: CapturedPart[] = [];
      const reasoning = asString(m.reasoning_content) ?? asString(m.reasoning);
      if (reasoning) parts.push({ type: "reasoning", text: reasoning });
      parts.push(...contentParts(m.content));
      for (const rawCall of asArray(m.tool_calls)) {
        const call = asRecord(rawCall);
        const fn = asRecord(call.function);
        parts.push({
          type: "tool_call",
          name: asString(fn.name) ?? "",
          callId: asString(call.id) ?? "",
          arguments: parseJsonOrText(asString(fn.arguments) ?? ""),
        });
      }
      return { role: "assistant", parts };
    }
    case "tool":
    case "function": {
      const callId = asString(m.tool_call_id) ?? asString(m.name) ?? "";
      const result: CapturedPart = { type: "tool_result", callId };
      const text = textOf(m.content);
      if (text !== undefined) result.text = text;
      const others = typeof m.content === "string" ? [] : contentParts(m.content).filter((p) => p.type !== "text");
      if (others.length > 0) result.parts = others;
      return { role: "tool", parts: [result] };
    }
    default:
      return { role: "other", parts: contentParts(m.content) };
  }
}

function normalize(body: unknown): NormalizedRequest {
  const b = asRecord(body);
  const tools = [
    ...asArray(b.tools).flatMap((t) => {
      const name = asString(asRecord(asRecord(t).function).name) ?? asString(asRecord(t).type);
      return name === undefined ? [] : [name];
    }),
    ...asArray(b.functions).flatMap((f) => {
      const name = asString(asRecord(f).name);
      return name === undefined ? [] : [name];
    }),
  ];
  const model = asString(b.model);
  return {
    ...(model === undefined ? {} : { model }),
    stream: b.stream === true,
    messages: asArray(b.messages).map(message),
    tools,
  };
}

function usageOf(plan: ReplyPlan): JsonRecord | undefined {
  const u = plan.usage;
  if (!u) return undefined;
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.total,
    prompt_tokens_details: { cached_tokens: u.cached },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
  };
}

const finishReason = (plan: ReplyPlan): string => (plan.toolCalls.length > 0 ? "tool_calls" : "stop");

function encodeStream(plan: ReplyPlan, body: unknown): SseEvent[] {
  const base = { id: `chatcmpl_${plan.seq}`, object: "chat.completion.chunk", created: nowSeconds(), model: plan.model };
  const chunk = (delta: JsonRecord, finish: string | null = null): SseEvent =>
    jsonEvent({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const events: SseEvent[] = [chunk({ role: "assistant", content: "" })];
  if (plan.reasoning !== undefined) {
    for (const piece of chunks(plan.reasoning, plan.chunkSize)) events.push(chunk({ reasoning_content: piece }));
  }
  const text = answerText(plan);
  if (text) for (const piece of chunks(text, plan.chunkSize)) events.push(chunk({ content: piece }));
  plan.toolCalls.forEach((call, index) => {
    events.push(
      chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
    );
    for (const piece of chunks(call.arguments, plan.chunkSize)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk({}, finishReason(plan)));
  const usage = usageOf(plan);
  if (usage && asRecord(asRecord(body).stream_options).include_usage === true) {
    events.push(jsonEvent({ ...base, choices: [], usage }));
  }
  events.push({ data: "[DONE]" });
  return events;
}

function encodeJson(plan: ReplyPlan): unknown {
  const message: JsonRecord = { role: "assistant", content: answerText(plan) ?? null };
  if (plan.reasoning !== undefined) message.reasoning_content = plan.reasoning;
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  const out: JsonRecord = {
    id: `chatcmpl_${plan.seq}`,
    object: "chat.completion",
    created: nowSeconds(),
    model: plan.model,
    choices: [{ index: 0, message, finish_reason: finishReason(plan), logprobs: null }],
  };
  const usage = usageOf(plan);
  if (usage) out.usage = usage;
  return out;
}

export const chatCodec: DialectCodec = {
  dialect: "chat",
  normalize,
  encodeStream,
  encodeJson,
  errorBody: openAiErrorBody,
};
