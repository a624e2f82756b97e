/**
 * The hono app of the attach server: the console's static files at `/` and `/assets/*` (they hold
 * no data), and the API under `/api`, where every route needs the bearer token, bodies are
 * limited, and requests and responses are declared with zod so the OpenAPI document is generated.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { bodyLimit } from "./body-limit.js";
import { corsPolicy } from "./cors.js";
import { errorBody, errorResponse } from "./http-error.js";
import type { BridgeMounts } from "./bridge-mounts.js";
import { bridgeRoutes } from "./routes/bridges.js";
import { catalogRoutes } from "./routes/catalog.js";
import type { RouteContext } from "./routes/context.js";
import { apiRoute, json } from "./routes/define.js";
import { sessionRoutes } from "./routes/sessions.js";
import { bearerMatches } from "./token.js";

export interface AppOptions {
  token: string;
  maxBodyBytes: number;
  corsOrigins: readonly string[];
  log: (line: string) => void;
  /** The console's static files, mounted at `/` (absent: nothing is served outside `/api`). */
  console?: Hono;
  /** The optional protocol endpoints. */
  bridges?: { mounts: BridgeMounts; agUi: boolean; a2a: boolean };
}

const openapiRoute = apiRoute({
  method: "get",
  path: "/api/openapi.json",
  tags: ["server"],
  responses: { 200: json(z.record(z.string(), z.unknown()), "This document (OpenAPI 3.1)") },
});

export function createApp(ctx: RouteContext, options: AppOptions): OpenAPIHono {
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (result.success) return undefined;
      const code = result.target === "json" ? "body_invalid" : "query_invalid";
      const issues = result.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
      return c.json(errorBody(code, `the request's ${result.target === "json" ? "body" : result.target} is invalid`, issues), 400);
    },
  });

  app.use("*", async (c, next) => {
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
  });
  app.use("*", corsPolicy(options.corsOrigins));
  app.use("/api/*", async (c, next) => {
    c.header("Cache-Control", "no-store");
    if (!bearerMatches(c.req.header("authorization"), options.token)) {
      return c.json(errorBody("unauthorized", "a valid bearer token is required"), 401, { "WWW-Authenticate": 'Bearer realm="agent-adaptor"' });
    }
    return next();
  });
  app.use(
    "/api/*",
    bodyLimit(options.maxBodyBytes, (c) => c.json(errorBody("body_too_large", `the body is larger than ${options.maxBodyBytes} bytes`), 413)),
  );

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  catalogRoutes(app, ctx);
  sessionRoutes(app, ctx);
  if (options.bridges) bridgeRoutes(app, ctx, options.bridges.mounts, options.bridges);
  app.openapi(openapiRoute, (c) => c.json(openApiDocument(app, ctx.version), 200));

  if (options.console) app.route("/", options.console);

  app.notFound((c) => c.json(errorBody("not_found", "no such route"), 404));
  app.onError((error, c) => {
    // hono's own refusals: a body that is not JSON (its validator), one too large, one of another media type.
    if (error instanceof HTTPException && error.status === 400) return c.json(errorBody("body_invalid", "the request's body is not valid JSON"), 400);
    if (error instanceof HTTPException && error.status === 413) return c.json(errorBody("body_too_large", "the body is too large"), 413);
    // A body declared as something else than JSON (or not declared at all) is the client's mistake.
    if (error instanceof HTTPException && error.status === 415) {
      return c.json(errorBody("unsupported_media_type", "the body must be JSON: send content-type: application/json"), 415);
    }
    return errorResponse(c, error, options.log);
  });
  return app;
}

/** The OpenAPI 3.1 document of every declared route. */
export function openApiDocument(app: OpenAPIHono, version: string): Record<string, unknown> {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: { title: "agent-adaptor attach server", version, description: "Drive sessions, answer approvals and questions, stream events. Every route needs `Authorization: Bearer <token>`." },
    security: [{ bearer: [] }],
  }) as unknown as Record<string, unknown>;
}
