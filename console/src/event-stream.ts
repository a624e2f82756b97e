/**
 * Follows a session's event stream (GET /api/sessions/:id/events) with fetch streaming — not
 * EventSource, which cannot send the Authorization header. A dropped connection is retried with
 * backoff, resuming with `Last-Event-ID` = the last sequence number seen; entries at or below it
 * are dropped, so a replay that overlaps never delivers an entry twice.
 */
import { backoffDelay, DEFAULT_BACKOFF } from "./backoff.js";
import { SseParser } from "./sse-parser.js";
import type { AgentEvent, SessionNotice, StreamEntry } from "./wire.js";

export type StreamStatus = "connecting" | "live" | "reconnecting" | "closed";

/** The frame the server sends when the session's log itself fails (the stream then ends). */
const STREAM_ERROR_EVENT = "stream.error";

export interface FollowOptions {
  /** The events URL (relative to the page). */
  url: string;
  token: string;
  /** The last sequence number already held; 0 replays everything kept. */
  after: number;
  signal: AbortSignal;
  /** The entries one network chunk completed, in order, each seen once. */
  onEntries(entries: StreamEntry[]): void;
  onStatus(status: StreamStatus, detail?: { attempt: number; delayMs: number }): void;
  /** A refusal retrying cannot fix (401, 404, …): following stops. */
  onFatal(error: { status: number; code: string; message: string }): void;
  fetch?: typeof fetch;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  backoff?: { baseMs: number; maxMs: number };
}

/** Follow until `signal` aborts or the server refuses for good. Resolves then; never rejects. */
export async function followEvents(options: FollowOptions): Promise<void> {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  let lastSeq = options.after;
  let attempt = 0;
  let retryHintMs: number | undefined;
  options.onStatus("connecting");
  while (!options.signal.aborted) {
    let received = false;
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: "text/event-stream" };
      if (lastSeq > 0) headers["last-event-id"] = String(lastSeq);
      const response = await doFetch(options.url, { headers, signal: options.signal });
      if (!response.ok || response.body === null) {
        if (isFatal(response.status)) {
          options.onFatal(await errorOf(response));
          options.onStatus("closed");
          return;
        }
        throw new Error(`status ${response.status}`);
      }
      options.onStatus("live");
      const reader = response.body.getReader();
      // Cancelling the reader ends a pending read at once; an aborted fetch alone may leave it waiting.
      const stop = (): void => void reader.cancel().catch(() => undefined);
      options.signal.addEventListener("abort", stop, { once: true });
      if (options.signal.aborted) stop();
      try {
        received = await readFrames(reader);
      } finally {
        options.signal.removeEventListener("abort", stop);
      }
    } catch {
      // A network drop or a 5xx: retried below.
    }
    if (options.signal.aborted) break;
    // Only a connection that delivered something resets the backoff: a stream that ends at once stays slowed down.
    if (received) attempt = 0;
    const delayMs = backoffDelay(attempt, { baseMs: Math.max(backoff.baseMs, retryHintMs ?? 0), maxMs: backoff.maxMs, random });
    options.onStatus("reconnecting", { attempt: attempt + 1, delayMs });
    attempt++;
    await sleep(delayMs, options.signal);
  }
  options.onStatus("closed");

  /**
   * Read one response to its end, a `stream.error` frame or an abort, delivering the entries
   * above `lastSeq`; whether it delivered any. A drop mid-read rejects (with what came before delivered).
   */
  async function readFrames(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<boolean> {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    let received = false;
    for (;;) {
      const { done, value } = await reader.read();
      const frames = parser.push(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      retryHintMs = parser.retryMs ?? retryHintMs;
      const entries: StreamEntry[] = [];
      let failed = false;
      for (const frame of frames) {
        if (frame.event === STREAM_ERROR_EVENT) {
          failed = true;
          break;
        }
        const seq = frame.id === undefined ? NaN : Number(frame.id);
        if (!Number.isSafeInteger(seq) || seq <= lastSeq) continue;
        lastSeq = seq;
        const event = parseEvent(frame.data);
        if (event) entries.push({ seq, event });
      }
      if (entries.length > 0) {
        received = true;
        options.onEntries(entries);
      }
      if (done) return received;
      if (failed || options.signal.aborted) {
        await reader.cancel().catch(() => undefined);
        return received;
      }
    }
  }
}

/** 4xx other than timeout and rate limit: retrying sends the same refused request. */
function isFatal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    const code = typeof body.error?.code === "string" ? body.error.code : "http_error";
    const message = typeof body.error?.message === "string" ? body.error.message : response.statusText;
    return { status: response.status, code, message };
  } catch {
    return { status: response.status, code: "http_error", message: response.statusText || `HTTP ${response.status}` };
  }
}

function parseEvent(data: string): AgentEvent | SessionNotice | undefined {
  try {
    const value: unknown = JSON.parse(data);
    if (typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string") return value as AgentEvent | SessionNotice;
  } catch {
    // Not JSON: not an event this console can show.
  }
  return undefined;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
