/** The driver's view of its configured environment: the values it sets, and a redactor over them. */
import { createRedactor, type Redactor } from "../../redact/redact.js";
import type { TraceContext } from "../types.js";

/** The variables with a value (an `undefined` entry removes a variable from the child; it holds no secret). */
export function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}

/** A redactor for a driver's processes: secrets of the parent's environment, the configured `env`, and `secrets`. */
export function driverRedactor(env: Readonly<Record<string, string | undefined>>, secrets: readonly string[]): Redactor {
  return createRedactor({ env: { ...process.env, ...definedOnly(env) }, secrets });
}

/**
 * The child variables carrying a run's trace context (`RunRequest.traceContext`): `TRACEPARENT`
 * and `TRACESTATE`, the names OpenTelemetry's environment carrier and the providers that continue
 * a trace (Codex, Claude Code) read. Empty without one.
 */
export function traceEnv(traceContext: TraceContext | undefined): Record<string, string> {
  if (traceContext === undefined) return {};
  return { TRACEPARENT: traceContext.traceparent, ...(traceContext.tracestate ? { TRACESTATE: traceContext.tracestate } : {}) };
}
