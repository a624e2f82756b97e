/** `/api/health`, `/api/agents` and `/api/threads/*`: what the server runs and what its thread store holds. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { ThreadBusyError } from "../../errors/index.js";
import type { ThreadRecord } from "../../thread/store.js";
import { notFound } from "../http-error.js";
import {
  agentListSchema,
  healthSchema,
  historyPageSchema,
  historyQuery,
  idParams,
  inspectionSchema,
  nameParams,
  threadListQuery,
  threadListSchema,
  threadViewSchema,
  type ThreadView,
} from "../schemas.js";
import type { RouteContext } from "./context.js";
import { apiRoute, json } from "./define.js";

const health = apiRoute({ method: "get", path: "/api/health", tags: ["server"], responses: { 200: json(healthSchema, "The server is up") } });
const agents = apiRoute({ method: "get", path: "/api/agents", tags: ["agents"], responses: { 200: json(agentListSchema, "The configured agents") } });
const agentInspection = apiRoute({
  method: "get",
  path: "/api/agents/{name}/inspection",
  tags: ["agents"],
  request: { params: nameParams },
  responses: { 200: json(inspectionSchema, "The agent's live inspection") },
});
const threads = apiRoute({ method: "get", path: "/api/threads", tags: ["threads"], request: { query: threadListQuery }, responses: { 200: json(threadListSchema, "Threads, newest first") } });
const thread = apiRoute({ method: "get", path: "/api/threads/{id}", tags: ["threads"], request: { params: idParams }, responses: { 200: json(threadViewSchema, "The thread") } });
const history = apiRoute({
  method: "get",
  path: "/api/threads/{id}/history",
  tags: ["threads"],
  request: { params: idParams, query: historyQuery },
  responses: { 200: json(historyPageSchema, "A page of the thread's history, newest turn first") },
});
const remove = apiRoute({
  method: "delete",
  path: "/api/threads/{id}",
  tags: ["threads"],
  request: { params: idParams },
  responses: { 204: { description: "Deleted" } },
});

function threadView(record: ThreadRecord): ThreadView {
  return {
    id: record.id,
    driver: record.driver,
    workspace: record.workspace,
    ...(record.providerSessionId !== undefined ? { providerSessionId: record.providerSessionId } : {}),
    ...(record.parentId !== undefined ? { parentId: record.parentId } : {}),
    metadata: record.metadata,
    leased: record.lease !== undefined && record.lease.expiresAt > Date.now(),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function catalogRoutes(app: OpenAPIHono, ctx: RouteContext): void {
  const agentNamed = (name: string) => {
    const served = ctx.agents.get(name);
    if (!served) throw notFound("agent");
    return served;
  };
  app.openapi(health, (c) => c.json({ ok: true as const, version: ctx.version, uptimeMs: Date.now() - ctx.startedAt, sessions: ctx.hub.liveCount }, 200));
  app.openapi(agents, (c) =>
    c.json(
      {
        agents: [...ctx.agents.values()].map((served) => ({
          name: served.name,
          driver: { id: served.agent.driver.id, name: served.agent.driver.name },
          workspace: served.workspace,
        })),
      },
      200,
    ),
  );
  app.openapi(agentInspection, async (c) => c.json(await agentNamed(c.req.valid("param").name).agent.inspect({ signal: c.req.raw.signal }), 200));
  app.openapi(threads, async (c) => {
    const { agent, limit } = c.req.valid("query");
    const served = agent === undefined ? undefined : agentNamed(agent);
    // An agent's threads: its driver's, in its workspace (the store filters by driver only).
    const records = await ctx.threads.list({ ...(served ? { driver: served.agent.driver.id } : {}), ...(limit ? { limit } : {}) });
    const mine = served ? records.filter((r) => r.workspace === served.workspace) : records;
    return c.json({ threads: mine.map(threadView) }, 200);
  });
  app.openapi(thread, async (c) => {
    const record = await ctx.threads.get(c.req.valid("param").id);
    if (!record) throw notFound("thread");
    return c.json(threadView(record), 200);
  });
  app.openapi(history, async (c) => {
    const { id } = c.req.valid("param");
    if (!(await ctx.threads.get(id))) throw notFound("thread");
    const { limit, before } = c.req.valid("query");
    const page = await ctx.threads.history(id, { ...(limit ? { limit } : {}), ...(before ? { before } : {}) });
    return c.json(page, 200);
  });
  app.openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    if (!(await ctx.threads.get(id))) throw notFound("thread");
    if (await ctx.hub.drivesThread(id)) throw new ThreadBusyError("a session drives this thread; archive the session first");
    const deleted = await ctx.threads.delete(id);
    if (!deleted) throw notFound("thread");
    return c.body(null, 204);
  });
}
