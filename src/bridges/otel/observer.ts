/**
 * `openTelemetry()`: an agent observer (`createAgent(driver, { observers: [...] })`) reporting
 * runs, tool calls, approvals, questions, inspections and preparations as OpenTelemetry spans
 * and metrics with the GenAI semantic conventions, and handing each run's span context to the
 * provider process as `TRACEPARENT` (Codex and Claude Code continue the trace from it). With no
 * SDK registered the API's no-op tracer and meter make it cost next to nothing.
 */
import type { Context, Meter, SpanContext, Tracer } from "@opentelemetry/api";
import type { AgentObserver, ObservedOperation, ObservedRun, RunObservation } from "../../agent/observers.js";
import type { TraceContext } from "../../driver/types.js";
import { AdaptorError } from "../../errors/index.js";
import { loadOtelApi, type OtelApi } from "./api.js";
import type { MeterProviderLike, OtelApiImporter, TracerProviderLike } from "./importer.js";
import { createInstruments, type Instruments } from "./metrics.js";
import { RunTelemetry } from "./run-telemetry.js";
import { ATTR, OPERATION, SCOPE_NAME } from "./semconv.js";

export interface OpenTelemetryOptions {
  /** Default: the globally registered provider (the API's no-op one when no SDK is registered). */
  tracerProvider?: TracerProviderLike;
  /** Default: the globally registered provider. */
  meterProvider?: MeterProviderLike;
  /** Give the provider process the run span's context as `TRACEPARENT` / `TRACESTATE`. Default true. */
  propagate?: boolean;
  /** How `@opentelemetry/api` is imported (tests). */
  importer?: OtelApiImporter;
}

/**
 * An observer reporting the agent to OpenTelemetry. Rejects with `ExecutableNotFoundError` naming
 * `npm install @opentelemetry/api` when the package is missing.
 *
 * @example
 * ```ts
 * const agent = createAgent(codex(), { observers: [await openTelemetry()] });
 * ```
 */
export async function openTelemetry(options: OpenTelemetryOptions = {}): Promise<AgentObserver> {
  const api = await loadOtelApi(options.importer);
  const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(SCOPE_NAME) as Tracer;
  const instruments = createInstruments((options.meterProvider ?? api.metrics.getMeterProvider()).getMeter(SCOPE_NAME) as Meter);
  const propagate = options.propagate !== false;
  return {
    run: (run) => observeRun(api, tracer, instruments, run, propagate),
    operation: (operation) => observeOperation(api, tracer, instruments, operation),
  };
}

function observeRun(api: OtelApi, tracer: Tracer, instruments: Instruments, run: ObservedRun, propagate: boolean): RunObservation {
  const parent = parentContext(api, run.traceContext);
  const attributes = {
    [ATTR.operationName]: OPERATION.run,
    [ATTR.system]: run.driver,
    [ATTR.providerName]: run.driver,
    [ATTR.agentName]: run.driver,
    [ATTR.runId]: run.runId,
    ...(run.model !== undefined ? { [ATTR.requestModel]: run.model } : {}),
    ...(run.effort !== undefined ? { [ATTR.effort]: run.effort } : {}),
    ...(run.threadId !== undefined ? { [ATTR.conversationId]: run.threadId } : {}),
  };
  const span = tracer.startSpan(`${OPERATION.run} ${run.driver}`, { kind: api.SpanKind.CLIENT, attributes }, parent);
  const telemetry = new RunTelemetry(api, tracer, instruments, span, api.trace.setSpan(parent, span), run);
  const traceContext = propagate ? traceContextOf(api, span.spanContext()) : undefined;
  return { event: (event) => telemetry.event(event), ...(traceContext !== undefined ? { traceContext } : {}) };
}

function observeOperation(api: OtelApi, tracer: Tracer, instruments: Instruments, operation: ObservedOperation): (outcome: { error?: unknown }) => void {
  const attributes = { [ATTR.operationName]: operation.operation, [ATTR.system]: operation.driver, [ATTR.providerName]: operation.driver };
  const span = tracer.startSpan(`${operation.operation} ${operation.driver}`, { attributes }, api.context.active());
  const startedAt = Date.now();
  return ({ error }) => {
    const errorType = error === undefined ? undefined : error instanceof AdaptorError ? error.code : error instanceof Error ? error.name : "unknown";
    if (errorType !== undefined) {
      span.setAttribute(ATTR.errorType, errorType);
      span.setStatus({ code: api.SpanStatusCode.ERROR, ...(error instanceof Error ? { message: error.message } : {}) });
    }
    span.end();
    instruments.operationDuration.record((Date.now() - startedAt) / 1000, errorType !== undefined ? { ...attributes, [ATTR.errorType]: errorType } : attributes);
  };
}

/** The caller's trace context as the parent, else the active context. */
function parentContext(api: OtelApi, traceContext: TraceContext | undefined): Context {
  const active = api.context.active();
  if (traceContext === undefined) return active;
  const [, traceId, spanId, flags] = traceContext.traceparent.split("-");
  const spanContext: SpanContext = { traceId: traceId!, spanId: spanId!, traceFlags: Number.parseInt(flags!, 16), isRemote: true };
  if (traceContext.tracestate) spanContext.traceState = api.createTraceState(traceContext.tracestate);
  return api.isSpanContextValid(spanContext) ? api.trace.setSpanContext(active, spanContext) : active;
}

/** A valid span context as W3C `traceparent` (and `tracestate`); nothing for the no-op tracer's invalid one. */
function traceContextOf(api: OtelApi, spanContext: SpanContext): TraceContext | undefined {
  if (!api.isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
  const tracestate = spanContext.traceState?.serialize();
  return { traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`, ...(tracestate ? { tracestate } : {}) };
}
