/**
 * A turn's `result` line as an outcome. `is_error` is the real error signal (Claude reports API
 * and auth errors as `subtype: "success"` with `is_error: true`); any subtype other than
 * `success` is a failure too. The reported message becomes the error message.
 */
import { ProviderError } from "../../errors/index.js";
import { redactThenClip } from "../../redact/clip.js";
import type { StreamJsonDriverErrorCode } from "./codes.js";
import type { StreamJsonDialect } from "./dialect.js";
import type { ResultLine } from "./wire.js";

const SUBTYPE_CODES: Record<string, StreamJsonDriverErrorCode> = {
  error_max_turns: "max_turns",
  error_max_budget_usd: "budget_exceeded",
  error_max_structured_output_retries: "structured_output_failed",
};

export function isFailure(result: ResultLine): boolean {
  return result.is_error === true || result.subtype !== "success";
}

export function resultFailure(
  dialect: StreamJsonDialect,
  result: ResultLine,
  assistantError: string | undefined,
  redact: (text: string) => string,
): ProviderError {
  const errors = Array.isArray(result.errors) ? result.errors.filter((e): e is string => typeof e === "string" && e !== "") : [];
  const text = errors.length > 0 ? errors.join("; ") : typeof result.result === "string" && result.result !== "" ? result.result : `the turn ended with ${result.subtype}`;
  const known = dialect.failureCode(result, assistantError);
  const status = typeof result.api_error_status === "number" ? result.api_error_status : undefined;
  const code = known?.code ?? SUBTYPE_CODES[result.subtype] ?? (status === 529 ? "provider_overloaded" : status === 429 ? "rate_limited" : "provider_error");
  const retryable = known?.retryable ?? (status !== undefined && (status === 429 || status >= 500));
  // Redacted before the cut: a secret across it would leave its front.
  const message = redactThenClip(text, redact, 2_000);
  return new ProviderError(code === "auth_required" ? `${message} (${dialect.login})` : message, { code, retryable, phase: "after_delivery" });
}
