/**
 * The optional protocol routes: `POST /api/agents/:name/ag-ui` (an AG-UI `RunAgentInput` in, the
 * run's AG-UI events out as SSE) and the A2A server of an agent at `/api/a2a/:name` (JSON-RPC) with
 * its card at `/api/a2a/:name/.well-known/agent-card.json`. Same bearer token as every /api route.
 * An AG-UI `threadId` or A2A `contextId` naming the thread of a session that is not archived is
 * refused (409 `thread_busy`), and so is an A2A message naming only a task of such a context: the
 * session alone runs turns there, past its gate, queue and budget.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import { ThreadBusyError } from "../../errors/index.js";
import type { A2AServer } from "../../bridges/a2a/server/server.js";
import type { BridgeMounts } from "../bridge-mounts.js";
import { ApiError, notFound } from "../http-error.js";
import type { SessionHub } from "../sessions.js";
import { nameParams } from "../schemas.js";
import type { RouteContext } from "./context.js";
import { apiRoute } from "./define.js";

const object = z.record(z.string(), z.unknown());
const jsonBody = (description: string) => ({ body: { content: { "application/json": { schema: object } }, required: true, description } });
const sse = (description: string) => ({ content: { "text/event-stream": { schema: z.string() } }, description });

const agUi = apiRoute({
  method: "post",
  path: "/api/agents/{name}/ag-ui",
  tags: ["bridges"],
  request: { params: nameParams, ...jsonBody("An AG-UI RunAgentInput (validated by @ag-ui/core's schema)") },
  responses: { 200: sse("The run's AG-UI events") },
});
const a2aRpc = apiRoute({
  method: "post",
  path: "/api/a2a/{name}",
  tags: ["bridges"],
  request: { params: nameParams, ...jsonBody("An A2A JSON-RPC request") },
  responses: { 200: { content: { "application/json": { schema: object }, "text/event-stream": { schema: z.string() } }, description: "The JSON-RPC answer, or its stream" } },
});
const a2aCard = apiRoute({
  method: "get",
  path: "/api/a2a/{name}/.well-known/agent-card.json",
  tags: ["bridges"],
  request: { params: nameParams },
  responses: { 200: { content: { "application/json": { schema: object } }, description: "The agent's A2A card" } },
});

/** The request again, with the body the route's validator already read. */
function replay(request: Request, body: unknown): Request {
  return new Request(request.url, { method: request.method, headers: request.headers, body: JSON.stringify(body), signal: request.signal });
}

type Text = (text: string) => Response;

/**
 * Whether a session that is not archived drives thread `threadId`: one the hub finds, or the
 * session of the same id (a session's thread has its id unless created on another).
 */
async function sessionDrives(hub: SessionHub, threadId: string): Promise<boolean> {
  if (await hub.drivesThread(threadId)) return true;
  try {
    const record = await hub.record(threadId);
    return record.threadId === threadId && record.state !== "archived";
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") return false;
    throw error;
  }
}

const SESSION_THREAD = "a session drives this thread";

const field = (value: unknown, key: string): unknown => (typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined);

async function refuseSessionThread(hub: SessionHub, threadId: unknown): Promise<void> {
  if (typeof threadId === "string" && threadId !== "" && (await sessionDrives(hub, threadId))) throw new ThreadBusyError(SESSION_THREAD);
}

const nonEmpty = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * The thread an A2A message runs on: its `contextId`, or, for a message naming only its task, the
 * context of that task, which the A2A server answers `GetTask` with (an unknown task: none, and
 * the server refuses the message itself).
 */
async function a2aThread(server: A2AServer, request: Request, params: unknown): Promise<string | undefined> {
  const message = field(params, "message");
  const contextId = nonEmpty(field(message, "contextId"));
  const taskId = nonEmpty(field(message, "taskId"));
  if (contextId !== undefined || taskId === undefined) return contextId;
  const tenant = nonEmpty(field(params, "tenant"));
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  const body = { jsonrpc: "2.0", id: "context-of-task", method: "GetTask", params: { id: taskId, historyLength: 0, ...(tenant !== undefined ? { tenant } : {}) } };
  const answer: unknown = await (await server.fetch(new Request(request.url, { method: "POST", headers, body: JSON.stringify(body) }))).json();
  return nonEmpty(field(field(answer, "result"), "contextId"));
}

export function bridgeRoutes(app: OpenAPIHono, ctx: RouteContext, mounts: BridgeMounts, enabled: { agUi: boolean; a2a: boolean }): void {
  const agent = (name: string) => {
    const served = ctx.agents.get(name);
    if (!served) throw notFound("agent");
    return served;
  };
  const a2aUrl = (request: Request, name: string) => `${new URL(request.url).origin}/api/a2a/${encodeURIComponent(name)}`;
  // The bridges answer with their own responses (SSE or JSON-RPC); the routes type them as text.
  if (enabled.agUi) {
    app.openapi(agUi, async (c) => {
      const served = agent(c.req.valid("param").name);
      await refuseSessionThread(ctx.hub, field(c.req.valid("json"), "threadId"));
      const handle = await mounts.agUi(served);
      return (await handle(replay(c.req.raw, c.req.valid("json")))) as unknown as ReturnType<Text>;
    });
  }
  if (enabled.a2a) {
    app.openapi(a2aRpc, async (c) => {
      const { name } = c.req.valid("param");
      const served = agent(name);
      const server = await mounts.a2a(served, a2aUrl(c.req.raw, name));
      // A message (SendMessage, SendStreamingMessage) names its conversation in params.message:
      // its contextId, or the task it continues, whose context may have become a session's thread since.
      await refuseSessionThread(ctx.hub, await a2aThread(server, c.req.raw, field(c.req.valid("json"), "params")));
      return (await server.fetch(replay(c.req.raw, c.req.valid("json")))) as unknown as ReturnType<typeof c.json>;
    });
    app.openapi(a2aCard, async (c) => {
      const { name } = c.req.valid("param");
      const server = await mounts.a2a(agent(name), a2aUrl(c.req.raw, name));
      return c.json(server.card as Record<string, unknown>, 200);
    });
  }
}
