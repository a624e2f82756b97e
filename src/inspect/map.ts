/**
 * Maps a driver's `InspectResponse` to the public `Inspection`: checks the observation
 * invariants (DESIGN §6), then returns a redacted, detached deep copy.
 */
import type { InspectResponse } from "../driver/types.js";
import { DriverContractError } from "../errors/index.js";
import type { Redactor } from "../redact/redact.js";
import { PANEL_NAMES, type DriverInfo, type Inspection, type Observation } from "./types.js";

const STATUSES = new Set(["observed", "unavailable", "unsupported"]);
const SCOPES = new Set(["process", "account", "workspace", "session"]);

function checkObservation(driverId: string, panel: string, observation: unknown): void {
  const fail = (what: string): never => {
    throw new DriverContractError(driverId, `inspect panel "${panel}" ${what}`);
  };
  if (typeof observation !== "object" || observation === null) fail("is missing");
  const o = observation as Observation<unknown>;
  if (!STATUSES.has(o.status)) fail("has an unknown status");
  if (!Array.isArray(o.evidence)) fail("has no evidence list");
  for (const evidence of o.evidence) {
    if (
      typeof evidence?.transport !== "string" ||
      typeof evidence.method !== "string" ||
      !SCOPES.has(evidence.scope) ||
      typeof evidence.observedAt !== "string" ||
      typeof evidence.durationMs !== "number"
    ) {
      fail("has a malformed evidence record");
    }
  }
  if (o.status === "observed") {
    if (o.reason !== undefined) fail("is observed but carries a reason");
    if (o.evidence.length === 0) fail("is observed without evidence");
    if (o.value === undefined) fail("is observed without a value");
  } else {
    if (o.value !== undefined) fail(`is ${o.status} but carries a value`);
    if (typeof o.reason?.code !== "string" || typeof o.reason.message !== "string") {
      fail(`is ${o.status} without a reason code and message`);
    }
  }
}

/** Validate, redact and detach a driver's inspection. Throws `DriverContractError`. */
export function mapInspection(driver: DriverInfo, response: InspectResponse, redactor: Redactor): Inspection {
  if (typeof response !== "object" || response === null) {
    throw new DriverContractError(driver.id, "inspect returned no response");
  }
  for (const secret of response.secrets ?? []) redactor.addSecret(secret);
  for (const panel of PANEL_NAMES) checkObservation(driver.id, panel, response[panel]);
  const inspection = { driver: { ...driver } } as Inspection;
  for (const panel of PANEL_NAMES) {
    (inspection as unknown as Record<string, unknown>)[panel] = redactor.redactValue(response[panel]);
  }
  return inspection;
}

/** A detached copy, so a host mutating one snapshot never affects another. */
export function copyInspection(inspection: Inspection): Inspection {
  return structuredClone(inspection);
}
