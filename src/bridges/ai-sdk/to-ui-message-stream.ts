/**
 * `toUIMessageStream`: one run as the Vercel AI SDK's UI message stream (protocol v1), so a
 * `useChat` front end renders it unchanged — and the response helpers writing it in the
 * protocol's own framing (`data: <json>` per chunk, `data: [DONE]` last) with its header.
 * Written by hand: the `ai` package is never loaded.
 */
import type { ServerResponse } from "node:http";
import { isTerminalEvent } from "../../events/types.js";
import { isRunEvent, openSource, sourceFailure, type BridgeSource } from "../shared/event-source.js";
import { pipeToNode } from "../shared/node-pipe.js";
import type { AgentUIMessageChunk } from "./chunks.js";
import { UiMessageMapper } from "./mapper.js";

export interface ToUIMessageStreamOptions {
  /** The assistant message's id. Default: the run id. */
  messageId?: string;
  /**
   * When the reader cancels and the source is a run's stream: `true` cancels the run. By default
   * the run goes on and its remaining events are read and dropped, so it never stalls.
   */
  cancelRunOnClose?: boolean;
  /** Resume after this sequence number (see `toSSE`'s `from`); the message then starts where it resumes. */
  from?: number;
}

/** The protocol's response headers (what the `ai` package's `UI_MESSAGE_STREAM_HEADERS` holds). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
});

/**
 * The chunks of one run: the events of `source` up to the first terminal (session notices and
 * other runs' events before it are skipped), then the stream ends.
 */
export function toUIMessageStream(source: BridgeSource, options: ToUIMessageStreamOptions = {}): ReadableStream<AgentUIMessageChunk> {
  const mapper = new UiMessageMapper(options.messageId !== undefined ? { messageId: options.messageId } : {});
  const open = openSource(source, { ...(options.from !== undefined ? { after: options.from } : {}), cancelRun: options.cancelRunOnClose === true });
  let runId: string | undefined;
  let done = false;
  return new ReadableStream<AgentUIMessageChunk>({
    async pull(controller) {
      for (;;) {
        let entry;
        try {
          entry = await open.next();
        } catch (error) {
          done = true;
          for (const chunk of mapper.unfinished()) controller.enqueue(chunk);
          controller.enqueue({ type: "error", errorText: sourceFailure(error).message });
          controller.close();
          return;
        }
        if (done) return;
        if (entry === undefined) {
          done = true;
          for (const chunk of mapper.unfinished()) controller.enqueue(chunk);
          controller.close();
          return;
        }
        const event = entry.event;
        // A session log holds notices and every run: this message is the first run seen.
        if (!isRunEvent(event) || (runId !== undefined && event.runId !== runId)) continue;
        runId = event.runId;
        const chunks = mapper.map(event);
        for (const chunk of chunks) controller.enqueue(chunk);
        if (isTerminalEvent(event)) {
          done = true;
          open.stop("the run ended");
          controller.close();
          return;
        }
        if (chunks.length > 0) return;
      }
    },
    cancel(reason) {
      if (done) return;
      done = true;
      open.stop(typeof reason === "string" ? reason : "the reader cancelled");
    },
  });
}

/** The protocol's framing of a chunk stream: `data: <json>\n\n` per chunk, `data: [DONE]\n\n` last. */
export function uiMessageStreamBytes(chunks: ReadableStream<AgentUIMessageChunk>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return chunks.pipeThrough(
    new TransformStream<AgentUIMessageChunk, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      },
      flush(controller) {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      },
    }),
  );
}

export interface UIMessageStreamResponseOptions extends ToUIMessageStreamOptions {
  status?: number;
  /** Extra response headers (the protocol's headers win for the ones they set). */
  headers?: Record<string, string>;
}

/** A web `Response` streaming one run in the UI message stream protocol: what a `useChat` route handler returns. */
export function uiMessageStreamResponse(source: BridgeSource, options: UIMessageStreamResponseOptions = {}): Response {
  const { status, headers, ...rest } = options;
  return new Response(uiMessageStreamBytes(toUIMessageStream(source, rest)), { status: status ?? 200, headers: { ...headers, ...UI_MESSAGE_STREAM_HEADERS } });
}

/**
 * Write one run to a node:http response in the UI message stream protocol, honouring backpressure;
 * a client that goes away cancels the stream (see `cancelRunOnClose`). Resolves when done.
 */
export async function writeUIMessageStream(response: ServerResponse, source: BridgeSource, options: UIMessageStreamResponseOptions = {}): Promise<void> {
  const { status, headers, ...rest } = options;
  await pipeToNode(response, uiMessageStreamBytes(toUIMessageStream(source, rest)), status ?? 200, { ...headers, ...UI_MESSAGE_STREAM_HEADERS });
}
