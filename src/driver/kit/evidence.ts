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

/** How long a recorded call took: from a reading of {@link evidenceClock} to now, or measured elsewhere. */
export type EvidenceTiming = Pick<EvidenceInput, "startedAt" | "durationMs">;

/** A measured call: its value or its error, and the call's record either way. */
export type Measured<T> = { value: T; evidence: Evidence } | { error: unknown; evidence: Evidence };

/**
 * Records the official calls one inspection makes over one transport: each record names the
 * transport and, once known, the provider version, on the kit's clock and rounding.
 */
export class EvidenceRecorder {
  readonly transport: string;
  #version: string | undefined;

  constructor(transport: string, providerVersion?: string) {
    this.transport = transport;
    this.#version = providerVersion;
  }

  /** The provider version stamped on every record; setting `undefined` keeps a version already known. */
  get providerVersion(): string | undefined {
    return this.#version;
  }

  set providerVersion(version: string | undefined) {
    if (version !== undefined) this.#version = version;
  }

  /** Runs one call and records it, whether it answered or failed. Never rejects. */
  async measure<T>(method: string, call: () => Promise<T>, scope: Evidence["scope"] = "process"): Promise<Measured<T>> {
    const startedAt = evidenceClock();
    try {
      const value = await call();
      return { value, evidence: this.record(method, { startedAt }, scope) };
    } catch (error) {
      return { error, evidence: this.record(method, { startedAt }, scope) };
    }
  }

  /** One record of a call timed by the caller. */
  record(method: string, timing: EvidenceTiming, scope: Evidence["scope"] = "process"): Evidence {
    return evidence({ transport: this.transport, method, scope, ...timing, providerVersion: this.#version });
  }

  /** Copies of `records` naming the provider version, for records taken before it was known. */
  stamp(records: readonly Evidence[]): Evidence[] {
    return records.map((e) => (this.#version !== undefined && e.providerVersion === undefined ? { ...e, providerVersion: this.#version } : e));
  }
}
