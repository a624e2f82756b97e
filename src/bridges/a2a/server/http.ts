/**
 * The A2A server's HTTP surface as one web handler (`Request` → `Response`): the agent card at
 * `/.well-known/agent-card.json` (under the server's path and at the root), and JSON-RPC — the
 * SDK's own transport handler — by POST at the server's path, streaming methods as
 * `text/event-stream`. Node's `http` and hono bind the same handler.
 */
import type { AgentCard } from "@a2a-js/sdk";
import type { JsonRpcTransportHandler } from "@a2a-js/sdk/server";
import type { A2ASdk } from "../sdk.js";

/** The largest JSON-RPC request body accepted (answered 413 above it). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
const CARD_PATH = "/.well-known/agent-card.json";

export interface HttpSurface {
  sdk: A2ASdk;
  card: AgentCard;
  transport: JsonRpcTransportHandler;
  /** The path JSON-RPC is served at, without a trailing slash ("" for the root). */
  basePath: string;
  authorize?: (request: Request) => boolean | Promise<boolean>;
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function rpcError(sdk: A2ASdk, id: unknown, error: unknown): unknown {
  return { jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error: sdk.server.JsonRpcTransportHandler.mapToJSONRPCError(error) };
}

/** Reads the body, refusing one larger than {@link MAX_BODY_BYTES}. */
async function readBody(request: Request): Promise<string | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return undefined;
  const bytes = new Uint8Array(await request.arrayBuffer());
  return bytes.byteLength > MAX_BODY_BYTES ? undefined : new TextDecoder().decode(bytes);
}

function requestId(body: string): unknown {
  try {
    return (JSON.parse(body) as { id?: unknown }).id;
  } catch {
    return undefined;
  }
}

/** An SSE response over the transport's stream; a client going away stops the iteration. */
function sseResponse(sdk: A2ASdk, id: unknown, stream: AsyncGenerator<unknown, void, undefined>): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await stream.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(sdk.core.formatSSEEvent(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(sdk.core.formatSSEErrorEvent(rpcError(sdk, id, error))));
        controller.close();
      }
    },
    async cancel() {
      await stream.return(undefined);
    },
  });
  return new Response(body, { status: 200, headers: { ...sdk.core.SSE_HEADERS } });
}

async function handleRpc(surface: HttpSurface, request: Request): Promise<Response> {
  const { sdk } = surface;
  if (surface.authorize !== undefined && !(await surface.authorize(request))) return json({ error: "unauthorized" }, 401);
  const body = await readBody(request);
  if (body === undefined) return json({ error: "request body too large" }, 413);
  const id = requestId(body);
  const headers = Object.fromEntries(request.headers);
  const context = sdk.server.defaultServerCallContextBuilder({
    extensions: sdk.core.Extensions.parseServiceParameter(request.headers.get(sdk.core.HTTP_EXTENSION_HEADER) ?? undefined),
    user: new sdk.server.UnauthenticatedUser(),
    headers,
    requestedVersion: request.headers.get(sdk.core.A2A_VERSION_HEADER) ?? undefined,
  });
  try {
    sdk.server.validateVersion(context.requestedVersion, surface.card, "JSONRPC");
    const result = await surface.transport.handle(body, context);
    if (Symbol.asyncIterator in result) {
      // A stream whose first step fails answers as one JSON-RPC error, as the SDK's own server does.
      const first = await result.next();
      const rest = (async function* () {
        if (!first.done) yield first.value;
        yield* result;
      })();
      return sseResponse(sdk, id, rest);
    }
    return json(result);
  } catch (error) {
    return json(rpcError(sdk, id, error));
  }
}

/** Answers one HTTP request. */
export async function handleHttp(surface: HttpSurface, request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/\/+$/, "");
  if (path === `${surface.basePath}${CARD_PATH}` || path === CARD_PATH) {
    if (request.method !== "GET" && request.method !== "HEAD") return json({ error: "method not allowed" }, 405);
    return new Response(JSON.stringify(surface.sdk.core.AgentCard.toJSON(surface.card)), { headers: { "content-type": "application/json", "cache-control": "no-cache" } });
  }
  if (path === surface.basePath) {
    if (request.method !== "POST") return json({ error: "method not allowed" }, 405);
    return handleRpc(surface, request);
  }
  return json({ error: "not found" }, 404);
}
