/**
 * CORS, closed by default: without configured origins no response carries an `Access-Control-*`
 * header and every preflight is refused, so a page from another origin cannot call the API. With
 * origins configured, exactly those get the headers (the token is still required).
 */
import type { MiddlewareHandler } from "hono";

const ALLOWED_METHODS = "GET, POST, DELETE";
const ALLOWED_HEADERS = "Authorization, Content-Type, Last-Event-ID";

export function corsPolicy(origins: readonly string[] = []): MiddlewareHandler {
  const allowed = new Set(origins.map((origin) => origin.replace(/\/$/, "")));
  return async (c, next) => {
    const origin = c.req.header("origin");
    const permitted = origin !== undefined && allowed.has(origin);
    if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method") !== undefined) {
      if (!permitted) return c.body(null, 403);
      return c.body(null, 204, {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": ALLOWED_METHODS,
        "Access-Control-Allow-Headers": ALLOWED_HEADERS,
        "Access-Control-Max-Age": "600",
        Vary: "Origin",
      });
    }
    await next();
    if (permitted) {
      c.header("Access-Control-Allow-Origin", origin);
      c.header("Access-Control-Expose-Headers", "Content-Type");
      c.header("Vary", "Origin", { append: true });
    }
  };
}
