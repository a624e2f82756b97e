/** Builders for inspection observations, so every panel states its status the same way. */
import type { InspectResponse } from "../../driver/types.js";
import type { Evidence, Observation } from "../../inspect/types.js";

export function observed<T>(value: T, evidence: Evidence[]): Observation<T> {
  return { status: "observed", value, evidence };
}

export function unavailable<T>(code: string, message: string, evidence: Evidence[] = []): Observation<T> {
  return { status: "unavailable", reason: { code, message }, evidence };
}

export function unsupported<T>(message: string, evidence: Evidence[] = [], code = "method_unsupported"): Observation<T> {
  return { status: "unsupported", reason: { code, message }, evidence };
}

/** Every panel unavailable for one reason (missing executable, no answer, ...). */
export function allUnavailable(code: string, message: string): InspectResponse {
  return {
    environment: unavailable(code, message),
    models: unavailable(code, message),
    commands: unavailable(code, message),
    skills: unavailable(code, message),
    mcp: unavailable(code, message),
    quota: unavailable(code, message),
    profile: unavailable(code, message),
    configuration: unavailable(code, message),
    auth: unavailable(code, message),
  };
}

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
    const started = performance.now();
    try {
      const value = await call();
      return { value, evidence: this.record(method, started) };
    } catch (error) {
      return { error, evidence: this.record(method, started) };
    }
  }

  record(method: string, started: number, scope: Evidence["scope"] = "process"): Evidence {
    const evidence: Evidence = {
      transport: this.#transport,
      method,
      scope,
      observedAt: new Date().toISOString(),
      durationMs: Math.max(0, Math.round(performance.now() - started)),
    };
    if (this.#version !== undefined) evidence.providerVersion = this.#version;
    return evidence;
  }

  /** Re-stamps records taken before the version was known. */
  stamp(evidence: Evidence[]): Evidence[] {
    return evidence.map((e) => (this.#version !== undefined && e.providerVersion === undefined ? { ...e, providerVersion: this.#version } : e));
  }
}
