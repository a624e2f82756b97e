/** Evidence records for inspection panels: one clock (`performance.now()`), one rounding (0.01 ms). */
import type { Evidence } from "../../inspect/types.js";

/** The clock evidence durations are measured on; pass its reading as `startedAt`. */
export const evidenceClock = (): number => performance.now();

/** What one record says: the call, where it was made, and how long it took. */
export interface EvidenceInput {
  /** The transport, e.g. `"codex app-server"`. */
  transport: string;
  /** The official method that answered. */
  method: string;
  /** Default `"process"`. */
  scope?: Evidence["scope"];
  /** The provider's version, when known. */
  providerVersion?: string | undefined;
  /** A reading of {@link evidenceClock} when the call started (the duration runs to now)… */
  startedAt?: number;
  /** …or the duration measured elsewhere, in ms. */
  durationMs?: number;
}

/** One evidence record, observed now. */
export function evidence(input: EvidenceInput): Evidence {
  const duration = input.durationMs ?? evidenceClock() - (input.startedAt ?? evidenceClock());
  const record: Evidence = {
    transport: input.transport,
    method: input.method,
    scope: input.scope ?? "process",
    observedAt: new Date().toISOString(),
    durationMs: Math.max(0, Math.round(duration * 100) / 100),
  };
  if (input.providerVersion !== undefined) record.providerVersion = input.providerVersion;
  return record;
}
