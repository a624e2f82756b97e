/**
 * Codex failures as typed errors. A failed turn's `codexErrorInfo` becomes a stable code; a
 * process that dies is reported with a redacted, de-coloured excerpt of its stderr.
 */
import { AuthRequiredError, ProviderError, type DeliveryPhase } from "../../errors/index.js";
import { stderrExcerpt } from "../../driver/json.js";
import type { CodexDriverErrorCode } from "./codes.js";
import type { CodexErrorInfo } from "./protocol/v2/CodexErrorInfo.js";
import type { TurnError } from "./protocol/v2/TurnError.js";

/** How to sign Codex in, named when a turn fails for want of a login. */
export const CODEX_LOGIN = "run `codex login`, or set CODEX_API_KEY";

/** The shared excerpt (ANSI stripped, the end kept), re-exported for the Codex modules that name it here. */
export { stderrExcerpt } from "../../driver/json.js";

interface Mapped {
  code: CodexDriverErrorCode;
  retryable: boolean;
}

const BY_NAME: Record<string, Mapped> = {
  contextWindowExceeded: { code: "context_window_exceeded", retryable: false },
  usageLimitExceeded: { code: "usage_limit", retryable: false },
  sessionBudgetExceeded: { code: "usage_limit", retryable: false },
  rateLimitExceeded: { code: "rate_limited", retryable: true },
  unauthorized: { code: "auth_required", retryable: false },
  modelNotFound: { code: "model_not_found", retryable: false },
  httpConnectionFailed: { code: "provider_unreachable", retryable: true },
  responseStreamConnectionFailed: { code: "provider_unreachable", retryable: true },
  responseStreamDisconnected: { code: "provider_unreachable", retryable: true },
  responseTooManyFailedAttempts: { code: "provider_unreachable", retryable: true },
  internalServerError: { code: "provider_error", retryable: true },
  serverOverloaded: { code: "provider_overloaded", retryable: true },
  flexUnavailable: { code: "provider_overloaded", retryable: true },
  policyCapacityUnavailable: { code: "provider_overloaded", retryable: true },
  badRequest: { code: "provider_error", retryable: false },
  cyberPolicy: { code: "policy_violation", retryable: false },
  bioPolicy: { code: "policy_violation", retryable: false },
  misalignmentPolicyViolation: { code: "policy_violation", retryable: false },
  inferenceHookDenied: { code: "policy_violation", retryable: false },
  tooManyDenials: { code: "too_many_denials", retryable: false },
  sandboxError: { code: "sandbox_error", retryable: false },
  threadRollbackFailed: { code: "provider_error", retryable: false },
  activeTurnNotSteerable: { code: "provider_error", retryable: false },
};

/** The variant name of a `codexErrorInfo` (`"unauthorized"`, `{httpConnectionFailed: …}` → its key). */
export function errorInfoName(info: CodexErrorInfo | null | undefined): string | undefined {
  if (typeof info === "string") return info;
  if (typeof info === "object" && info !== null) return Object.keys(info)[0];
  return undefined;
}

function httpStatusOf(info: CodexErrorInfo | null | undefined): number | undefined {
  if (typeof info !== "object" || info === null) return undefined;
  const inner = Object.values(info)[0] as { httpStatusCode?: unknown } | undefined;
  return typeof inner?.httpStatusCode === "number" ? inner.httpStatusCode : undefined;
}

/** Code and retryability of a failed turn. Unknown variants are `provider_error`. */
export function mapErrorInfo(info: CodexErrorInfo | null | undefined): Mapped {
  const status = httpStatusOf(info);
  // 401 is a missing or rejected login; 403 is a login without the right to this resource.
  if (status === 401) return { code: "auth_required", retryable: false };
  if (status === 403) return { code: "unauthorized", retryable: false };
  if (status === 429) return { code: "rate_limited", retryable: true };
  const name = errorInfoName(info);
  return (name !== undefined ? BY_NAME[name] : undefined) ?? { code: "provider_error", retryable: false };
}

/** The error a failed turn becomes: a missing login is an `AuthRequiredError` naming how to sign in. */
export function turnFailure(error: Partial<TurnError> | null | undefined, phase: DeliveryPhase): ProviderError | AuthRequiredError {
  const mapped = mapErrorInfo(error?.codexErrorInfo);
  const message = typeof error?.message === "string" && error.message !== "" ? error.message : "the Codex turn failed";
  const details = typeof error?.additionalDetails === "string" && error.additionalDetails !== "" ? ` (${error.additionalDetails})` : "";
  if (mapped.code === "auth_required") return new AuthRequiredError(`codex: ${message}${details}`, { remedy: CODEX_LOGIN });
  return new ProviderError(`codex: ${message}${details}`, { code: mapped.code, retryable: mapped.retryable, phase });
}

/** The error for a process that exited when it should not have: always `provider_exited`, never retryable. */
export function exitFailure(
  what: string,
  exit: { code: number | null; signal: string | null; outputClosed?: true } | undefined,
  stderrTail: string,
  phase: DeliveryPhase,
): ProviderError {
  const status =
    exit === undefined ? "" : exit.outputClosed ? " (it closed its output and was stopped)" : exit.signal ? ` (signal ${exit.signal})` : ` (exit code ${String(exit.code)})`;
  const excerpt = stderrExcerpt(stderrTail);
  return new ProviderError(`codex app-server exited ${what}${status}${excerpt ? `: ${excerpt}` : ""}`, { code: "provider_exited", retryable: false, phase });
}
