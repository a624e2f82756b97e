/** The node:http helper: an event stream written to a `ServerResponse`, honouring backpressure and client close. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BridgeSource } from "../shared/event-source.js";
import { pipeToNode } from "../shared/node-pipe.js";
import { parseLastEventId } from "./frames.js";
import { SSE_HEADERS } from "./headers.js";
import { toSSE, type ToSseOptions } from "./to-sse.js";

export interface WriteSseOptions extends ToSseOptions {
  /** The request: its `Last-Event-ID` header is the default `from`. */
  request?: IncomingMessage;
  /** Extra response headers (the event-stream headers win for the ones they set). */
  headers?: Record<string, string>;
}

/**
 * Write `source` to `response` as server-sent events. Resolves when the source ended (the
 * response is then ended) or the client went away (the stream is then cancelled, see
 * {@link ToSseOptions.cancelRunOnClose}). Never rejects for a closed connection.
 */
export async function writeSSE(response: ServerResponse, source: BridgeSource, options: WriteSseOptions = {}): Promise<void> {
  const { request, headers, ...rest } = options;
  const header = request?.headers["last-event-id"];
  const from = rest.from ?? parseLastEventId(Array.isArray(header) ? header[0] : header);
  await pipeToNode(response, toSSE(source, { ...rest, ...(from !== undefined ? { from } : {}) }), 200, { ...headers, ...SSE_HEADERS });
}
