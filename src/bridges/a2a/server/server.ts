/**
 * `a2aServer(agent, { url })`: an Agent served as an A2A agent with the A2A project's own SDK —
 * its `DefaultRequestHandler`, in-memory task store and JSON-RPC transport handler — behind one
 * web handler the caller binds (`fetch` for hono, Deno, Bun and any fetch-style router;
 * `handleNode` for `node:http`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { Agent } from "../../../agent/agent.js";
import { ConfigError } from "../../../errors/index.js";
import type { A2ASdkImporter } from "../importer.js";
import { loadA2ASdk } from "../sdk.js";
import { buildAgentCard } from "./card.js";
import type { A2ACardFields } from "./card-fields.js";
import { AgentTaskExecutor } from "./executor.js";
import { handleHttp, type HttpSurface } from "./http.js";

export interface A2AServerOptions {
  /**
   * The URL A2A clients reach this server at, as the agent card announces it (e.g.
   * `https://agents.example.com/a2a`). Its path is where JSON-RPC is answered; the card is at
   * `<path>/.well-known/agent-card.json` and `/.well-known/agent-card.json`.
   */
  url: string;
  /** Agent card fields that replace the generated ones (name, description, provider, skills, security schemes, ...). */
  card?: A2ACardFields;
  /**
   * Whether a task's context id names a thread of the agent (default `true`): the first task of a
   * context starts the thread (or opens the stored one), later tasks continue it.
   */
  threads?: boolean;
  /**
   * Who answers the agent's approvals and questions: `"client"` (default) turns the task
   * `input-required` and waits for the A2A client's answer; `"agent"` leaves them to the agent's
   * own `onApproval` / `onUserInput` (or its policy).
   */
  requests?: "client" | "agent";
  /** Checked for every JSON-RPC request (not the card): `false` answers 401. */
  authorize?: (request: Request) => boolean | Promise<boolean>;
}

/** An Agent served over A2A. */
export interface A2AServer {
  /** The agent card as served (its JSON). */
  readonly card: A2AAgentCardJson;
  /** Answers one HTTP request (the card or JSON-RPC); bind it to any fetch-style router. */
  fetch(request: Request): Promise<Response>;
  /** The same for `node:http`: `http.createServer(server.handleNode)`. */
  readonly handleNode: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Cancels the tasks still running and waits for their runs to end. The agent stays open. */
  close(): Promise<void>;
}

/** An agent card as JSON (A2A 1.0): the fields this server writes, and whatever else it holds. */
export interface A2AAgentCardJson {
  name: string;
  description: string;
  version: string;
  [field: string]: unknown;
}

/** Internal seams for tests (not part of the public entry). */
export interface A2AServerDeps {
  importer?: A2ASdkImporter;
}

function basePathOf(url: string): string {
  try {
    return new URL(url).pathname.replace(/\/+$/, "");
  } catch (cause) {
    throw new ConfigError("a2aServer: url must be an absolute URL (the address clients reach the server at)", "config_invalid", { cause });
  }
}

/**
 * Serves `agent` as an A2A agent: the card comes from `agent.inspect()` (now), and each A2A task is
 * one run. Needs `@a2a-js/sdk` (`npm install @a2a-js/sdk`); rejects with `ExecutableNotFoundError`
 * naming that command when it is missing.
 *
 * @example
 * ```ts
 * const server = await a2aServer(agent, { url: "http://127.0.0.1:8080/a2a" });
 * http.createServer(server.handleNode).listen(8080, "127.0.0.1");
 * // hono: app.all("/a2a/*", (c) => server.fetch(c.req.raw)); app.get("/.well-known/*", (c) => server.fetch(c.req.raw));
 * ```
 */
export function a2aServer(agent: Agent, options: A2AServerOptions): Promise<A2AServer> {
  return createA2AServer(agent, options);
}

/** {@link a2aServer} with test seams. */
export async function createA2AServer(agent: Agent, options: A2AServerOptions, deps: A2AServerDeps = {}): Promise<A2AServer> {
  const basePath = basePathOf(options.url);
  const sdk = await loadA2ASdk(deps.importer);
  const card = buildAgentCard(await agent.inspect(), options.url, options.card);
  const executor = new AgentTaskExecutor(sdk, agent, { threads: options.threads ?? true, requests: options.requests ?? "client" });
  const handler = new sdk.server.DefaultRequestHandler(card, new sdk.server.InMemoryTaskStore(), executor);
  const surface: HttpSurface = { sdk, card, transport: new sdk.server.JsonRpcTransportHandler(handler), basePath, ...(options.authorize !== undefined ? { authorize: options.authorize } : {}) };
  const fetch = (request: Request) => handleHttp(surface, request);
  return {
    card: sdk.core.AgentCard.toJSON(card) as A2AAgentCardJson,
    fetch,
    handleNode: getRequestListener(fetch, { overrideGlobalObjects: false }),
    close: () => executor.close(),
  };
}
