/**
 * One provider process's endpoint on the loopback server: its bearer token, its MCP sessions and
 * the run it is bound to. Its tool list is the agent's tools plus the bound run's services; a
 * call on an unbound endpoint is a tool error, never a crash. Binding a run that changes the list
 * announces it (`notifications/tools/list_changed`) and waits, bounded, until the provider has
 * listed the tools again: otherwise the run's prompt can reach the model before the provider
 * offers the run's services. A session that once let the bound pass without listing again is not
 * waited for after that: its client does not re-list on announcements.
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
  /** How long a binding waits for the provider to list the tools again; {@link RELIST_WAIT_MS} when absent. */
  readonly relistWaitMs?: number;
}

/**
 * The longest a run's binding waits for the provider to re-list: a provider that never does (or
 * a lost announcement) delays the run by this much, never more.
 */
export const RELIST_WAIT_MS = 2_000;

const SERVER_INFO = { name: "agent-adaptor-host-tools", version: "1" };

interface Session {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  /** The list version its last tools/list was answered with; undefined before its first. */
  listed: number | undefined;
  /** Open standalone SSE streams (GET): announcements reach the session only through one. */
  streams: number;
  /**
   * The session once heard an announcement and did not list again within the bound: its client
   * does not re-list on announcements, so later bindings do not wait for it (a wait would only
   * delay every run on a kept process by the bound).
   */
  ignoresAnnouncements: boolean;
}

export class Endpoint {
  readonly id = randomUUID();
  readonly #tokenDigest: Buffer;
  readonly #host: EndpointHost;
  readonly #sessions = new Map<string, Session>();
  /** Aborted when the endpoint closes: the provider process is gone, so are its calls. */
  readonly #closing = new AbortController();
  #binding: RunBinding | undefined;
  /** Counts changes of the tool list: a session that listed an older one has a stale list. */
  #version = 0;
  /** Bindings waiting for re-lists: each checks again when a session lists, opens a stream or ends. */
  readonly #waiting = new Set<() => void>();

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

  /**
   * Serves `binding`'s run from now on. When that changes the tool list, resolves once every
   * session that can hear the announcement has listed the tools again — or when the run ends, the
   * endpoint closes or {@link RELIST_WAIT_MS} passes. A session without a stale list (none yet, or
   * not listed yet) has nothing to wait for, nor has one that let an earlier announcement go
   * unanswered until the bound passed. Never rejects.
   */
  bind(binding: RunBinding): Promise<void> {
    if (this.closed) return Promise.resolve();
    const before = this.#binding;
    this.#binding = binding;
    if (!listsDiffer(before, binding)) return Promise.resolve();
    this.#announceListChange();
    return this.#relisted(this.#version, binding.signal);
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
      if (session) return request.method === "GET" ? this.#stream(session, request, response) : exchange(session.transport, request, response, body);
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

  /** A session's standalone SSE stream, open until the client leaves or the session closes. */
  async #stream(session: Session, request: IncomingMessage, response: ServerResponse): Promise<void> {
    let opened = false;
    try {
      await exchange(session.transport, request, response, undefined, () => {
        opened = true;
        session.streams++;
        // An announcement sent while the session had no stream was lost: the stale list is announced again.
        if (session.listed !== undefined && session.listed < this.#version) void session.server.sendToolListChanged().catch(() => undefined);
        this.#recheck();
      });
    } finally {
      if (opened) {
        session.streams--;
        this.#recheck();
      }
    }
  }

  async #openSession(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    // The server's handlers read the session's state, which needs the transport made below.
    let session!: Session;
    const server = this.#sessionServer(() => session);
    // The web-standard transport, driven directly: the Node adapter adds a timer per answer.
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // One JSON answer per request: no SSE stream to hold open for a tool result.
      enableJsonResponse: true,
      onsessioninitialized: (id) => void this.#sessions.set(id, session),
      onsessionclosed: (id) => this.#forget(id),
    });
    session = { server, transport, listed: undefined, streams: 0, ignoresAnnouncements: false };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#forget(transport.sessionId);
    };
    await server.connect(transport);
    await exchange(transport, request, response, body);
  }

  #forget(sessionId: string): void {
    if (this.#sessions.delete(sessionId)) this.#recheck();
  }

  /** `session`: the state of the session this server serves (set before its first request). */
  #sessionServer(session: () => Session): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, () => {
      session().listed = this.#version;
      this.#recheck();
      return {
        tools: this.#listed().map(({ declaration }) => ({
          name: declaration.name,
          ...(declaration.description !== undefined ? { description: declaration.description } : {}),
          inputSchema: declaration.inputSchema as { type: "object" },
        })),
      };
    });
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
    this.#version++;
    for (const { server } of this.#sessions.values()) void server.sendToolListChanged().catch(() => undefined);
  }

  /** Whether no session that can hear announcements, and answers them, still has a list older than `version`. */
  #relistedSince(version: number): boolean {
    for (const session of this.#sessions.values()) {
      if (!session.ignoresAnnouncements && isStale(session, version)) return false;
    }
    return true;
  }

  /** The bound passed: every session still stale has shown that it does not re-list. */
  #markSilent(version: number): void {
    for (const session of this.#sessions.values()) if (isStale(session, version)) session.ignoresAnnouncements = true;
  }

  #recheck(): void {
    for (const check of [...this.#waiting]) check();
  }

  /** Resolves once {@link #relistedSince} `version` holds, `signal` aborts, the endpoint closes or the bound passes. */
  #relisted(version: number, signal: AbortSignal): Promise<void> {
    if (this.#relistedSince(version)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiting.delete(check);
        signal.removeEventListener("abort", done);
        this.#closing.signal.removeEventListener("abort", done);
        resolve();
      };
      const check = () => {
        if (this.#relistedSince(version)) done();
      };
      const expired = () => {
        this.#markSilent(version);
        done();
      };
      // Unref'd: a wait must not keep the host process alive.
      const timer = setTimeout(expired, this.#host.relistWaitMs ?? RELIST_WAIT_MS);
      timer.unref();
      this.#waiting.add(check);
      signal.addEventListener("abort", done, { once: true });
      this.#closing.signal.addEventListener("abort", done, { once: true });
      if (signal.aborted || this.closed) done();
    });
  }
}

/** Whether `session` can hear announcements and has listed a list older than `version`. */
function isStale(session: Session, version: number): boolean {
  return session.streams > 0 && session.listed !== undefined && session.listed < version;
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
