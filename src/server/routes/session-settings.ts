/**
 * `/api/sessions/:id/budget`, `/reset-run-ceiling` and `/configure`: what an operator changes on a
 * running session — a tripped budget raised, a run ceiling cleared, the model or effort of later runs.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Session } from "../../session/types.js";
import { budgetBody, configureBody, idParams, sessionViewSchema } from "../schemas.js";
import type { SessionView } from "../public-types.js";
import type { RouteContext } from "./context.js";
import { apiRoute, json, jsonBody as body } from "./define.js";

const tags = ["sessions"];

const budget = apiRoute({
  method: "post",
  path: "/api/sessions/{id}/budget",
  tags,
  description: "Raise the session's cost and/or token ceiling (`addBudget`); a tripped session ceiling clears once it is above spend again. A ceiling the session was created without cannot be raised (400 `config_invalid`).",
  request: { params: idParams, ...body(budgetBody) },
  responses: { 200: json(sessionViewSchema, "The session, its guardrails raised") },
});
const resetRunCeiling = apiRoute({
  method: "post",
  path: "/api/sessions/{id}/reset-run-ceiling",
  tags,
  description: "Clear a tripped run ceiling (`runUsd`, `runTokens`) so the next run may start (`resetRunCeiling`); a tripped session ceiling stays.",
  request: { params: idParams },
  responses: { 200: json(sessionViewSchema, "The session") },
});
const configure = apiRoute({
  method: "post",
  path: "/api/sessions/{id}/configure",
  tags,
  description: "Set the model and/or effort of later runs (`configure`); null goes back to the agent's default; the run in flight keeps its own.",
  request: { params: idParams, ...body(configureBody) },
  responses: { 200: json(sessionViewSchema, "The session, with its settings now in force") },
});

export function sessionSettingsRoutes(app: OpenAPIHono, { hub }: RouteContext): void {
  /** Each route changes the session (opened if this server does not drive it yet) and answers with its view. */
  const change = async (id: string, apply: (session: Session) => Promise<unknown>): Promise<SessionView> => {
    await apply((await hub.live(id)).session);
    return hub.view(id);
  };
  app.openapi(budget, async (c) => {
    const { usd, tokens } = c.req.valid("json");
    const view = await change(c.req.valid("param").id, (session) => session.addBudget({ ...(usd !== undefined ? { usd } : {}), ...(tokens !== undefined ? { tokens } : {}) }));
    return c.json(view, 200);
  });
  app.openapi(resetRunCeiling, async (c) => c.json(await change(c.req.valid("param").id, (session) => session.resetRunCeiling()), 200));
  app.openapi(configure, async (c) => {
    const { model, effort } = c.req.valid("json");
    const view = await change(c.req.valid("param").id, (session) => session.configure({ ...(model !== undefined ? { model } : {}), ...(effort !== undefined ? { effort } : {}) }));
    return c.json(view, 200);
  });
}
