/**
 * Agent observers (`AgentOptions.observers`): telemetry's view of an agent. Each run — of the
 * agent, a thread or anything built on them — is offered to every observer as it starts; an
 * observer that takes it sees the run's events as they are published, in order, and may give
 * the provider process a trace context. `inspect()` and `prepare()` are reported with their
 * outcome. Observers are called synchronously and must be cheap; what they throw is ignored.
 */
import type { TraceContext } from "../driver/types.js";
import type { AgentEvent } from "../events/types.js";
import type { RunEventObserver } from "../events/timeline.js";

/** A run as it starts, before `run.started`. */
export interface ObservedRun {
  runId: string;
  threadId?: string;
  /** The driver's id (`descriptor().id`). */
  driver: string;
  /** The effective model and effort, when set (the call's, the defaults' or the driver config's). */
  model?: string;
  effort?: string;
  /** The trace context the caller gave (`CallOptions.traceContext`). */
  traceContext?: TraceContext;
}

/** How an observer follows one run. */
export interface RunObservation {
  /** Each event of the run as published, the terminal last. Must not mutate it. */
  event(event: AgentEvent): void;
  /** Also see `message.delta` / `reasoning.delta` (default false: they are the bulk of a stream). */
  deltas?: boolean;
  /**
   * The trace context for the provider process, in place of the caller's (an observer's run span
   * is parented under the caller's context, so the provider's spans stay in the caller's trace).
   */
  traceContext?: TraceContext;
}

/** An `inspect()` or `prepare()` call as it starts. */
export interface ObservedOperation {
  operation: "inspect" | "prepare";
  driver: string;
}

/** What an observer implements; every member optional. */
export interface AgentObserver {
  /** A run starts: return how to follow it, or nothing to let it pass. */
  run?(run: ObservedRun): RunObservation | undefined;
  /** An inspection or preparation starts: return what is told its outcome (`error` when it failed). */
  operation?(operation: ObservedOperation): ((outcome: { error?: unknown }) => void) | undefined;
}

/** The observers' view of one run, fanned out: the timeline's observer and the trace context. */
export function observeRun(observers: readonly AgentObserver[] | undefined, run: ObservedRun): { observer?: RunEventObserver; traceContext?: TraceContext } {
  if (observers === undefined || observers.length === 0) return {};
  const taken: RunObservation[] = [];
  for (const observer of observers) {
    const observation = quietly(() => observer.run?.({ ...run }));
    if (observation !== undefined) taken.push(observation);
  }
  if (taken.length === 0) return {};
  const traceContext = taken.find((observation) => observation.traceContext !== undefined)?.traceContext;
  const observer: RunEventObserver =
    taken.length === 1
      ? { event: (event) => taken[0]!.event(event), deltas: taken[0]!.deltas === true }
      : { event: (event) => taken.forEach((observation) => (observation.deltas === true || !isDelta(event)) && quietly(() => observation.event(event))), deltas: taken.some((o) => o.deltas === true) };
  return { observer, ...(traceContext !== undefined ? { traceContext: { ...traceContext } } : {}) };
}

/** Runs `operation` reporting its start and outcome to the observers. */
export async function observeOperation<T>(observers: readonly AgentObserver[] | undefined, started: ObservedOperation, operation: () => Promise<T>): Promise<T> {
  if (observers === undefined || observers.length === 0) return operation();
  const ends = observers.map((observer) => quietly(() => observer.operation?.({ ...started }))).filter((end) => end !== undefined);
  try {
    const value = await operation();
    for (const end of ends) quietly(() => end({}));
    return value;
  } catch (error) {
    for (const end of ends) quietly(() => end({ error }));
    throw error;
  }
}

function isDelta(event: AgentEvent): boolean {
  return event.type === "message.delta" || event.type === "reasoning.delta";
}

function quietly<T>(call: () => T): T | undefined {
  try {
    return call();
  } catch {
    return undefined;
  }
}
