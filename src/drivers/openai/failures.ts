/**
 * What a failed model request means: the `openai` client's errors (HTTP status, connection
 * failure, abort) as the library's typed errors, and whether the request may be sent again. A
 * request is retried only while none of its output was delivered (the loop decides that).
 */
import { AdaptorError, AuthRequiredError, ProviderError, type DeliveryPhase, type ErrorCode } from "../../errors/index.js";
import { redactThenClip } from "../../redact/clip.js";
import { EXCERPT_CHARS, UnexpectedAnswerError } from "./wire/answer-type.js";

/** The retry-after a server asked for, in ms, when it asked (`retry-after-ms` or `retry-after` seconds). */
export function retryAfterMs(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown }).headers;
  if (!(headers instanceof Headers)) return undefined;
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (raw === null) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

function isConnectionError(error: unknown): boolean {
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name;
  return name === "APIConnectionError" || name === "APIConnectionTimeoutError";
}

/** Whether sending the same request again may succeed: 408, 409, 429, 5xx, a lost connection, a cut stream. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ProviderError) return error.retryable;
  if (isConnectionError(error)) return true;
  const status = statusOf(error);
  return status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500);
}

/** The error's message, redacted before it is cut: a secret across the cut would leave its front. */
function messageOf(error: unknown, redact: (text: string) => string): string {
  return redactThenClip(error instanceof Error ? error.message : String(error), redact, 500);
}

/**
 * The library's error for a failed model request. `redact` is the driver's: the endpoint's
 * message may echo the key, and core's redaction cannot see a key cut in half.
 */
export function requestFailure(error: unknown, phase: DeliveryPhase, apiKeyEnv: string | undefined, redact: (text: string) => string): AdaptorError {
  if (AdaptorError.is(error)) return error;
  if (error instanceof UnexpectedAnswerError) return unexpectedAnswer(error, phase, redact);
  const message = `the model request failed: ${messageOf(error, redact)}`;
  if (isConnectionError(error)) return new ProviderError(`the endpoint could not be reached: ${messageOf(error, redact)}`, { code: "provider_unreachable", retryable: true, phase, cause: error });
  const status = statusOf(error);
  const options = (code: ErrorCode, retryable: boolean) => ({ code, retryable, phase, cause: error });
  switch (true) {
    case status === 401: {
      const remedy = apiKeyEnv === undefined ? "configure apiKeyEnv with the variable holding the key" : `set ${apiKeyEnv} to a valid key`;
      return new AuthRequiredError(`the endpoint refused the credentials (HTTP 401)`, { remedy, cause: error });
    }
    case status === 403:
      return new ProviderError(message, options("unauthorized", false));
    case status === 404:
      // A server answers 404 for an unknown path as for an unknown model: name both causes.
      return new ProviderError(`${message} (an unknown model, or a baseURL without the endpoint's version path such as /v1)`, options("model_not_found", false));
    case status === 429:
      return new ProviderError(message, options("rate_limited", true));
    case status === 503 || status === 529:
      return new ProviderError(message, options("provider_overloaded", true));
    case status === 400 && /context|too long|maximum.*tokens/i.test(message):
      return new ProviderError(message, options("context_window_exceeded", false));
    default:
      return new ProviderError(message, options("provider_error", isRetryable(error)));
  }
}

/**
 * A 200 that is not an event stream: a wrong baseURL (a web UI) or a proxy's page. Sending it
 * again gets the same page, so it is not retried; the message names what came back.
 */
function unexpectedAnswer(error: UnexpectedAnswerError, phase: DeliveryPhase, redact: (text: string) => string): ProviderError {
  const excerpt = error.excerpt === "" ? "" : `: "${redactThenClip(error.excerpt, redact, EXCERPT_CHARS)}"`;
  const hint = "; check that baseURL is the API's base (e.g. http://host:port/v1), not a web page or a proxy's sign-in page";
  return new ProviderError(`the model request failed: ${error.message}${hint}${excerpt}`, { code: "malformed_response", retryable: false, phase, cause: error });
}
