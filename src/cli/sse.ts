/**
 * Reads a session's events from the attach server: `fetch` streaming (a token header cannot be
 * sent by `EventSource`), text/event-stream parsing, and reconnection with `Last-Event-ID` after
 * the connection drops, so no event is lost or repeated.
 */
import type { ApiClient } from "./client.js";
import { CliError } from "./exit.js";

export interface SseFrame {
  /** The session's sequence number (`id:`); frames without one (a stream error) have none. */
  id?: number;
  event: string;
  data: string;
}

/** Splits text/event-stream bytes into frames (WHATWG HTML, "Server-sent events": interpreting an event stream). */
export class SseParser {
  #buffer = "";
  #id: string | undefined;
  #event = "";
  #data: string[] = [];

  /** The last chunk ended with \r: a \n starting the next one is the second half of that line end. */
  #pendingLf = false;

  /** Feed a chunk; returns the frames it completed. */
  push(chunk: string): SseFrame[] {
    if (this.#pendingLf && chunk !== "") {
      this.#pendingLf = false;
      if (chunk.startsWith("\n")) chunk = chunk.slice(1);
    }
    this.#buffer += chunk;
    const frames: SseFrame[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer);
      if (!match) break;
      const line = this.#buffer.slice(0, match.index);
      this.#buffer = this.#buffer.slice(match.index + match[0].length);
      if (match[0] === "\r" && this.#buffer === "") this.#pendingLf = true;
      const frame = this.#line(line);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  #line(line: string): SseFrame | undefined {
    if (line === "") {
      if (this.#data.length === 0) {
        this.#event = "";
        return undefined;
      }
      const id = this.#id !== undefined && /^\d+$/.test(this.#id) ? Number(this.#id) : undefined;
      const frame: SseFrame = { event: this.#event || "message", data: this.#data.join("\n"), ...(id !== undefined ? { id } : {}) };
      this.#event = "";
      this.#data = [];
      this.#id = undefined;
      return frame;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    return undefined;
  }
}

export interface SessionEventStreamOptions {
  /** Start after this sequence number; absent: the whole log. */
  after?: number;
  signal: AbortSignal;
  /** Waits before reconnecting, ms. */
  reconnectDelayMs?: number;
  /** Called when the connection dropped and is being re-established. */
  onReconnect?: (lastSeq: number | undefined) => void;
  /** Asked when the server ended the stream itself: `true` ends the iteration instead of reconnecting. */
  finished?: () => Promise<boolean>;
}

/** The session's frames, in order, resuming after a dropped connection; ends when `signal` aborts. */
export async function* sessionEvents(client: ApiClient, sessionId: string, options: SessionEventStreamOptions): AsyncGenerator<SseFrame> {
  let last = options.after;
  const path = `/sessions/${encodeURIComponent(sessionId)}/events`;
  while (!options.signal.aborted) {
    // Server errors (401, 404) are final and thrown; only a dropped connection is retried.
    const response = await client.request(path, {
      headers: { accept: "text/event-stream", ...(last !== undefined ? { "last-event-id": String(last) } : {}) },
      signal: options.signal,
    }).catch((error: unknown) => {
      if (options.signal.aborted) return undefined;
      throw error;
    });
    if (!response?.body) return;
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    let ended = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          ended = true;
          break;
        }
        for (const frame of parser.push(decoder.decode(value, { stream: true }))) {
          if (frame.id !== undefined) {
            // A server that resumed from an older point would repeat what was shown.
            if (last !== undefined && frame.id <= last) continue;
            last = frame.id;
          }
          yield frame;
        }
      }
    } catch (error) {
      if (options.signal.aborted) return;
      if (error instanceof CliError) throw error;
      // The connection dropped: resume from the last frame seen.
    } finally {
      // Also when the reader stops early (a detach): the connection is closed, not left open.
      await reader.cancel().catch(() => undefined);
    }
    if (options.signal.aborted) return;
    if (ended && (await options.finished?.())) return;
    options.onReconnect?.(last);
    await delay(options.reconnectDelayMs ?? 500, options.signal);
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
