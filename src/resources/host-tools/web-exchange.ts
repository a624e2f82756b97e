/**
 * One HTTP exchange handed to the SDK's web-standard Streamable HTTP transport: the Node request
 * as a `Request` (its body already read and parsed), the transport's `Response` written back —
 * a JSON answer in one write, an SSE stream as it comes (cancelled when the client goes away).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

/** `onStream`: called once an SSE answer is registered with the transport (what it sends from then on reaches the client). */
export async function exchange(
  transport: WebStandardStreamableHTTPServerTransport,
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
  onStream?: () => void,
): Promise<void> {
  const gone = new AbortController();
  response.once("close", () => gone.abort());
  const answer = await transport.handleRequest(webRequest(request, gone.signal), body === undefined ? undefined : { parsedBody: body });
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  if (answer.body === null) return void response.writeHead(answer.status, headers).end();
  if (!(headers["content-type"] ?? "").startsWith("text/event-stream")) {
    const bytes = Buffer.from(await answer.arrayBuffer());
    return void response.writeHead(answer.status, { ...headers, "content-length": String(bytes.length) }).end(bytes);
  }
  response.writeHead(answer.status, headers).flushHeaders();
  onStream?.();
  const reader = answer.body.getReader();
  gone.signal.addEventListener("abort", () => void reader.cancel().catch(() => undefined), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      response.write(value);
    }
  } catch {
    // The stream was cancelled (the client left) or the transport closed it.
  }
  response.end();
}

function webRequest(request: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(`http://${request.headers.host ?? "127.0.0.1"}${request.url ?? "/"}`, { method: request.method ?? "GET", headers, signal });
}
