/** `/api/sessions/*`: list, create, read, drive and archive sessions, answer their requests, stream their events. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import { sseResponse } from "../../bridges/sse/response.js";
import { parseLastEventId } from "../../bridges/sse/frames.js";
import { ApiError } from "../http-error.js";
import {
  approvalBody,
  createSessionBody,
  eventsQuery,
  idParams,
  inspectionSchema,
  okSchema,
  pendingSchema,
  queueSchema,
  questionBody,
  reasonBody,
  requestParams,
  resumeBody,
  sessionListQuery,
  sessionListSchema,
  sessionViewSchema,
  steerResponse,
  submitBody,
  submitResponse,
  textBody,
  wasRunningSchema,
} from "../schemas.js";
import type { RouteContext } from "./context.js";
import { apiRoute, json, jsonBody as body } from "./define.js";
import { sessionSettingsRoutes } from "./session-settings.js";

const tags = ["sessions"];

const list = apiRoute({ method: "get", path: "/api/sessions", tags, request: { query: sessionListQuery }, responses: { 200: json(sessionListSchema, "Sessions, newest first") } });
const create = apiRoute({ method: "post", path: "/api/sessions", tags, request: body(createSessionBody), responses: { 201: json(sessionViewSchema, "The new session") } });
const show = apiRoute({ method: "get", path: "/api/sessions/{id}", tags, request: { params: idParams }, responses: { 200: json(sessionViewSchema, "The session") } });
const archive = apiRoute({ method: "post", path: "/api/sessions/{id}/archive", tags, request: { params: idParams }, responses: { 200: json(sessionViewSchema, "The archived session") } });
const submit = apiRoute({ method: "post", path: "/api/sessions/{id}/submit", tags, request: { params: idParams, ...body(submitBody) }, responses: { 202: json(submitResponse, "Queued durably") } });
const steer = apiRoute({ method: "post", path: "/api/sessions/{id}/steer", tags, request: { params: idParams, ...body(textBody) }, responses: { 200: json(steerResponse, "How the text was delivered") } });
const followUp = apiRoute({ method: "post", path: "/api/sessions/{id}/follow-up", tags, request: { params: idParams, ...body(textBody) }, responses: { 200: json(okSchema, "Queued") } });
const interrupt = apiRoute({ method: "post", path: "/api/sessions/{id}/interrupt", tags, request: { params: idParams }, responses: { 200: json(wasRunningSchema, "Whether a run was cancelled") } });
const hold = apiRoute({ method: "post", path: "/api/sessions/{id}/hold", tags, request: { params: idParams, ...body(reasonBody) }, responses: { 200: json(wasRunningSchema, "Gate closed; whether a run was cancelled") } });
const pause = apiRoute({ method: "post", path: "/api/sessions/{id}/pause", tags, request: { params: idParams, ...body(reasonBody) }, responses: { 200: json(okSchema, "Gate closed after the run in flight") } });
const resume = apiRoute({ method: "post", path: "/api/sessions/{id}/resume", tags, request: { params: idParams, ...body(resumeBody) }, responses: { 200: json(okSchema, "Gate open") } });
const pending = apiRoute({ method: "get", path: "/api/sessions/{id}/pending", tags, request: { params: idParams }, responses: { 200: json(pendingSchema, "Requests of the run in flight waiting for an answer") } });
const queue = apiRoute({
  method: "get",
  path: "/api/sessions/{id}/queue",
  tags,
  description: "The messages waiting in the session's inbox, oldest first, each with who queued it and its text (cut at 2000 characters).",
  request: { params: idParams },
  responses: { 200: json(queueSchema, "The queued messages") },
});
const approve = apiRoute({ method: "post", path: "/api/sessions/{id}/approvals/{requestId}", tags, request: { params: requestParams, ...body(approvalBody) }, responses: { 200: json(okSchema, "Answered") } });
const answer = apiRoute({ method: "post", path: "/api/sessions/{id}/questions/{requestId}", tags, request: { params: requestParams, ...body(questionBody) }, responses: { 200: json(okSchema, "Answered or declined") } });
const inspection = apiRoute({ method: "get", path: "/api/sessions/{id}/inspection", tags, request: { params: idParams }, responses: { 200: json(inspectionSchema, "The session agent's live inspection") } });
const events = apiRoute({
  method: "get",
  path: "/api/sessions/{id}/events",
  tags,
  description: "The session's event log as server-sent events: replay after `Last-Event-ID` (or `?after=`), then live. Frames: `id: <seq>`, `event: <type>`, `data: <wire JSON>`.",
  request: { params: idParams, query: eventsQuery, headers: z.object({ "last-event-id": z.string().optional() }) },
  responses: { 200: { content: { "text/event-stream": { schema: z.string() } }, description: "text/event-stream" } },
});

export function sessionRoutes(app: OpenAPIHono, ctx: RouteContext): void {
  lifecycleRoutes(app, ctx);
  controlRoutes(app, ctx);
  requestRoutes(app, ctx);
  sessionSettingsRoutes(app, ctx);
}

/** List, create, show, archive, inspect, and the event stream. */
function lifecycleRoutes(app: OpenAPIHono, ctx: RouteContext): void {
  const { hub } = ctx;
  app.openapi(list, async (c) => c.json({ sessions: await hub.list(c.req.valid("query")) }, 200));
  app.openapi(create, async (c) => {
    const live = await hub.create(c.req.valid("json"));
    return c.json(await hub.view(live.session.id), 201);
  });
  app.openapi(show, async (c) => c.json(await hub.view(c.req.valid("param").id), 200));
  app.openapi(archive, async (c) => {
    const { id } = c.req.valid("param");
    await hub.archive(id);
    return c.json(await hub.view(id), 200);
  });
  app.openapi(inspection, async (c) => {
    const agent = hub.agentNamed(await hub.agentOf(c.req.valid("param").id));
    return c.json(await agent.agent.inspect({ signal: c.req.raw.signal }), 200);
  });
  app.openapi(events, async (c) => {
    const { id } = c.req.valid("param");
    const header = c.req.header("last-event-id");
    const fromHeader = parseLastEventId(header);
    if (header !== undefined && fromHeader === undefined) throw new ApiError("query_invalid", "Last-Event-ID must be a session sequence number");
    const from = fromHeader ?? c.req.valid("query").after;
    const log = await hub.eventLog(id);
    const signal = AbortSignal.any([c.req.raw.signal, ctx.closing]);
    // The stream's body is typed by the route as text; the SSE bridge writes it.
    return sseResponse(log, { ...(from !== undefined ? { from } : {}), signal }) as unknown as ReturnType<typeof c.text>;
  });
}

/** Input and the gate: submit, steer, follow-up, interrupt, hold, pause, resume. */
function controlRoutes(app: OpenAPIHono, { hub }: RouteContext): void {
  app.openapi(submit, async (c) => {
    const { text, wake, from } = c.req.valid("json");
    const { session } = await hub.live(c.req.valid("param").id);
    const { promptId } = await session.submit(text, { ...(wake !== undefined ? { wake } : {}), ...(from !== undefined ? { from } : {}) });
    return c.json({ promptId }, 202);
  });
  app.openapi(steer, async (c) => {
    const { session } = await hub.live(c.req.valid("param").id);
    return c.json({ delivery: await session.steer(c.req.valid("json").text) }, 200);
  });
  app.openapi(followUp, async (c) => {
    const { session } = await hub.live(c.req.valid("param").id);
    await session.followUp(c.req.valid("json").text);
    return c.json({ ok: true as const }, 200);
  });
  app.openapi(interrupt, async (c) => {
    const { session } = await hub.live(c.req.valid("param").id);
    return c.json({ wasRunning: await session.interrupt() }, 200);
  });
  app.openapi(hold, async (c) => {
    const { session } = await hub.live(c.req.valid("param").id);
    return c.json({ wasRunning: await session.interruptAndHold(c.req.valid("json").reason) }, 200);
  });
  app.openapi(pause, async (c) => {
    const { session } = await hub.live(c.req.valid("param").id);
    await session.pause(c.req.valid("json").reason);
    return c.json({ ok: true as const }, 200);
  });
  app.openapi(resume, async (c) => {
    const { mode, message } = c.req.valid("json");
    const { session } = await hub.live(c.req.valid("param").id);
    await session.resume({ mode, ...(message !== undefined ? { message } : {}) });
    return c.json({ ok: true as const }, 200);
  });
}

/** The requests of the run in flight: what waits, and the answers; and the inbox. */
function requestRoutes(app: OpenAPIHono, { hub }: RouteContext): void {
  app.openapi(queue, async (c) => c.json({ prompts: await hub.queue(c.req.valid("param").id) }, 200));
  app.openapi(pending, async (c) => {
    const live = await hub.driven(c.req.valid("param").id);
    // An archived session has no run in flight, so nothing waits.
    return c.json(live ? live.pending.snapshot(live.session.status().inFlight?.runId) : { approvals: [], questions: [] }, 200);
  });
  app.openapi(approve, async (c) => {
    const { id, requestId } = c.req.valid("param");
    const { session } = await hub.live(id);
    session.respond(requestId, c.req.valid("json"));
    return c.json({ ok: true as const }, 200);
  });
  app.openapi(answer, async (c) => {
    const { id, requestId } = c.req.valid("param");
    const reply = c.req.valid("json");
    const { session } = await hub.live(id);
    if ("decline" in reply) session.decline(requestId);
    else session.answer(requestId, reply.answers);
    return c.json({ ok: true as const }, 200);
  });
}
