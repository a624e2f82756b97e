/**
 * Anthropic Messages (`POST /v1/messages`, Claude Code adds `?beta=true`).
 *
 * Streams `message_start` → `content_block_start/delta/stop` per block (`thinking_delta` +
 * `signature_delta`, `text_delta`, `input_json_delta`) → `message_delta` (stop reason, usage)
 * → `message_stop`, each as `event: <type>` + `data:`. Claude Code appends a trailing
 * `role: "system"` message after the user turn; it is kept as a `system` message.
 */
import { describeBase64, partKindFor } from "../capture.js";
import { asArray, asRecord, asString } from "../json.js";
import type { JsonRecord } from "../json.js";
import { answerText, chunks } from "../reply.js";
import type { ReplyPlan } from "../reply.js";
import { jsonEvent } from "../sse.js";
import type { SseEvent } from "../sse.js";
import type { CapturedMessage, CapturedPart, NormalizedRequest } from "../types.js";
import type { DialectCodec } from "./codec.js";

/** A fixed, clearly fake signature for thinking blocks (clients replay it verbatim). */
const FAKE_SIGNATURE = "c2NyaXB0ZWQtbW9kZWwtc2VydmVy";

function binaryPart(kind: "image" | "document", block: JsonRecord): CapturedPart {
  const source = asRecord(block.source);
  const mediaType = asString(source.media_type);
  const type = kind === "image" ? "image" : partKindFor(mediaType) === "image" ? "image" : "file";
  const title = asString(block.title);
  const common = {
    ...(mediaType === undefined ? {} : { mediaType }),
    ...(type === "file" && title !== undefined ? { filename: title } : {}),
  };
  switch (source.type) {
    case "base64": {
      const data = asString(source.data);
      return { type, source: "base64", ...common, ...(data === undefined ? {} : describeBase64(data)) };
    }
    case "url":
      return { type, source: "url", ...common, ...(asString(source.url) === undefined ? {} : { url: String(source.url) }) };
    case "text":
    case "content":
      return { type, source: "text", ...common };
    default:
      return { type, source: "file", ...common };
  }
}

function block(raw: unknown): CapturedPart {
  if (typeof raw === "string") return { type: "text", text: raw };
  const b = asRecord(raw);
  const type = asString(b.type) ?? "unknown";
  switch (type) {
    case "text":
      return { type: "text", text: asString(b.text) ?? "" };
    case "image":
      return binaryPart("image", b);
    case "document":
      return binaryPart("document", b);
    case "tool_use":
    case "server_tool_use":
    case "mcp_tool_use":
      return { type: "tool_call", name: asString(b.name) ?? "", callId: asString(b.id) ?? "", arguments: b.input };
    case "tool_result": {
      const result: CapturedPart = { type: "tool_result", callId: asString(b.tool_use_id) ?? "" };
      const inner: CapturedPart[] = blocks(b.content);
      const texts = inner.flatMap((p) => (p.type === "text" ? [p.text] : []));
      const others = inner.filter((p) => p.type !== "text");
      if (texts.length > 0) result.text = texts.join("\n");
      if (others.length > 0) result.parts = others;
      if (b.is_error === true) result.isError = true;
      return result;
    }
    case "thinking":
      return { type: "reasoning", text: asString(b.thinking) ?? "" };
    case "redacted_thinking":
      return { type: "reasoning" };
    default:
      return { type: "other", kind: type };
  }
}

function blocks(content: unknown): CapturedPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return asArray(content).map(block);
}

function role(raw: unknown): CapturedMessage["role"] {
  return raw === "user" || raw === "assistant" || raw === "system" ? raw : "other";
}

function normalize(body: unknown): NormalizedRequest {
  const b = asRecord(body);
  const messages: CapturedMessage[] = [];
  if (b.system !== undefined) {
    const parts = blocks(b.system);
    if (parts.length > 0) messages.push({ role: "system", parts });
  }
  for (const raw of asArray(b.messages)) {
    const m = asRecord(raw);
    messages.push({ role: role(m.role), parts: blocks(m.content) });
  }
  const tools = asArray(b.tools).flatMap((t) => {
    const name = asString(asRecord(t).name) ?? asString(asRecord(t).type);
    return name === undefined ? [] : [name];
  });
  const model = asString(b.model);
  return { ...(model === undefined ? {} : { model }), stream: b.stream === true, messages, tools };
}

function usageFields(plan: ReplyPlan): JsonRecord {
  const u = plan.usage;
  if (!u) return {};
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheCreation,
    cache_read_input_tokens: u.cached,
    output_tokens: u.output,
  };
}

const stopReason = (plan: ReplyPlan): string => (plan.toolCalls.length > 0 ? "tool_use" : "end_turn");

interface Block {
  start: JsonRecord;
  deltas: JsonRecord[];
  final: JsonRecord;
}

function contentBlocks(plan: ReplyPlan): Block[] {
  const out: Block[] = [];
  if (plan.reasoning !== undefined) {
    out.push({
      start: { type: "thinking", thinking: "", signature: "" },
      deltas: [
        ...chunks(plan.reasoning, plan.chunkSize).map((thinking) => ({ type: "thinking_delta", thinking })),
        { type: "signature_delta", signature: FAKE_SIGNATURE },
      ],
      final: { type: "thinking", thinking: plan.reasoning, signature: FAKE_SIGNATURE },
    });
  }
  const text = answerText(plan);
  if (text !== undefined) {
    out.push({
      start: { type: "text", text: "" },
      deltas: text === "" ? [] : chunks(text, plan.chunkSize).map((t) => ({ type: "text_delta", text: t })),
      final: { type: "text", text },
    });
  }
  for (const call of plan.toolCalls) {
    out.push({
      start: { type: "tool_use", id: call.id, name: call.name, input: {} },
      deltas: chunks(call.arguments, plan.chunkSize).map((partial_json) => ({ type: "input_json_delta", partial_json })),
      final: { type: "tool_use", id: call.id, name: call.name, input: call.argumentsObject },
    });
  }
  return out;
}

function encodeStream(plan: ReplyPlan): SseEvent[] {
  const usage = usageFields(plan);
  const startUsage = plan.usage ? { ...usage, output_tokens: Math.min(1, plan.usage.output) } : {};
  const events: SseEvent[] = [
    jsonEvent(
      {
        type: "message_start",
        message: {
          id: `msg_${plan.seq}`,
          type: "message",
          role: "assistant",
          model: plan.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: startUsage,
        },
      },
      "message_start",
    ),
  ];
  contentBlocks(plan).forEach((b, index) => {
    events.push(jsonEvent({ type: "content_block_start", index, content_block: b.start }, "content_block_start"));
    for (const delta of b.deltas) {
      events.push(jsonEvent({ type: "content_block_delta", index, delta }, "content_block_delta"));
    }
    events.push(jsonEvent({ type: "content_block_stop", index }, "content_block_stop"));
  });
  events.push(
    jsonEvent(
      { type: "message_delta", delta: { stop_reason: stopReason(plan), stop_sequence: null }, usage },
      "message_delta",
    ),
    jsonEvent({ type: "message_stop" }, "message_stop"),
  );
  return events;
}

function encodeJson(plan: ReplyPlan): unknown {
  return {
    id: `msg_${plan.seq}`,
    type: "message",
    role: "assistant",
    model: plan.model,
    content: contentBlocks(plan).map((b) => b.final),
    stop_reason: stopReason(plan),
    stop_sequence: null,
    usage: usageFields(plan),
  };
}

/** The Anthropic error `type` for an HTTP status. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

export const anthropicCodec: DialectCodec = {
  dialect: "anthropic",
  normalize,
  encodeStream,
  encodeJson,
  errorBody: (status, message) => ({ type: "error", error: { type: anthropicErrorType(status), message } }),
};
