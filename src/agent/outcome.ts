/**
 * The pure outcome decision of a run (DESIGN §5): given what was observed while the driver ran —
 * how `run()` settled, whether and when a cancel was requested, which terminal the driver
 * announced, whether the prompt may have been delivered — which terminal event core publishes
 * and whether the run resolves or rejects. No I/O, no clock: `execute.ts` applies the decision.
 */
import type { RunResponse } from "../driver/types.js";
import {
  AdaptorError,
  AuthRequiredError,
  ConfigError,
  DriverContractError,
  ExecutableNotFoundError,
  FeatureUnsupportedError,
  ProviderError,
  StoreError,
  type DeliveryPhase,
} from "../errors/index.js";
import type { DriverEvent, RunFailure } from "../events/types.js";
import { InputError } from "../input/errors.js";

/** The terminal a driver announced through its sink (published by core once `run()` settles). */
export type AnnouncedTerminal = Extract<DriverEvent, { type: "run.completed" | "run.failed" | "run.cancelled" }>;

/** Everything the decision depends on, as observed once the driver's `run()` has settled. */
export interface RunObservation {
  driverId: string;
  /** The driver called `markDelivered()`: the prompt may have reached the provider. */
  delivered: boolean;
  /** The run's signal was aborted (a cancel, a lost lease, the startup deadline, a contract breach). */
  aborted: boolean;
  /** The terminal the driver announced, if any. */
  announced?: AnnouncedTerminal | undefined;
  /** The first contract violation of the driver, if any. */
  contractError?: DriverContractError | undefined;
  /** A core-side failure (lost lease, startup deadline, checkpoint) that ends the run regardless. */
  fatal?: unknown;
  /** What the run's launch threw (`undefined` when nothing was thrown). */
  thrown?: unknown;
  /** The run belongs to a thread whose `begin` never resolved: the thread refused the run. */
  threadRefused: boolean;
  /** What `driver.run()` resolved with, if it resolved. */
  response?: RunResponse | undefined;
}

/** The status a thread checkpoint records for the run. */
export type RunStatus = "completed" | "failed" | "cancelled";

/** Which terminal core publishes and how the run's promise settles. */
export type RunOutcome =
  /** `run.failed`, rejecting with `RunFailedError`. */
  | { kind: "failed"; failure: RunFailure; cause?: unknown }
  /** `run.failed`, rejecting with the error itself: the run could not start. */
  | { kind: "refused"; error: AdaptorError }
  | { kind: "cancelled"; reason?: string }
  | { kind: "completed"; response: RunResponse };

/** Whether the run counts as cancelled: a completion the driver announced before the cancel stands. */
function isCancelled(seen: RunObservation): boolean {
  // A driver that announced run.completed had the provider's final answer: a cancel arriving
  // after that (while the driver retires its process) does not rewrite the run.
  const completedBeforeCancel = seen.announced?.type === "run.completed" && seen.thrown === undefined;
  return (seen.aborted && !completedBeforeCancel) || seen.announced?.type === "run.cancelled";
}

/** The status a thread checkpoint records (decided before the checkpoint is written). */
export function runStatus(seen: RunObservation): RunStatus {
  if (seen.contractError || seen.fatal || (seen.thrown !== undefined && !seen.aborted) || seen.announced?.type === "run.failed") {
    return "failed";
  }
  return isCancelled(seen) ? "cancelled" : "completed";
}

/**
 * The run's outcome. Precedence: a core-side failure, then a contract violation, then a thread's
 * refusal, then a cancel, then a refusal before delivery, then the driver's failure, then its
 * announced failure, then a completion (which needs a text result).
 */
export function decideOutcome(seen: RunObservation, cancelReason: string | undefined): RunOutcome {
  const phase: DeliveryPhase = seen.delivered ? "after_delivery" : "before_delivery";
  const { thrown, announced } = seen;
  if (seen.fatal) return { kind: "failed", failure: failureOf(seen.fatal, phase), cause: seen.fatal };
  if (seen.contractError) {
    const error = seen.contractError;
    return { kind: "failed", failure: { code: error.code, message: error.message, phase, retryable: false }, cause: error };
  }
  if (thrown !== undefined && !seen.aborted && seen.threadRefused) {
    // The thread refused the run (busy, incompatible, not found) before anything launched.
    return AdaptorError.is(thrown)
      ? { kind: "refused", error: thrown }
      : { kind: "failed", failure: failureOf(thrown, "before_delivery"), cause: thrown };
  }
  if (isCancelled(seen)) {
    const reason = cancelReason ?? (announced?.type === "run.cancelled" ? announced.reason : undefined);
    return reason === undefined ? { kind: "cancelled" } : { kind: "cancelled", reason };
  }
  if (thrown !== undefined && !seen.delivered && isRefusal(thrown)) return { kind: "refused", error: thrown };
  if (thrown !== undefined) return { kind: "failed", failure: failureOf(thrown, phase), cause: thrown };
  if (announced?.type === "run.failed") {
    return { kind: "failed", failure: { ...announced.error, phase: seen.delivered ? announced.error.phase : "before_delivery" } };
  }
  const response = seen.response;
  if (typeof response !== "object" || response === null || typeof response.text !== "string") {
    return {
      kind: "failed",
      failure: { code: "driver_contract", message: `driver ${seen.driverId}: run() resolved without a text result`, phase, retryable: false },
    };
  }
  return { kind: "completed", response };
}

/**
 * Errors that say why a run could not start. Thrown before the prompt could be delivered, they
 * reject the run as themselves; `RunFailedError` is for failures of a run that got under way.
 */
export function isRefusal(error: unknown): error is AdaptorError {
  return (
    error instanceof InputError ||
    error instanceof ConfigError ||
    error instanceof ExecutableNotFoundError ||
    error instanceof AuthRequiredError ||
    error instanceof FeatureUnsupportedError
  );
}

/** The failure record of an error: its code, its message and whether retrying may help. */
export function failureOf(error: unknown, phase: DeliveryPhase): RunFailure {
  if (AdaptorError.is(error)) {
    return {
      code: error.code,
      message: error.message,
      phase,
      retryable: error instanceof ProviderError || error instanceof StoreError ? error.retryable : false,
    };
  }
  return { code: "provider_error", message: error instanceof Error ? error.message : "the driver failed", phase, retryable: false };
}
