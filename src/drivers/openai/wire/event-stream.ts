/**
 * A streamed answer read from the response body directly. The official client still sends the
 * request (base URL, headers, timeout, abort, HTTP errors); its `Stream` is not used: its nested
 * async generators and byte copies cost about a tenth of a short turn. What comes out is what
 * that `Stream` gives: the same payloads in the same order, the same errors — an unparsable
 * message is its `SyntaxError` (logged as the client logs it), a payload with an `error` is its
 * `APIError` — nothing after `[DONE]`, `thread.*` messages skipped (this driver reads none), and
 * an abort of the body ends the stream quietly (the loop sees a stream without its end and the
 * run's signal says why). A stream left early (a payload the caller refused) cancels the body,
 * and with it the connection.
 */
import { ProviderError } from "../../../errors/index.js";
import type { OpenAIClass, OpenAIClient } from "../client.js";
import { SseDecoder, type SseMessage } from "./sse.js";

/** Takes one payload; a promise when the taker wants it awaited before the next (backpressure). */
export type PayloadTaker = (payload: unknown) => Promise<void> | undefined;

/** The official client's test for an aborted fetch (its `isAbortError`). */
function isAbortError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  return ("name" in error && error.name === "AbortError") || ("message" in error && String(error.message).includes("FetchRequestCanceledException"));
}

/** The message's JSON, or the `SyntaxError`, logged first as the official client logs it. */
function parsed(message: SseMessage, client: OpenAIClient, thread: boolean): unknown {
  try {
    return JSON.parse(message.data);
  } catch (error) {
    // The client logs `thread.*` messages to the console, the others through its logger.
    const log = thread ? console.error : client.logLevel !== undefined && client.logLevel !== "off" ? client.logger.error.bind(client.logger) : undefined;
    log?.("Could not parse message into JSON:", message.data);
    log?.("From chunk:", message.raw);
    throw error;
  }
}

/**
 * How much text may come without a blank line ending a message: the client's `Stream` holds any
 * amount, so an endpoint that never ends one (a misbehaving gateway) grew the host's memory
 * without bound. A real message (a chunk of an answer, a tool call's arguments) is far smaller.
 */
export const MAX_UNENDED_CHARS = 64 * 1024 * 1024;

/** Reads `response`'s events to the end, handing each JSON payload to `take`. */
export async function readEventStream(response: Response, client: OpenAIClient, take: PayloadTaker, maxUnended = MAX_UNENDED_CHARS): Promise<void> {
  const errors = client.constructor as OpenAIClass;
  if (response.body === null) throw new errors.OpenAIError("Attempted to iterate over a response with no body");
  const reader = response.body.getReader();
  const text = new TextDecoder("utf-8", { ignoreBOM: true });
  const sse = new SseDecoder();
  /** `[DONE]` came: later messages are read and dropped. */
  let done = false;
  let ended = false;
  try {
    for (;;) {
      const message = sse.next();
      if (message === undefined) {
        if (ended) return;
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (isAbortError(error)) return;
          throw error;
        }
        if (chunk.done) {
          sse.push(text.decode());
          sse.end();
          ended = true;
        } else {
          sse.push(text.decode(chunk.value, { stream: true }));
          if (sse.held > maxUnended) {
            throw new ProviderError(`the model's event stream sent more than ${maxUnended} characters without ending an event`, { code: "malformed_response", retryable: false });
          }
        }
        continue;
      }
      if (done) continue;
      if (message.data.startsWith("[DONE]")) {
        done = true;
        continue;
      }
      const thread = message.event !== null && message.event.startsWith("thread.");
      const payload = parsed(message, client, thread);
      if (thread) continue;
      if (typeof payload === "object" && payload !== null && (payload as { error?: unknown }).error) {
        throw new errors.APIError(undefined, (payload as { error: object }).error, undefined, response.headers);
      }
      const pending = take(payload);
      if (pending !== undefined) await pending;
    }
  } finally {
    if (!done && !ended) await reader.cancel().catch(() => {});
  }
}
