/**
 * `toSSE`: a run's events (or a session's event log) as a web `ReadableStream` of
 * text/event-stream bytes. One frame per event: `id:` its sequence number (the session's when
 * the source is a session log), `event:` its type, `data:` its wire JSON.
 */
import { toWireData } from "../../events/wire.js";
import { openSource, sourceFailure, type BridgeEntry, type BridgeSource, type OpenSource } from "../shared/event-source.js";
import { commentFrame, eventFrame, retryFrame } from "./frames.js";

export interface ToSseOptions {
  /**
   * Resume after this sequence number (a client's `Last-Event-ID`): a session log or a replay
   * function replays from just after it; any other source skips entries at or below it.
   */
  from?: number;
  /** A comment frame every this many ms while nothing else is sent; 0 sends none. Default 15000. */
  heartbeatMs?: number;
  /** The reconnection delay sent to the client first, ms; 0 sends none. Default 2000. */
  retryMs?: number;
  /**
   * When the reader cancels (the client went away) and the source is a run's stream: `true`
   * cancels the run. By default the run goes on and its remaining events are read and dropped,
   * so it never stalls on a full buffer.
   */
  cancelRunOnClose?: boolean;
  /** Aborting it ends the stream as a reader's cancel would (e.g. the request's own signal). */
  signal?: AbortSignal;
}

/** The event name frames carry when the source itself fails; the stream then ends. */
export const SSE_STREAM_ERROR_EVENT = "stream.error";

const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_RETRY_MS = 2_000;

/** The frame of one entry. */
export function entryFrame(entry: BridgeEntry): string {
  return eventFrame({ id: String(entry.seq), event: entry.event.type, data: JSON.stringify(toWireData(entry.event)) });
}

/** A failing source's last frame (see `sourceFailure`). */
function errorFrame(error: unknown): string {
  return eventFrame({ event: SSE_STREAM_ERROR_EVENT, data: JSON.stringify(sourceFailure(error)) });
}

/** Stream `source` as text/event-stream bytes; see {@link ToSseOptions}. */
export function toSSE(source: BridgeSource, options: ToSseOptions = {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  let open: OpenSource | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let done = false;
  let sentSinceBeat = false;

  /** `reason` undefined: the source ended by itself, so there is nothing to stop. */
  const finish = (reason: string | undefined): void => {
    if (done) return;
    done = true;
    if (heartbeat !== undefined) clearInterval(heartbeat);
    options.signal?.removeEventListener("abort", onAbort);
    if (reason !== undefined) open?.stop(reason);
  };
  let onAbort = (): void => undefined;

  return new ReadableStream<Uint8Array>({
    start(controller) {
      open = openSource(source, { ...(options.from !== undefined ? { after: options.from } : {}), cancelRun: options.cancelRunOnClose === true });
      if (retryMs > 0) controller.enqueue(encoder.encode(retryFrame(retryMs)));
      if (heartbeatMs > 0) {
        heartbeat = setInterval(() => {
          // Only when idle and read: a reader that stopped reading is not sent more.
          if (!sentSinceBeat && (controller.desiredSize ?? 0) > 0) controller.enqueue(encoder.encode(commentFrame("keep-alive")));
          sentSinceBeat = false;
        }, heartbeatMs);
        heartbeat.unref?.();
      }
      onAbort = () => {
        if (done) return;
        finish("the request was aborted");
        controller.close();
      };
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      if (done) return;
      let frame: string;
      let last = false;
      try {
        // A burst of the source (a session log delivers them) goes out as one chunk.
        const entries = await open!.nextBatch();
        if (entries === undefined) last = true;
        frame = entries === undefined ? "" : entries.length === 1 ? entryFrame(entries[0]!) : entries.map(entryFrame).join("");
      } catch (error) {
        frame = errorFrame(error);
        last = true;
      }
      if (done) return;
      if (frame !== "") controller.enqueue(encoder.encode(frame));
      sentSinceBeat = true;
      if (last) {
        finish(undefined);
        controller.close();
      }
    },
    cancel(reason) {
      finish(typeof reason === "string" ? reason : "the reader cancelled");
    },
  });
}
