/** Web `Response` and hono helpers over {@link toSSE}. */
import type { BridgeSource } from "../shared/event-source.js";
import { parseLastEventId } from "./frames.js";
import { SSE_HEADERS } from "./headers.js";
import { toSSE, type ToSseOptions } from "./to-sse.js";

export interface SseResponseOptions extends ToSseOptions {
  /**
   * The request being answered: its `Last-Event-ID` header is the default `from`, and its
   * `signal` ends the stream when the client goes away.
   */
  request?: Request;
  status?: number;
  /** Extra response headers (the event-stream headers win for the ones they set). */
  headers?: Record<string, string>;
}

/** A web `Response` streaming `source` as server-sent events. */
export function sseResponse(source: BridgeSource, options: SseResponseOptions = {}): Response {
  const { request, status, headers, ...rest } = options;
  const from = rest.from ?? parseLastEventId(request?.headers.get("last-event-id"));
  const signal = rest.signal ?? request?.signal;
  const body = toSSE(source, { ...rest, ...(from !== undefined ? { from } : {}), ...(signal ? { signal } : {}) });
  return new Response(body, { status: status ?? 200, headers: { ...headers, ...SSE_HEADERS } });
}

/** The part of a hono `Context` the helper reads (typed structurally, so hono is not needed to compile). */
export interface HonoContextLike {
  req: { raw: Request };
}

/** `app.get("/events", (c) => honoSSE(c, source))`: {@link sseResponse} for the context's request. */
export function honoSSE(context: HonoContextLike, source: BridgeSource, options: Omit<SseResponseOptions, "request"> = {}): Response {
  return sseResponse(source, { ...options, request: context.req.raw });
}
