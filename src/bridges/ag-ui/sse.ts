/**
 * AG-UI over HTTP: each event one Server-Sent Event (`data: <json>` and a blank line), the
 * encoding `@ag-ui/client`'s `HttpAgent` parses; pulled one event at a time, so a slow client
 * slows the run instead of filling memory.
 */
import { AdaptorError } from "../../errors/index.js";
import { clientErrorText } from "../shared/client-event.js";
import type { AgUiEvent } from "./events.js";

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** One AG-UI event as an SSE frame (JSON never holds a raw line break, so one `data:` line). */
export function encodeAgUiEvent(event: AgUiEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** A streaming `Response` of `events`; `onCancel` runs when the client goes away before the end. */
export function sseResponse(events: AsyncIterable<AgUiEvent> | Iterable<AgUiEvent>, onCancel?: () => unknown): Response {
  const iterator = Symbol.asyncIterator in events ? events[Symbol.asyncIterator]() : toAsync(events[Symbol.iterator]());
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(encodeAgUiEvent(next.value)));
    },
    async cancel() {
      // First stop what the reader waits on (its pending read then ends), then the reader.
      await onCancel?.();
      await iterator.return?.();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

function toAsync(iterator: Iterator<AgUiEvent>): AsyncIterator<AgUiEvent> {
  return { next: async () => iterator.next() };
}

/** A refused run as AG-UI: `RUN_STARTED` then `RUN_ERROR` with the error's code (host paths hidden from its message). */
export function errorEvents(input: { threadId: string; runId: string }, error: unknown): AgUiEvent[] {
  const now = Date.now();
  const code = error instanceof AdaptorError ? error.code : "internal_error";
  const message = error instanceof AdaptorError ? clientErrorText(error.message) : "the run could not start";
  return [
    { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId, timestamp: now },
    { type: "RUN_ERROR", message, code, timestamp: now },
  ];
}

/** A JSON error answer `{ error: { code, message } }`, host paths hidden from the message. */
export function jsonError(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ error: { code, message: clientErrorText(message) } }), { status, headers: { "content-type": "application/json" } });
}
