/**
 * One run's telemetry: the run span (`invoke_agent <driver>`), a child span per tool call
 * (`execute_tool <name>`) and per approval or question (under its tool call when it names an open
 * one), timed by the events' own `at`, and the run's metrics at its terminal. Attributes carry
 * ids, names, codes and counts — never prompts, model output, tool input or output.
 */
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import type { AgentEvent, EventOf } from "../../events/types.js";
import type { Usage } from "../../events/usage.js";
import type { ObservedRun } from "../../agent/observers.js";
import type { OtelApi } from "./api.js";
import type { Instruments } from "./metrics.js";
import { ATTR, OPERATION } from "./semconv.js";

export class RunTelemetry {
  readonly #api: OtelApi;
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #span: Span;
  readonly #context: Context;
  /** Attributes every metric of this run carries. */
  readonly #metricAttributes: Attributes;
  readonly #startedAt: number;
  readonly #recording: boolean;
  readonly #tools = new Map<string, { span: Span; context: Context }>();
  readonly #requests = new Map<string, Span>();
  #usage: Usage | undefined;
  #ended = false;

  constructor(api: OtelApi, tracer: Tracer, instruments: Instruments, span: Span, context: Context, run: ObservedRun) {
    this.#api = api;
    this.#tracer = tracer;
    this.#instruments = instruments;
    this.#span = span;
    this.#context = context;
    this.#startedAt = Date.now();
    this.#recording = span.isRecording();
    this.#metricAttributes = { [ATTR.operationName]: OPERATION.run, [ATTR.system]: run.driver, [ATTR.providerName]: run.driver, ...(run.model !== undefined ? { [ATTR.requestModel]: run.model } : {}) };
  }

  event(event: AgentEvent): void {
    if (this.#ended) return;
    switch (event.type) {
      case "run.started":
        if (event.model !== undefined) this.#span.setAttribute(ATTR.requestModel, event.model);
        return;
      case "thread.bound":
        this.#span.setAttribute(ATTR.providerSessionId, event.providerSessionId);
        return;
      case "tool.started":
        return this.#toolStarted(event);
      case "tool.completed":
        return this.#toolCompleted(event);
      case "approval.requested":
      case "question.requested":
        return this.#requested(event);
      case "approval.resolved":
      case "question.resolved":
        return this.#resolved(event);
      case "usage.observed":
        this.#usage = { ...this.#usage, ...event.usage };
        return;
      case "notice":
        if (this.#recording) this.#span.addEvent("agent_adaptor.notice", { [ATTR.noticeCode]: event.code, [ATTR.noticeLevel]: event.level }, event.at);
        return;
      case "run.completed":
      case "run.failed":
      case "run.cancelled":
        return this.#terminal(event);
      default:
        return;
    }
  }

  #toolStarted(event: EventOf<"tool.started">): void {
    if (!this.#recording || this.#tools.has(event.callId)) return;
    const name = event.name ?? event.kind;
    const attributes: Attributes = {
      [ATTR.operationName]: OPERATION.tool,
      [ATTR.toolName]: name,
      [ATTR.toolCallId]: event.callId,
      [ATTR.toolType]: event.kind === "mcp" ? "extension" : "function",
      [ATTR.toolKind]: event.kind,
      ...(event.mcp ? { [ATTR.mcpServer]: event.mcp.server, [ATTR.mcpTool]: event.mcp.tool } : {}),
    };
    const span = this.#tracer.startSpan(`${OPERATION.tool} ${name}`, { attributes, startTime: event.at }, this.#context);
    this.#tools.set(event.callId, { span, context: this.#api.trace.setSpan(this.#context, span) });
  }

  #toolCompleted(event: EventOf<"tool.completed">): void {
    const span = this.#tools.get(event.callId)?.span;
    this.#instruments.toolCalls.add(1, { ...this.#metricAttributes, [ATTR.toolStatus]: event.status });
    if (span === undefined) return;
    span.setAttribute(ATTR.toolStatus, event.status);
    if (event.exitCode !== undefined) span.setAttribute(ATTR.toolExitCode, event.exitCode);
    if (event.status === "failed") {
      span.setAttribute(ATTR.errorType, "tool_failed");
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
    }
    span.end(event.at);
    this.#tools.delete(event.callId);
  }

  #requested(event: EventOf<"approval.requested"> | EventOf<"question.requested">): void {
    if (!this.#recording) return;
    const approval = event.type === "approval.requested";
    const callId = approval ? event.callId : undefined;
    const parent = (callId !== undefined ? this.#tools.get(callId)?.context : undefined) ?? this.#context;
    const attributes: Attributes = approval
      ? { [ATTR.operationName]: OPERATION.approval, [ATTR.approvalKind]: event.kind, ...(callId !== undefined ? { [ATTR.toolCallId]: callId } : {}) }
      : { [ATTR.operationName]: OPERATION.question };
    const name = approval ? `${OPERATION.approval} ${event.kind}` : OPERATION.question;
    this.#requests.set(event.requestId, this.#tracer.startSpan(name, { attributes, startTime: event.at }, parent));
  }

  #resolved(event: EventOf<"approval.resolved"> | EventOf<"question.resolved">): void {
    if (event.type === "approval.resolved") this.#instruments.approvals.add(1, { ...this.#metricAttributes, [ATTR.approvalDecision]: event.decision.decision, [ATTR.resolvedBy]: event.by });
    const span = this.#requests.get(event.requestId);
    if (span === undefined) return;
    span.setAttribute(ATTR.resolvedBy, event.by);
    if (event.type === "approval.resolved") span.setAttribute(ATTR.approvalDecision, event.decision.decision);
    else span.setAttribute(ATTR.questionAnswered, event.answered);
    span.end(event.at);
    this.#requests.delete(event.requestId);
  }

  #terminal(event: EventOf<"run.completed"> | EventOf<"run.failed"> | EventOf<"run.cancelled">): void {
    this.#ended = true;
    const status = event.type === "run.completed" ? "completed" : event.type === "run.failed" ? "failed" : "cancelled";
    const usage = event.type === "run.completed" ? { ...this.#usage, ...event.result.usage } : this.#usage;
    const errorType = event.type === "run.failed" ? event.error.code : undefined;
    // Calls and requests the run left open end with it.
    for (const { span } of this.#tools.values()) span.end(event.at);
    for (const span of this.#requests.values()) span.end(event.at);
    this.#recordSpan(status, usage, event);
    this.#recordMetrics(status, usage, errorType, event.at);
  }

  #recordSpan(status: string, usage: Usage | undefined, event: EventOf<"run.completed"> | EventOf<"run.failed"> | EventOf<"run.cancelled">): void {
    const span = this.#span;
    if (this.#recording) {
      span.setAttributes({ [ATTR.runStatus]: status, [ATTR.finishReasons]: [status === "completed" ? "stop" : status === "failed" ? "error" : "cancelled"], ...usageAttributes(usage) });
      if (event.type === "run.completed" && event.result.providerSessionId !== undefined) span.setAttribute(ATTR.providerSessionId, event.result.providerSessionId);
      if (event.type === "run.failed") {
        span.setAttribute(ATTR.errorType, event.error.code);
        span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: event.error.message });
      }
    }
    span.end(event.at);
  }

  #recordMetrics(status: string, usage: Usage | undefined, errorType: string | undefined, at: number): void {
    const attributes = this.#metricAttributes;
    const instruments = this.#instruments;
    instruments.operationDuration.record(Math.max(0, at - this.#startedAt) / 1000, errorType !== undefined ? { ...attributes, [ATTR.errorType]: errorType } : attributes);
    instruments.runs.add(1, { ...attributes, [ATTR.runStatus]: status });
    if (errorType !== undefined) instruments.failures.add(1, { ...attributes, [ATTR.errorType]: errorType });
    if (usage?.input_tokens !== undefined) instruments.tokenUsage.record(usage.input_tokens, { ...attributes, [ATTR.tokenType]: "input" });
    if (usage?.output_tokens !== undefined) instruments.tokenUsage.record(usage.output_tokens, { ...attributes, [ATTR.tokenType]: "output" });
    if (usage?.cost_usd !== undefined) instruments.cost.add(usage.cost_usd, attributes);
  }
}

function usageAttributes(usage: Usage | undefined): Attributes {
  if (usage === undefined) return {};
  const attributes: Attributes = {};
  if (usage.input_tokens !== undefined) attributes[ATTR.inputTokens] = usage.input_tokens;
  if (usage.output_tokens !== undefined) attributes[ATTR.outputTokens] = usage.output_tokens;
  if (usage.cached_input_tokens !== undefined) attributes[ATTR.cachedInputTokens] = usage.cached_input_tokens;
  if (usage.reasoning_output_tokens !== undefined) attributes[ATTR.reasoningTokens] = usage.reasoning_output_tokens;
  if (usage.cost_usd !== undefined) attributes[ATTR.costUsd] = usage.cost_usd;
  return attributes;
}
