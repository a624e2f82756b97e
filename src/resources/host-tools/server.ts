/**
 * The agent's loopback MCP server for host tools: Streamable HTTP on 127.0.0.1 (an ephemeral
 * port), started on the first `open()`, shared by every provider process of the agent, closed
 * with the agent. Each process gets its own endpoint: its own URL path and random bearer token.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { HostToolsEndpoint } from "../../driver/types.js";
import { Endpoint, reply, type EndpointHost } from "./endpoint.js";
import { BRIDGE_TOKEN_ENV, BRIDGE_URL_ENV, materializeBridge } from "./stdio-bridge.js";

/** Largest JSON-RPC request body accepted (tool arguments included). */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const TOKEN_BYTES = 32;
const PATH_PREFIX = "/mcp/";

export interface LoopbackServerOptions extends EndpointHost {
  /** The MCP server name providers register endpoints under. */
  serverName: string;
  /** Registers each endpoint's token as a secret, so it never reaches events, errors or logs. */
  addSecret(value: string): void;
  /** Unregisters the token of an endpoint revoked long enough ago (see {@link RETIRED_TOKENS_KEPT}). */
  forgetSecret(value: string): void;
}

/**
 * Revoked endpoints whose tokens stay secret: a provider that just exited may still have its last
 * output (which may quote its token) turned into events or errors. Older ones are forgotten, so a
 * long-lived agent's redactor does not grow with every process it ever started.
 */
export const RETIRED_TOKENS_KEPT = 64;

interface Listening {
  http: HttpServer;
  origin: string;
  bridge: { path: string; remove(): Promise<void> };
}

export class LoopbackServer {
  readonly #options: LoopbackServerOptions;
  readonly #endpoints = new Map<string, Endpoint>();
  readonly #views = new WeakMap<HostToolsEndpoint, Endpoint>();
  /** Tokens of revoked endpoints still registered as secrets, oldest first. */
  readonly #retiredTokens: string[] = [];
  #listening: Promise<Listening> | undefined;
  #closed = false;

  constructor(options: LoopbackServerOptions) {
    this.#options = options;
  }

  /** Whether the HTTP server is accepting connections. */
  get listening(): boolean {
    return this.#listening !== undefined && !this.#closed;
  }

  /** A new endpoint for one provider process (unbound); starts the server on first use. */
  async open(): Promise<{ endpoint: Endpoint; view: HostToolsEndpoint }> {
    if (this.#closed) throw new Error("the agent's host-tools server is closed");
    this.#listening ??= this.#listen();
    const listening = await this.#listening;
    if (this.#closed) throw new Error("the agent's host-tools server is closed");
    const token = randomBytes(TOKEN_BYTES).toString("base64url");
    this.#options.addSecret(token);
    const endpoint = new Endpoint(this.#options, token);
    this.#endpoints.set(endpoint.id, endpoint);
    const url = `${listening.origin}${PATH_PREFIX}${endpoint.id}`;
    const name = this.#options.serverName;
    const view: HostToolsEndpoint = Object.freeze({
      http: { name, url, headers: { Authorization: `Bearer ${token}` } },
      stdio: { name, command: process.execPath, args: [listening.bridge.path], env: { [BRIDGE_URL_ENV]: url, [BRIDGE_TOKEN_ENV]: token } },
      close: async () => {
        if (!this.#endpoints.delete(endpoint.id)) return;
        await endpoint.close();
        this.#retire(token);
      },
    });
    this.#views.set(view, endpoint);
    return { endpoint, view };
  }

  #retire(token: string): void {
    this.#retiredTokens.push(token);
    while (this.#retiredTokens.length > RETIRED_TOKENS_KEPT) this.#options.forgetSecret(this.#retiredTokens.shift()!);
  }

  /** The live endpoint behind a view a driver hands back (`bind`), if it is one of ours. */
  endpointOf(view: HostToolsEndpoint): Endpoint | undefined {
    const endpoint = this.#views.get(view);
    return endpoint && !endpoint.closed ? endpoint : undefined;
  }

  /** Revokes every endpoint, stops listening, drops every connection and removes the bridge. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const endpoints = [...this.#endpoints.values()];
    this.#endpoints.clear();
    await Promise.allSettled(endpoints.map((endpoint) => endpoint.close()));
    const listening = await this.#listening?.catch(() => undefined);
    if (!listening) return;
    await new Promise<void>((resolve) => {
      listening.http.close(() => resolve());
      listening.http.closeAllConnections();
    });
    await listening.bridge.remove();
  }

  async #listen(): Promise<Listening> {
    const bridge = await materializeBridge();
    const http = createServer((request, response) => void this.#serve(request, response));
    try {
      await new Promise<void>((resolve, reject) => {
        http.once("error", reject);
        http.listen(0, "127.0.0.1", () => resolve());
      });
    } catch (error) {
      await bridge.remove();
      throw error;
    }
    const { port } = http.address() as AddressInfo;
    return { http, origin: `http://127.0.0.1:${port}`, bridge };
  }

  async #serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const endpoint = this.#authorized(request);
      if (endpoint === undefined) {
        request.resume();
        return reply(response, 401, { error: "unauthorized" }, { "www-authenticate": "Bearer" });
      }
      const body = request.method === "POST" ? await readJson(request) : undefined;
      if (body === TOO_LARGE) return reply(response, 413, { jsonrpc: "2.0", error: { code: -32600, message: "request body too large" }, id: null }, { connection: "close" });
      if (body === NOT_JSON) return reply(response, 400, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
      await endpoint.handle(request, response, body);
    } catch {
      reply(response, 500, { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null });
    }
  }

  /** The endpoint of the request's path, when its bearer token is the endpoint's. */
  #authorized(request: IncomingMessage): Endpoint | undefined {
    const path = (request.url ?? "").split("?")[0] ?? "";
    if (!path.startsWith(PATH_PREFIX)) return undefined;
    const endpoint = this.#endpoints.get(path.slice(PATH_PREFIX.length));
    return endpoint && !endpoint.closed && endpoint.accepts(request.headers.authorization) ? endpoint : undefined;
  }
}

const TOO_LARGE = Symbol("too large");
const NOT_JSON = Symbol("not JSON");

/** The request's JSON body, read up to {@link MAX_REQUEST_BYTES} (the rest is drained, not kept). */
function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
      else if (chunks.length > 0) {
        chunks.length = 0;
        resolve(TOO_LARGE);
      }
    });
    request.once("error", reject);
    request.once("end", () => {
      if (size > MAX_REQUEST_BYTES) return resolve(TOO_LARGE);
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown);
      } catch {
        resolve(NOT_JSON);
      }
    });
  });
}
