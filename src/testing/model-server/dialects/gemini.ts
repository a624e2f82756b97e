/**
 * Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`), its streaming form
 * `:streamGenerateContent?alt=sse`, spoken by Gemini CLI (with `GOOGLE_GEMINI_BASE_URL`) and
 * Google AI clients. The model and the streaming flag come from the path, not the body.
 *
 * Gemini CLI rejects a stream without a `finishReason` ("NO_FINISH_REASON") and a text answer
 * without text ("NO_RESPONSE_TEXT"), so the last chunk always carries `finishReason: "STOP"`
 * and the `usageMetadata`.
 */
import { describeBase64, partKindFor } from "../capture.js";
import { asArray, asRecord, asString, isRecord } from "../json.js";
import type { JsonRecord } from "../json.js";
import { answerText, chunks } from "../reply.js";
import type { ReplyPlan } from "../reply.js";
import { jsonEvent } from "../sse.js";
import type { SseEvent } from "../sse.js";
import type { CapturedMessage, CapturedPart, NormalizedRequest } from "../types.js";
import type { DialectCodec, RouteHints } from "./codec.js";

function responseText(response: unknown): string | undefined {
  const r = asRecord(response);
  if (typeof r.output === "string") return r.output;
  if (typeof r.content === "string") return r.content;
  return response === undefined ? undefined : JSON.stringify(response);
}

function part(raw: unknown): CapturedPart {
  const p = asRecord(raw);
  if (typeof p.text === "string") return p.thought === true ? { type: "reasoning", text: p.text } : { type: "text", text: p.text };
  if (isRecord(p.inlineData)) {
    const mediaType = asString(p.inlineData.mimeType);
    const data = asString(p.inlineData.data);
    return {
      type: partKindFor(mediaType),
      source: "base64",
      ...(mediaType === undefined ? {} : { mediaType }),
      ...(data === undefined ? {} : describeBase64(data)),
    };
  }
  if (isRecord(p.fileData)) {
    const mediaType = asString(p.fileData.mimeType);
    const url = asString(p.fileData.fileUri);
    return {
      type: partKindFor(mediaType),
      source: "url",
      ...(mediaType === undefined ? {} : { mediaType }),
      ...(url === undefined ? {} : { url }),
    };
  }
  if (isRecord(p.functionCall)) {
    const name = asString(p.functionCall.name) ?? "";
    return { type: "tool_call", name, callId: asString(p.functionCall.id) ?? name, arguments: p.functionCall.args };
  }
  if (isRecord(p.functionResponse)) {
    const name = asString(p.functionResponse.name) ?? "";
    const result: CapturedPart = { type: "tool_result", callId: asString(p.functionResponse.id) ?? name };
    const text = responseText(p.functionResponse.response);
    if (text !== undefined) result.text = text;
    const nested = asArray(p.functionResponse.parts).map(part);
    if (nested.length > 0) result.parts = nested;
    return result;
  }
  const kind = Object.keys(p).find((k) => k !== "thoughtSignature") ?? "unknown";
  return { type: "other", kind };
}

function role(raw: unknown): CapturedMessage["role"] {
  if (raw === "model") return "assistant";
  if (raw === "function") return "tool";
  if (raw === "user" || raw === undefined) return "user";
  return "other";
}

function normalize(body: unknown, hints: RouteHints): NormalizedRequest {
  const b = asRecord(body);
  const messages: CapturedMessage[] = [];
  const system = b.systemInstruction ?? b.system_instruction;
  if (typeof system === "string") messages.push({ role: "system", parts: [{ type: "text", text: system }] });
  else if (isRecord(system)) messages.push({ role: "system", parts: asArray(system.parts).map(part) });
  for (const raw of asArray(b.contents)) {
    const c = asRecord(raw);
    messages.push({ role: role(c.role), parts: asArray(c.parts).map(part) });
  }
  const tools = asArray(b.tools).flatMap((raw) => {
    const tool = asRecord(raw);
    const declared = asArray(tool.functionDeclarations ?? tool.function_declarations).flatMap((d) => {
      const name = asString(asRecord(d).name);
      return name === undefined ? [] : [name];
    });
    const builtins = Object.keys(tool).filter((k) => k !== "functionDeclarations" && k !== "function_declarations");
    return [...declared, ...builtins];
  });
  return {
    ...(hints.model === undefined ? {} : { model: hints.model }),
    stream: hints.stream === true,
    messages,
    tools,
  };
}

function usageMetadata(plan: ReplyPlan): JsonRecord | undefined {
  const u = plan.usage;
  if (!u) return undefined;
  const meta: JsonRecord = { promptTokenCount: u.input, candidatesTokenCount: u.output, totalTokenCount: u.total };
  if (u.reasoning > 0) meta.thoughtsTokenCount = u.reasoning;
  if (u.cached > 0) meta.cachedContentTokenCount = u.cached;
  return meta;
}

/** The parts of the answer, grouped as they are streamed (one group per chunk). */
function partGroups(plan: ReplyPlan): JsonRecord[][] {
  const groups: JsonRecord[][] = [];
  if (plan.reasoning !== undefined) {
    for (const text of chunks(plan.reasoning, plan.chunkSize)) groups.push([{ text, thought: true }]);
  }
  const text = answerText(plan);
  if (text !== undefined) for (const piece of chunks(text, plan.chunkSize)) groups.push([{ text: piece }]);
  for (const call of plan.toolCalls) {
    groups.push([{ functionCall: { id: call.id, name: call.name, args: call.argumentsObject } }]);
  }
  return groups;
}

function chunk(plan: ReplyPlan, parts: JsonRecord[], last: boolean): JsonRecord {
  const candidate: JsonRecord = { content: { role: "model", parts }, index: 0 };
  if (last) candidate.finishReason = "STOP";
  const out: JsonRecord = { candidates: [candidate] };
  const usage = usageMetadata(plan);
  if (last && usage) out.usageMetadata = usage;
  out.modelVersion = plan.model;
  out.responseId = `resp_${plan.seq}`;
  return out;
}

function encodeStream(plan: ReplyPlan): SseEvent[] {
  const groups = partGroups(plan);
  return groups.map((parts, i) => jsonEvent(chunk(plan, parts, i === groups.length - 1)));
}

function encodeJson(plan: ReplyPlan): unknown {
  return chunk(plan, partGroups(plan).flat(), true);
}

/** The Google RPC status name for an HTTP status. */
export function geminiStatus(status: number): string {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 503:
    case 529:
      return "UNAVAILABLE";
    default:
      return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

export const geminiCodec: DialectCodec = {
  dialect: "gemini",
  normalize,
  encodeStream,
  encodeJson,
  errorBody: (status, message) => ({ error: { code: status, message, status: geminiStatus(status) } }),
};
