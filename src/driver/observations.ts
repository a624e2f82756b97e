/**
 * Builders for inspection observations, for drivers (built-in and third-party), so every panel
 * states its status the same way and satisfies core's invariants by construction.
 */
import type { Evidence, Observation, PanelName } from "../inspect/types.js";
import { PANEL_NAMES } from "../inspect/types.js";
import type { InspectResponse } from "./types.js";

/** Observed: a value and the evidence (at least one record) it came from. */
export function observed<T>(value: T, evidence: Evidence[]): Observation<T> {
  return { status: "observed", value, evidence };
}

/** Unavailable now (not signed in, provider error, ...), with a stable reason code. */
export function unavailable<T>(code: string, message: string, evidence: Evidence[] = []): Observation<T> {
  return { status: "unavailable", reason: { code, message }, evidence };
}

/** Unsupported by the installed provider (default reason code `method_unsupported`). */
export function unsupported<T>(message: string, evidence: Evidence[] = [], code = "method_unsupported"): Observation<T> {
  return { status: "unsupported", reason: { code, message }, evidence };
}

/** Every panel unavailable for one reason (missing executable, no answer, ...). */
export function allUnavailable(code: string, message: string): Omit<InspectResponse, "secrets"> {
  const panels = {} as Record<PanelName, Observation<unknown>>;
  for (const panel of PANEL_NAMES) panels[panel] = unavailable(code, message);
  return panels as Omit<InspectResponse, "secrets">;
}
