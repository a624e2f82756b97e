/**
 * The admission gate: whether queued input may start a run. A person closes it (`interruptAndHold`
 * with the cancel of the run in flight, atomically; `pause`, letting that run finish) and only
 * `resume` opens it — injected input (submit, steer, follow-up) never does.
 */
import type { GateState } from "./types.js";

export const OPEN_GATE: GateState = { open: true };

export function closedGate(by: "hold" | "pause", reason: string, now: Date): GateState {
  return { open: false, by, reason, since: now.toISOString() };
}

/** Throws `TypeError` unless `reason` is a string (the closure's reason is recorded and shown). */
export function checkReason(reason: unknown): string {
  if (typeof reason !== "string") throw new TypeError("a hold or pause reason must be a string");
  return reason;
}
