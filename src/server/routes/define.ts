/** Route declarations share their error responses, so every route's refusals are in the OpenAPI document too. */
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { errorSchema } from "../schemas.js";

const error = (description: string) => ({ content: { "application/json": { schema: errorSchema } }, description });

export const ERROR_RESPONSES = {
  400: error("The body or query is invalid (`body_invalid`, `query_invalid`)."),
  401: error("Missing or wrong bearer token (`unauthorized`)."),
  404: error("Unknown route, session, agent, thread or request (`not_found`, `request_not_pending`)."),
  409: error("A library conflict (`session_archived`, `session_busy`, `thread_busy`, ...)."),
  413: error("The body is larger than the server accepts (`body_too_large`)."),
  415: error("The body is not declared as `content-type: application/json` (`unsupported_media_type`)."),
  422: error("An answer that does not fit its request (`response_invalid`)."),
  500: error("The server failed (`internal_error`, or a library error's own code)."),
} as const;

export const json = <S>(schema: S, description: string) => ({ content: { "application/json": { schema } }, description });

/** A route's required JSON body, spread into its `request`. */
export const jsonBody = <S>(schema: S) => ({ body: { content: { "application/json": { schema } }, required: true } });

/** `createRoute` with the shared error responses and the bearer requirement. */
export function apiRoute<R extends RouteConfig>(config: R): R {
  return createRoute({ ...config, security: [{ bearer: [] }], responses: { ...ERROR_RESPONSES, ...config.responses } });
}
