/** Evidence timing for the stream-json drivers (the kit's clock and rounding); observations are built with core's builders. */
import { evidence, evidenceClock } from "../../driver/kit/evidence.js";
import type { Evidence } from "../../inspect/types.js";

export { allUnavailable, observed, unavailable, unsupported } from "../../driver/observations.js";

/** Measures one official call and records where its answer came from. */
export class EvidenceClock {
  readonly #transport: string;
  #version: string | undefined;

  constructor(transport: string, version?: string) {
    this.#transport = transport;
    this.#version = version;
  }

  set providerVersion(version: string | undefined) {
    if (version !== undefined) this.#version = version;
  }

  async measure<T>(method: string, call: () => Promise<T>): Promise<{ value: T; evidence: Evidence } | { error: unknown; evidence: Evidence }> {
    const started = evidenceClock();
    try {
      const value = await call();
      return { value, evidence: this.record(method, started) };
    } catch (error) {
      return { error, evidence: this.record(method, started) };
    }
  }

  record(method: string, started: number, scope: Evidence["scope"] = "process"): Evidence {
    return evidence({ transport: this.#transport, method, scope, startedAt: started, providerVersion: this.#version });
  }

  /** Re-stamps records taken before the version was known. */
  stamp(evidence: Evidence[]): Evidence[] {
    return evidence.map((e) => (this.#version !== undefined && e.providerVersion === undefined ? { ...e, providerVersion: this.#version } : e));
  }
}
