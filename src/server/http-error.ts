/**
 * Errors as the API answers them: `{ error: { code, message, issues?, details? } }` with a status
 * chosen by the code. A library `AdaptorError` keeps its code and (already redacted) message with
 * host paths replaced (hide-paths.ts); anything else is a generic 500 that names nothing.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AdaptorError, BudgetExhaustedError, ThreadIncompatibleError, type ErrorCode, type ThreadMismatch } from "../errors/index.js";
import { clientMismatch, hidePaths } from "./hide-paths.js";

/**
 * The codes the server itself answers with (library errors keep their own `ErrorCode`), and the
 * status each goes with.
 */
export const SERVER_ERROR_STATUS = {
  body_invalid: 400,
  query_invalid: 400,
  unauthorized: 401,
  not_found: 404,
  agent_not_configured: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  internal_error: 500,
  server_closing: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ServerErrorCode = keyof typeof SERVER_ERROR_STATUS;

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    issues?: { path: string; message: string }[];
    /** `thread_incompatible`: each differing setting, a path-valued one (the workspace) as `<path>`. */
    details?: { mismatches: ThreadMismatch[] };
  };
}

/** A refusal of the server itself (an unknown id, a bad body): its status, code and message are the answer. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  constructor(
    readonly code: ServerErrorCode,
    message: string,
    readonly issues?: { path: string; message: string }[],
  ) {
    super(message);
    this.name = "ApiError";
    this.status = SERVER_ERROR_STATUS[code];
  }
}

export const notFound = (what: string): ApiError => new ApiError("not_found", `no such ${what}`);

/** The status of a library error code: conflicts are 409, unknown ids 404, refused answers 422. */
const STATUS_OF_CODE: Readonly<Record<string, ContentfulStatusCode>> = {
  config_invalid: 400,
  option_scope: 400,
  session_not_found: 404,
  thread_not_found: 404,
  request_not_pending: 404,
  response_invalid: 422,
  agent_closed: 409,
  session_archived: 409,
  session_busy: 409,
  session_closed: 409,
  session_owned: 409,
  session_exists: 409,
  thread_busy: 409,
  thread_exists: 409,
  thread_incompatible: 409,
  lease_lost: 409,
  approval_timeout: 409,
  budget_exhausted: 409,
  feature_unsupported: 409,
  store_busy: 503,
  store_unavailable: 503,
};

export function errorBody(code: ServerErrorCode | ErrorCode, message: string, issues?: ErrorBody["error"]["issues"], details?: ErrorBody["error"]["details"]): ErrorBody {
  return { error: { code, message, ...(issues ? { issues } : {}), ...(details ? { details } : {}) } };
}

/** The body of a library error: its message without host paths; a thread mismatch's values rebuilt from their client form. */
function adaptorErrorBody(error: AdaptorError): ErrorBody {
  if (!(error instanceof ThreadIncompatibleError)) return errorBody(error.code, hidePaths(error.message));
  const mismatches = error.mismatches.map(clientMismatch);
  return errorBody(error.code, `the thread is incompatible with this agent: ${mismatches.map(describeMismatch).join("; ")}`, undefined, { mismatches });
}

// The library's wording (errors/index.ts), over the client's values.
function describeMismatch(m: ThreadMismatch): string {
  if (m.recorded === "(unknown)" && m.current === "(unknown)") return `${m.dimension} differs`;
  return `${m.dimension} differs (${m.setting}: recorded ${JSON.stringify(m.recorded)}, now ${JSON.stringify(m.current)})`;
}

/** The answer to a thrown error; `log` hears about unexpected ones (by name only). */
export function errorResponse(c: Context, error: unknown, log: (line: string) => void): Response {
  if (error instanceof ApiError) return c.json(errorBody(error.code, error.message, error.issues), error.status);
  if (error instanceof BudgetExhaustedError) {
    // The library's message names its methods; an HTTP client lifts a trip with these routes.
    const how = error.ceiling.startsWith("session") ? "raise it with POST /api/sessions/:id/budget" : "clear it with POST /api/sessions/:id/reset-run-ceiling";
    return c.json(errorBody(error.code, `the session's ${error.ceiling} ceiling is tripped: ${how}`), 409);
  }
  if (AdaptorError.is(error)) {
    const status = STATUS_OF_CODE[error.code] ?? 500;
    return c.json(adaptorErrorBody(error), status);
  }
  log(`internal error answering ${c.req.method} ${c.req.routePath}: ${error instanceof Error ? error.name : typeof error}`);
  return c.json(errorBody("internal_error", "the server failed to answer the request"), 500);
}
