/** The contract every dialect module fulfils: read its requests, write its answers. */
import type { ReplyPlan } from "../reply.js";
import type { SseEvent } from "../sse.js";
import type { ModelDialect, NormalizedRequest } from "../types.js";

/** Facts the route carries that some dialects keep outside the body (Gemini: model, streaming). */
export interface RouteHints {
  model?: string;
  stream?: boolean;
}

export interface DialectCodec {
  readonly dialect: ModelDialect;
  /** Extracts model, streaming flag, normalized messages and offered tools. */
  normalize(body: unknown, hints: RouteHints): NormalizedRequest;
  /** The answer as SSE events, in wire order. */
  encodeStream(plan: ReplyPlan, body: unknown): SseEvent[];
  /** The answer as one JSON body. */
  encodeJson(plan: ReplyPlan, body: unknown): unknown;
  /** An error body in the dialect's envelope. */
  errorBody(status: number, message: string, code?: string): unknown;
}

/** A short machine name for an HTTP error status, shared by the OpenAI-style envelopes. */
export function openAiErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_exceeded";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** `{error: {message, type, param, code}}`, the OpenAI error envelope (Responses and Chat). */
export function openAiErrorBody(status: number, message: string, code?: string): unknown {
  return { error: { message, type: openAiErrorType(status), param: null, code: code ?? openAiErrorType(status) } };
}
