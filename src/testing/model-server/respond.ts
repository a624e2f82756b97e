/** Writing answers: JSON bodies, SSE streams with drip and cut faults, dropped connections. */
import type { ServerResponse } from "node:http";
import { formatSse } from "./sse.js";
import type { SseEvent } from "./sse.js";

/** Resolves after `ms`, or at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  method = "POST",
): void {
  if (res.destroyed) return;
  if (typeof body === "string") {
    res.writeHead(status, { "content-type": looksLikeJson(body) ? "application/json" : "text/plain; charset=utf-8", ...headers });
    res.end(method === "HEAD" ? undefined : body);
    return;
  }
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(method === "HEAD" ? undefined : text);
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Destroys the connection once everything already written has reached the kernel, so the
 * client receives exactly what was sent and then a dropped connection (no chunked-body end).
 */
export function cutConnection(res: ServerResponse): Promise<void> {
  const socket = res.socket;
  if (!socket || socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    socket.end(() => {
      socket.destroy();
      resolve();
    });
    socket.once("close", () => resolve());
  });
}

export interface StreamOptions {
  dripMs?: number;
  /** Cut the connection after this many events instead of ending the stream. */
  cutAfterEvents?: number;
  signal: AbortSignal;
}

/** Writes an SSE response; returns the number of events written. */
export async function writeSse(res: ServerResponse, events: readonly SseEvent[], options: StreamOptions): Promise<number> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  const limit = options.cutAfterEvents ?? events.length;
  let written = 0;
  for (const event of events) {
    if (written >= limit) break;
    if (written > 0 && options.dripMs) await sleep(options.dripMs, options.signal);
    if (options.signal.aborted || res.destroyed) return written;
    res.write(formatSse(event));
    written++;
  }
  if (options.cutAfterEvents !== undefined) await cutConnection(res);
  else res.end();
  return written;
}
