/** A web byte stream written to a node:http response, honouring backpressure and client close. */
import type { ServerResponse } from "node:http";

/**
 * Write `body` to `response` with `status` and `headers`, then end it. A client that goes away
 * cancels `body` (its source decides what that stops). Resolves when done; never rejects for a
 * closed connection.
 */
export async function pipeToNode(response: ServerResponse, body: ReadableStream<Uint8Array>, status: number, headers: Record<string, string>): Promise<void> {
  const reader = body.getReader();
  let closed = false;
  const onClose = (): void => {
    closed = true;
    void reader.cancel("the client closed the connection").catch(() => undefined);
  };
  response.once("close", onClose);
  try {
    if (!response.headersSent) response.writeHead(status, headers);
    response.flushHeaders();
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      if (!response.write(value)) await writable(response);
    }
    if (!closed) response.end();
  } finally {
    response.off("close", onClose);
  }
}

/** Resolves on `drain`, or on `close` (a gone client never drains). */
function writable(response: ServerResponse): Promise<void> {
  if (response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.once("drain", done);
    response.once("close", done);
  });
}
