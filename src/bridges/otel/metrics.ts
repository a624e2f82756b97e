/** The bridge's instruments, made once per observer from its meter. */
import type { Counter, Histogram, Meter } from "@opentelemetry/api";
import { METRIC } from "./semconv.js";

export interface Instruments {
  operationDuration: Histogram;
  tokenUsage: Histogram;
  runs: Counter;
  failures: Counter;
  cost: Counter;
  toolCalls: Counter;
  approvals: Counter;
}

export function createInstruments(meter: Meter): Instruments {
  return {
    operationDuration: meter.createHistogram(METRIC.operationDuration, { unit: "s", description: "Duration of agent runs, inspections and preparations" }),
    tokenUsage: meter.createHistogram(METRIC.tokenUsage, { unit: "{token}", description: "Tokens a run used, by gen_ai.token.type" }),
    runs: meter.createCounter(METRIC.runs, { unit: "{run}", description: "Runs ended, by agent_adaptor.run.status" }),
    failures: meter.createCounter(METRIC.failures, { unit: "{run}", description: "Failed runs, by error.type (the error code)" }),
    cost: meter.createCounter(METRIC.cost, { unit: "USD", description: "What runs cost, when the provider reports it" }),
    toolCalls: meter.createCounter(METRIC.toolCalls, { unit: "{call}", description: "Tool calls ended, by kind and status" }),
    approvals: meter.createCounter(METRIC.approvals, { unit: "{request}", description: "Approval requests settled, by decision and resolver" }),
  };
}
