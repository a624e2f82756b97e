/**
 * One provider process's endpoint on the loopback server: its bearer token, its MCP sessions and
 * the run it is bound to. Its tool list is the agent's tools plus the bound run's services; a
 * call on an unbound endpoint is a tool error, never a crash.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { RunBinding, ServedTool } from "./served-tool.js";
import { toolError, toolResult } from "./result.js";
import { exchange } from "./web-exchange.js";

/** What every endpoint of one agent shares. */
export interface EndpointHost {
  /** The agent's construction tools. */
  readonly tools: readonly ServedTool[];
  /** Hides registered secrets in an error message the model will read. */
  redact(text: string): string;
}

const SERVER_INFO = { name: "agent-adaptor-host-tools", version: "1" };

interface Session {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
}

export class Endpoint {
  readonly id = randomUUID();
  readonly #tokenDigest: Buffer;
  readonly #host: EndpointHost;
  readonly #sessions = new Map<string, Session>();
  /** Aborted when the endpoint closes: the provider process is gone, so are its calls. */
  readonly #closing = new AbortController();
  #binding: RunBinding | undefined;

  constructor(host: EndpointHost, token: string) {
    this.#host = host;
    this.#tokenDigest = digest(token);
  }

  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  get boundRunId(): string | undefined {
    return this.#binding?.runId;
  }

  /** Constant-time: the token is compared by digest, so neither its bytes nor its length leak. */
  accepts(authorization: string | undefined): boolean {
    const match = /^Bearer (.+)$/i.exec(authorization ?? "");
    return match !== null && timingSafeEqual(digest(match[1]!), this.#tokenDigest);
  }

  bind(binding: RunBinding): void {
    if (this.closed) return;
    const before = this.#binding;
    this.#binding = binding;
    if (listsDiffer(before, binding)) this.#announceListChange();
  }

  /** Ends the run's hold; a later run's binding is left alone. */
  unbind(runId: string): void {
    const before = this.#binding;
    if (before?.runId !== runId) return;
    this.#binding = undefined;
    if (listsDiffer(before, undefined)) this.#announceListChange();
  }

  /** Serves one authorized HTTP request (the body already read and parsed). */
  async handle(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = this.#sessions.get(sessionId);
      if (session) return exchange(session.transport, request, response, body);
      return reply(response, 404, { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
    }
    if (request.method === "POST" && isInitializeRequest(body)) return this.#openSession(request, response, body);
    return reply(response, 400, { jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: no valid session" }, id: null });
  }

  /** Revokes the endpoint: its sessions close and handlers still running are aborted. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.#closing.abort(new Error("the provider's host-tools endpoint closed"));
    this.#binding = undefined;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(sessions.map((session) => session.server.close()));
  }

  async #openSession(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const server = this.#sessionServer();
    // The web-standard transport, driven directly: the Node adapter adds a timer per answer.
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // One JSON answer per request: no SSE stream to hold open for a tool result.
      enableJsonResponse: true,
      onsessioninitialized: (id) => void this.#sessions.set(id, { server, transport }),
      onsessionclosed: (id) => void this.#sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await exchange(transport, request, response, body);
  }

  #sessionServer(): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.#listed().map(({ declaration }) => ({
        name: declaration.name,
        ...(declaration.description !== undefined ? { description: declaration.description } : {}),
        inputSchema: declaration.inputSchema as { type: "object" },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => this.#call(request.params.name, request.params.arguments, extra.signal));
    return server;
  }

  #listed(): readonly ServedTool[] {
    return this.#binding ? [...this.#host.tools, ...this.#binding.services] : this.#host.tools;
  }

  async #call(name: string, args: unknown, requestSignal: AbortSignal): Promise<CallToolResult> {
    const binding = this.#binding;
    if (binding === undefined) return toolError(`host tool "${name}" cannot run: no run is active`);
    const tool = this.#listed().find((candidate) => candidate.declaration.name === name);
    if (tool === undefined) return toolError(`unknown host tool "${name}"`);
    const checked = await tool.validate(args ?? {});
    if (!checked.ok) return toolError(`invalid arguments for host tool "${name}": ${checked.problem}`);
    // The run's end, the provider abandoning the call (notifications/cancelled) or the process retiring.
    const signal = AbortSignal.any([binding.signal, requestSignal, this.#closing.signal]);
    const context = { signal, runId: binding.runId, ...(binding.threadId !== undefined ? { threadId: binding.threadId } : {}) };
    try {
      // A handler that ignores its signal must not hold the provider's call (nor the run's end) open.
      const value = await untilAborted(Promise.resolve().then(() => tool.call(checked.value, context)), signal);
      return toolResult(value);
    } catch (error) {
      if (signal.aborted) return toolError(`host tool "${name}" was stopped: ${this.#host.redact(messageOf(signal.reason))}`);
      return toolError(this.#host.redact(messageOf(error)));
    }
  }

  #announceListChange(): void {
    for (const { server } of this.#sessions.values()) void server.sendToolListChanged().catch(() => undefined);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `work`'s outcome, or a rejection as soon as `signal` aborts (a late outcome of `work` is dropped). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Whether the services listed differ (the agent's own tools never change). */
function listsDiffer(before: RunBinding | undefined, after: RunBinding | undefined): boolean {
  const names = (binding: RunBinding | undefined) => (binding?.services ?? []).map((tool) => tool.declaration.name).join("\n");
  return names(before) !== names(after);
}

export function reply(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent) return void response.end();
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}
