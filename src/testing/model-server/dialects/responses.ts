/**
 * OpenAI Responses API (`POST /v1/responses`), the only wire Codex speaks.
 *
 * Observed Codex facts this encoder honours: `response.completed` is required (without it the
 * turn fails "stream closed before response.completed"); text deltas are only surfaced after an
 * `output_item.added` for the same message id; tool calls are `function_call` items whose
 * `arguments` is a JSON string; reasoning streams as summary parts.
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
    case "input_text":
    case "output_text":
    case "text":
    case "summary_text":
      return { type: "text", text: asString(part.text) ?? "" };
    case "refusal":
      return { type: "text", text: asString(part.refusal) ?? "" };
    case "input_image": {
      const url = asString(part.image_url) ?? asString(asRecord(part.image_url).url);
      if (url !== undefined) return { type: "image", ...describeUrl(url) };
      return { type: "image", source: "file" };
    }
    case "input_file": {
      const filename = asString(part.filename);
      const data = asString(part.file_data);
      const url = asString(part.file_url);
      const where = data !== undefined ? describeUrl(data) : url !== undefined ? describeUrl(url) : { source: "file" as const };
      if (data !== undefined && where.source === "url") {
        // bare base64 without a data: prefix
        return { type: "file", source: "base64", ...(filename === undefined ? {} : { filename }) };
      }
      return { type: "file", ...where, ...(filename === undefined ? {} : { filename }) };
    }
    case "input_audio": {
      const audio = asRecord(part.input_audio);
      const format = asString(audio.format);
      return { type: "audio", source: "base64", ...(format === undefined ? {} : { mediaType: `audio/${format}` }) };
    }
    default:
      return { type: "other", kind: type };
  }
}

function contentParts(content: unknown): CapturedPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return asArray(content).map(contentPart);
}

function toolOutput(callId: string, output: unknown): CapturedPart {
  if (typeof output === "string") return { type: "tool_result", callId, text: output };
  const items = Array.isArray(output) ? contentParts(output) : contentParts(asRecord(output).content);
  const texts = items.flatMap((p) => (p.type === "text" ? [p.text] : []));
  const others = items.filter((p) => p.type !== "text");
  const result: CapturedPart = { type: "tool_result", callId };
  if (texts.length > 0) result.text = texts.join("\n");
  if (others.length > 0) result.parts = others;
  return result;
}

function role(raw: unknown): CapturedMessage["role"] {
  if (raw === "system" || raw === "developer") return "system";
  if (raw === "user" || raw === "assistant") return raw;
  return "other";
}

function inputItem(raw: unknown, tools: string[]): CapturedMessage | undefined {
  const item = asRecord(raw);
  const type = asString(item.type) ?? (item.role !== undefined ? "message" : "unknown");
  const callId = asString(item.call_id) ?? asString(item.id) ?? "";
  switch (type) {
    case "message":
      return { role: role(item.role), parts: contentParts(item.content) };
    case "function_call":
      return {
        role: "assistant",
        parts: [
          {
            type: "tool_call",
            name: asString(item.name) ?? "",
            callId,
            arguments: parseJsonOrText(asString(item.arguments) ?? ""),
          },
        ],
      };
    case "custom_tool_call":
      return {
        role: "assistant",
        parts: [{ type: "tool_call", name: asString(item.name) ?? "", callId, arguments: item.input }],
      };
    case "local_shell_call":
      return { role: "assistant", parts: [{ type: "tool_call", name: "local_shell", callId, arguments: item.action }] };
    case "function_call_output":
    case "custom_tool_call_output":
    case "local_shell_call_output":
      return { role: "tool", parts: [toolOutput(callId, item.output)] };
    case "reasoning": {
      const summary = asArray(item.summary).flatMap((s) => {
        const text = asString(asRecord(s).text);
        return text === undefined ? [] : [text];
      });
      return { role: "assistant", parts: [summary.length > 0 ? { type: "reasoning", text: summary.join("\n") } : { type: "reasoning" }] };
    }
    case "additional_tools":
      tools.push(...asArray(item.tools).flatMap(toolNames));
      return undefined;
    default:
      return { role: "other", parts: [{ type: "other", kind: type }] };
  }
}

function toolNames(raw: unknown): string[] {
  const tool = asRecord(raw);
  const name = asString(tool.name) ?? asString(tool.type);
  const nested = asArray(tool.tools).flatMap(toolNames);
  return name === undefined ? nested : [name, ...nested];
}

function normalize(body: unknown): NormalizedRequest {
  const b = asRecord(body);
  const messages: CapturedMessage[] = [];
  const tools = asArray(b.tools).flatMap(toolNames);
  const instructions = asString(b.instructions);
  if (instructions) messages.push({ role: "system", parts: [{ type: "text", text: instructions }] });
  if (typeof b.input === "string") messages.push({ role: "user", parts: [{ type: "text", text: b.input }] });
  else {
    for (const raw of asArray(b.input)) {
      const message = inputItem(raw, tools);
      if (message) messages.push(message);
    }
  }
  const model = asString(b.model);
  return { ...(model === undefined ? {} : { model }), stream: b.stream === true, messages, tools };
}

/** How the request offered a tool: Codex's `apply_patch` is a freeform `custom` tool. */
function toolKind(body: unknown, name: string): "function" | "custom" | "local_shell" {
  for (const raw of asArray(asRecord(body).tools)) {
    const tool = asRecord(raw);
    if (tool.type === "custom" && tool.name === name) return "custom";
    if (tool.type === "local_shell" && name === "local_shell") return "local_shell";
  }
  return "function";
}

/**
 * A call of a tool inside a `namespace` tool (Codex offers each MCP server's tools that way, e.g.
 * namespace `mcp__docs` holding `search`) is scripted as `<namespace>__<tool>` and sent as the
 * tool's own name with its `namespace`; any other name is sent as it is.
 */
function namespacedName(body: unknown, name: string): { name: string; namespace?: string } {
  for (const raw of asArray(asRecord(body).tools)) {
    const tool = asRecord(raw);
    const namespace = asString(tool.name);
    if (tool.type !== "namespace" || namespace === undefined || !name.startsWith(`${namespace}__`)) continue;
    const inner = name.slice(namespace.length + 2);
    if (asArray(tool.tools).some((t) => asRecord(t).name === inner)) return { name: inner, namespace };
  }
  return { name };
}

function usageOf(plan: ReplyPlan): JsonRecord | undefined {
  const u = plan.usage;
  if (!u) return undefined;
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.total,
  };
}

type StreamedItem = { item: JsonRecord; stream: (i: number) => JsonRecord[] };

/** Each output item with the events that stream it, in order. */
function outputItems(plan: ReplyPlan, body: unknown): StreamedItem[] {
  const items: StreamedItem[] = [];
  if (plan.reasoning !== undefined) items.push(reasoningItem(plan, plan.reasoning));
  const text = answerText(plan);
  if (text !== undefined) items.push(messageItem(plan, text));
  plan.toolCalls.forEach((call, n) => items.push(toolCallItem(plan, body, call, n)));
  return items;
}

function reasoningItem(plan: ReplyPlan, text: string): StreamedItem {
  const seq = plan.seq;
  const id = `rs_${seq}`;
  const part = { type: "summary_text", text };
  return {
    item: { id, type: "reasoning", summary: [part] },
    stream: (output_index) => [
      { type: "response.output_item.added", output_index, item: { id, type: "reasoning", summary: [] } },
      {
        type: "response.reasoning_summary_part.added",
        item_id: id,
        output_index,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      },
      ...chunks(text, plan.chunkSize).map((delta) => ({
        type: "response.reasoning_summary_text.delta",
        item_id: id,
        output_index,
        summary_index: 0,
        delta,
      })),
      { type: "response.reasoning_summary_text.done", item_id: id, output_index, summary_index: 0, text },
      { type: "response.reasoning_summary_part.done", item_id: id, output_index, summary_index: 0, part },
    ],
  };
}

function messageItem(plan: ReplyPlan, text: string): StreamedItem {
  const seq = plan.seq;
  const id = `msg_${seq}`;
  const part = { type: "output_text", text, annotations: [] };
  return {
    item: { id, type: "message", status: "completed", role: "assistant", content: [part] },
    stream: (output_index) => [
      {
        type: "response.output_item.added",
        output_index,
        item: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
      },
      {
        type: "response.content_part.added",
        item_id: id,
        output_index,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      },
      ...chunks(text, plan.chunkSize).map((delta) => ({
        type: "response.output_text.delta",
        item_id: id,
        output_index,
        content_index: 0,
        delta,
      })),
      { type: "response.output_text.done", item_id: id, output_index, content_index: 0, text },
      { type: "response.content_part.done", item_id: id, output_index, content_index: 0, part },
    ],
  };
}

function toolCallItem(plan: ReplyPlan, body: unknown, call: ReplyPlan["toolCalls"][number], n: number): StreamedItem {
  const seq = plan.seq;
  const kind = toolKind(body, call.name);
  if (kind === "local_shell") {
    const id = `lsh_${seq}_${n}`;
    const action = { type: "exec", ...call.argumentsObject };
    const item = { id, type: "local_shell_call", status: "completed", call_id: call.id, action };
    return {
      item,
      stream: (output_index) => [
        { type: "response.output_item.added", output_index, item: { ...item, status: "in_progress" } },
      ],
    };
  }
  const custom = kind === "custom";
  const id = `${custom ? "ctc" : "fc"}_${seq}_${n}`;
  const field = custom ? "input" : "arguments";
  const eventBase = custom ? "response.custom_tool_call_input" : "response.function_call_arguments";
  const base = { id, type: custom ? "custom_tool_call" : "function_call", call_id: call.id, ...namespacedName(body, call.name) };
  return {
    item: { ...base, status: "completed", [field]: call.arguments },
    stream: (output_index) => [
      { type: "response.output_item.added", output_index, item: { ...base, status: "in_progress", [field]: "" } },
      ...chunks(call.arguments, plan.chunkSize).map((delta) => ({
        type: `${eventBase}.delta`,
        item_id: id,
        output_index,
        delta,
      })),
      { type: `${eventBase}.done`, item_id: id, output_index, [field]: call.arguments },
    ],
  };
}

function responseObject(plan: ReplyPlan, status: "in_progress" | "completed", output: JsonRecord[]): JsonRecord {
  const response: JsonRecord = {
    id: `resp_${plan.seq}`,
    object: "response",
    created_at: nowSeconds(),
    status,
    model: plan.model,
    output,
    error: null,
    incomplete_details: null,
  };
  const usage = usageOf(plan);
  if (status === "completed" && usage) response.usage = usage;
  return response;
}

function encodeStream(plan: ReplyPlan, body: unknown): SseEvent[] {
  const items = outputItems(plan, body);
  const payloads: JsonRecord[] = [
    { type: "response.created", response: responseObject(plan, "in_progress", []) },
    { type: "response.in_progress", response: responseObject(plan, "in_progress", []) },
  ];
  items.forEach(({ item, stream }, i) => {
    payloads.push(...stream(i), { type: "response.output_item.done", output_index: i, item });
  });
  payloads.push({
    type: "response.completed",
    response: responseObject(
      plan,
      "completed",
      items.map((x) => x.item),
    ),
  });
  return payloads.map((payload, sequence_number) =>
    jsonEvent({ ...payload, sequence_number }, String(payload.type)),
  );
}

function encodeJson(plan: ReplyPlan, body: unknown): unknown {
  return responseObject(
    plan,
    "completed",
    outputItems(plan, body).map((x) => x.item),
  );
}

export const responsesCodec: DialectCodec = {
  dialect: "responses",
  normalize,
  encodeStream,
  encodeJson,
  errorBody: openAiErrorBody,
};
