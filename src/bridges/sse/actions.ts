/**
 * The companion POST endpoint of an event stream: a browser answers an approval or a question of
 * the run it watches. `resolve` finds what answers for the run or session named in the body (a
 * `RunStream`, or anything with the same three methods); the answer goes through unchanged, so
 * the first-answer-wins rules and typed refusals of `respond` / `answer` / `decline` apply.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { AdaptorError } from "../../errors/index.js";
import { clientErrorText } from "../shared/client-event.js";
import type { ApprovalResponse } from "../../events/types.js";
import { parseActionBody, type ActionTarget, type ParsedAction } from "./actions-body.js";

/** What answers a run's pending requests: a `RunStream` is one. */
export interface RequestAnswerer {
  respond(requestId: string, decision: ApprovalResponse): void;
  answer(requestId: string, answers: Record<string, string | string[]>): void;
  decline(requestId: string): void;
}

export interface SseActionsOptions {
  /**
   * The answerer for the run or session the body names; `undefined` answers 404. Check here that
   * the caller may answer it (the handler does no authentication of its own).
   */
  resolve(target: ActionTarget, request: { headers: Headers }): RequestAnswerer | undefined | Promise<RequestAnswerer | undefined>;
  /** Bodies larger than this are refused with 413. Default 64 KiB. */
  maxBodyBytes?: number;
}

/** The `error.code` of a refused answer (besides the `ResponseRejectedError` codes and any other `AdaptorError` code). */
export type SseActionErrorCode = "method_not_allowed" | "body_too_large" | "body_invalid" | "not_found" | "internal_error";

/** The JSON answer of the endpoint. */
export type SseActionResult = { ok: true; requestId: string } | { ok: false; error: { code: string; message: string; issues?: { path: string; message: string }[] } };

const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

interface Outcome {
  status: number;
  body: SseActionResult;
}

const refusal = (status: number, code: string, message: string, issues?: { path: string; message: string }[]): Outcome => ({
  status,
  body: { ok: false, error: { code, message, ...(issues ? { issues } : {}) } },
});

/** The status of an error a stream's answer threw. */
function statusOf(code: string): number {
  if (code === "response_invalid") return 422;
  return 409;
}

async function settle(text: string | undefined, headers: Headers, options: SseActionsOptions): Promise<Outcome> {
  if (text === undefined) return refusal(413, "body_too_large", "the body is larger than the endpoint accepts");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refusal(400, "body_invalid", "the body is not JSON");
  }
  const parsed = parseActionBody(value);
  if (!parsed.ok) return refusal(400, "body_invalid", "the body is not an answer this endpoint accepts", parsed.issues);
  try {
    const answerer = await options.resolve(parsed.target, { headers });
    if (answerer === undefined) return refusal(404, "not_found", "no run or session with that id is answerable here");
    apply(answerer, parsed.action);
    return { status: 200, body: { ok: true, requestId: parsed.action.requestId } };
  } catch (error) {
    // The library's errors carry a stable code and a redacted message (host paths hidden); anything else stays inside.
    if (AdaptorError.is(error)) return refusal(statusOf(error.code), error.code, clientErrorText(error.message));
    return refusal(500, "internal_error", "the answer could not be delivered");
  }
}

function apply(answerer: RequestAnswerer, action: ParsedAction): void {
  if (action.kind === "respond") answerer.respond(action.requestId, action.response);
  else if (action.kind === "answer") answerer.answer(action.requestId, action.answers);
  else answerer.decline(action.requestId);
}

/** Read at most `limit` bytes of a web body; `undefined` past it. */
async function readWebBody(request: Request, limit: number): Promise<string | undefined> {
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(concat(chunks, size));
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

/** A fetch-style handler (web `Request` → `Response`): hono's `(c) => handler(c.req.raw)`, Deno, Bun, workers. */
export function sseActionsHandler(options: SseActionsOptions): (request: Request) => Promise<Response> {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return async (request) => {
    const outcome =
      request.method !== "POST" ? refusal(405, "method_not_allowed", "answers are POSTed") : await settle(await readWebBody(request, limit), request.headers, options);
    const headers: Record<string, string> = outcome.status === 405 ? { ...JSON_HEADERS, allow: "POST" } : JSON_HEADERS;
    return new Response(JSON.stringify(outcome.body), { status: outcome.status, headers });
  };
}

/** The same endpoint for node:http: `(req, res) => handler(req, res)`. Resolves once the answer is written. */
export function sseActionsNodeHandler(options: SseActionsOptions): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return async (request, response) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const outcome = request.method !== "POST" ? refusal(405, "method_not_allowed", "answers are POSTed") : await settle(await nodeBodyText(request, limit), headers, options);
    response.writeHead(outcome.status, outcome.status === 405 ? { ...JSON_HEADERS, allow: "POST" } : JSON_HEADERS);
    response.end(JSON.stringify(outcome.body));
  };
}

/** The body's text; a body a framework already parsed (express.json() sets `request.body`) is taken as is. */
async function nodeBodyText(request: IncomingMessage, limit: number): Promise<string | undefined> {
  const parsed = (request as IncomingMessage & { body?: unknown }).body;
  if (parsed === undefined) return readNodeBody(request, limit);
  const text = typeof parsed === "string" ? parsed : Buffer.isBuffer(parsed) ? parsed.toString("utf8") : JSON.stringify(parsed);
  return Buffer.byteLength(text) > limit ? undefined : text;
}

async function readNodeBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buffer.byteLength;
    // Past the limit the rest is not kept, but read, so the client can receive the 413.
    if (size > limit) continue;
    chunks.push(buffer);
  }
  return size > limit ? undefined : Buffer.concat(chunks).toString("utf8");
}
