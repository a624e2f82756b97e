/**
 * Whether a 200 answer is the kind of body the request asked for. A baseURL pointing at a web UI,
 * or a proxy answering with its login page, returns 200 with HTML: read as an event stream it
 * holds no events, and the run would fail with nothing saying what came back. Such an answer is
 * refused by its content type, with a short excerpt of its text (redacted where the error is
 * made, see failures.ts).
 */
import { ProviderError } from "../../../errors/index.js";

/** Bytes of an unexpected body read for its excerpt; the rest is never read. */
const EXCERPT_BYTES = 2048;
/** Characters of that text the error keeps. */
export const EXCERPT_CHARS = 160;

/** A 200 answer whose body is not what the request expects. Its message names the content type only. */
export class UnexpectedAnswerError extends Error {
  /** The body's text, tags and spacing removed, cut short; not redacted yet, so kept out of the message. */
  readonly #excerpt: string;

  constructor(
    readonly contentType: string | undefined,
    readonly expected: "an event stream" | "JSON",
    excerpt: string,
  ) {
    super(`the endpoint answered with ${describeType(contentType)}, not ${expected}`);
    this.name = "UnexpectedAnswerError";
    this.#excerpt = excerpt;
  }

  get excerpt(): string {
    return this.#excerpt;
  }
}

function describeType(contentType: string | undefined): string {
  return contentType === undefined || contentType === "" ? "no content type" : `content type ${contentType.split(";")[0]!.trim()}`;
}

/** The visible text of a body's start: tags and entities dropped, spacing collapsed. */
export function excerptOf(text: string): string {
  const visible = text
    .replace(/<(script|style)\b[\s\S]*?(<\/\1\s*>|$)/gi, " ")
    .replace(/<[^>]*>?/g, " ")
    .replace(/&[a-z0-9#]+;/gi, " ")
    .replace(/\s+/g, " ")
    .trim();
  return visible.length > EXCERPT_CHARS ? `${visible.slice(0, EXCERPT_CHARS - 1)}…` : visible;
}

/** The first bytes of the body as text; the body is cancelled after them. */
async function bodyStart(response: Response): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const chunk = await reader.read();
      if (chunk.done) break;
      chunks.push(chunk.value);
      size += chunk.value.byteLength;
    }
  } catch {
    // A body that fails while read (an abort, a reset) still has its type to report.
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(size, EXCERPT_BYTES));
  let at = 0;
  for (const chunk of chunks) {
    if (at >= bytes.length) break;
    const part = chunk.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(bytes);
}

/** Content types that are a document, never an event stream: HTML, JSON, XML. */
const DOCUMENT_TYPE = /^\s*(text\/html|[\w.+-]+\/(?:[\w.-]+\+)?(?:json|xml))\s*(;|$)/i;

/**
 * Refuses a streamed request's answer declared as a document (HTML, JSON, XML), reading a little
 * of it for the error. Any other type, or none, is read as a stream (a server may label its
 * events text/plain): {@link noEvents} then says what it was if it held no events.
 */
export async function expectEventStream(response: Response): Promise<void> {
  const contentType = response.headers.get("content-type") ?? undefined;
  if (contentType === undefined || !DOCUMENT_TYPE.test(contentType)) return;
  throw new UnexpectedAnswerError(contentType, "an event stream", excerptOf(await bodyStart(response)));
}

/**
 * The failure of a streamed answer that ended without a single event. A declared event stream
 * that ends empty was cut (sending again may work); a body of another kind is not one.
 */
export function noEvents(response: Response): Error {
  const contentType = response.headers.get("content-type") ?? undefined;
  if (contentType !== undefined && /^\s*text\/event-stream\b/i.test(contentType)) {
    return new ProviderError("the model's event stream ended before its first event", { code: "provider_error", retryable: true });
  }
  return new UnexpectedAnswerError(contentType, "an event stream", "");
}
