/**
 * The admission gate: whether queued input may start a run. A person closes it (`interruptAndHold`
 * with the cancel of the run in flight, atomically; `pause`, letting that run finish) and only
 * `resume` opens it — injected input (submit, steer, follow-up) never does.
 */
import { ConfigError } from "../errors/index.js";
import type { GateState } from "./types.js";

export const OPEN_GATE: GateState = { open: true };

export function closedGate(by: "hold" | "pause", reason: string, now: Date): GateState {
  return { open: false, by, reason, since: now.toISOString() };
}

/** Throws `ConfigError` naming the verb unless `reason` is a string (the closure's reason is recorded and shown). */
export function checkReason(reason: unknown, verb: "interruptAndHold" | "pause"): string {
  if (typeof reason !== "string") throw new ConfigError(`${verb} reason must be a string`);
  return reason;
}
