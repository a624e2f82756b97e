/**
 * OpenTelemetry (issue #19 item 6) with the SDK's own in-memory exporter and metric reader: the
 * span tree and GenAI attributes of a run with a tool call and an approval, a failed run's error
 * type, inspect and prepare spans, the run metrics, the run span's context in the provider
 * process's TRACEPARENT, and nothing without an SDK.
 */
import { readFile } from "node:fs/promises";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { describe, expect, it } from "vitest";
import { openTelemetry, OTEL_API_INSTALL } from "../../src/bridges/otel/index.js";
import { createAgent, ExecutableNotFoundError, type AgentObserver } from "../../src/index.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

function sdk() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return { exporter, tracerProvider, meterProvider, reader };
}

const TOOL_AND_APPROVAL: FakeRunScript = {
  steps: [
    { markDelivered: true },
    { emit: { type: "tool.started", callId: "c1", kind: "command", name: "shell", title: "rm build", command: "rm -rf build" } },
    { approve: { requestId: "a1", kind: "command", callId: "c1", summary: "Run rm", options: [{ id: "allow", label: "Allow", kind: "allow_once" }] } },
    { emit: { type: "tool.completed", callId: "c1", status: "completed", exitCode: 0 } },
    { emit: { type: "usage.observed", usage: { input_tokens: 100, output_tokens: 20, cost_usd: 0.25 } } },
    { emit: { type: "message.completed", itemId: "m", text: "done" } },
  ],
  text: "done",
  usage: { input_tokens: 100, output_tokens: 20, cost_usd: 0.25 },
};

const byName = (spans: ReadableSpan[], name: string) => spans.find((span) => span.name === name);

/** Every data point of one metric, as { attributes, value }. */
function points(metrics: ResourceMetrics, name: string): { attributes: Record<string, unknown>; value: unknown }[] {
  const metric = metrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((point) => ({ attributes: point.attributes, value: point.value }));
}

describe("OpenTelemetry observer", () => {
  it("a run with a tool call and an approval: span tree, GenAI attributes, metrics", async () => {
    const { exporter, tracerProvider, meterProvider, reader } = sdk();
    const observer = await openTelemetry({ tracerProvider, meterProvider });
    await using agent = createAgent(fakeDriver({ script: TOOL_AND_APPROVAL }), { observers: [observer] });
    const thread = await agent.startThread({ id: "conv-1" });
    const result = await thread.run("clean up", { model: "m-1", onApproval: async () => ({ decision: "allow" }) });
    expect(result.text).toBe("done");

    const spans = exporter.getFinishedSpans();
    const run = byName(spans, "invoke_agent fake")!;
    const tool = byName(spans, "execute_tool shell")!;
    const approval = byName(spans, "approval command")!;
    expect(spans.map((s) => s.name).sort()).toEqual(["approval command", "execute_tool shell", "invoke_agent fake"]);
    expect(run.parentSpanContext).toBeUndefined();
    expect(tool.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(approval.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.system": "fake",
      "gen_ai.request.model": "m-1",
      "gen_ai.conversation.id": "conv-1",
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 20,
      "gen_ai.response.finish_reasons": ["stop"],
      "agent_adaptor.run.id": result.runId,
      "agent_adaptor.run.status": "completed",
    });
    expect(tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "shell", "gen_ai.tool.call.id": "c1", "agent_adaptor.tool.status": "completed", "agent_adaptor.tool.exit_code": 0 });
    expect(approval.attributes).toMatchObject({ "agent_adaptor.approval.kind": "command", "agent_adaptor.approval.decision": "allow", "agent_adaptor.request.resolved_by": "handler" });
    // No payloads: neither the prompt, the command nor the answer.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toMatch(/clean up|rm -rf|done/);

    const { resourceMetrics } = await reader.collect();
    expect(points(resourceMetrics, "agent_adaptor.runs")).toEqual([{ attributes: expect.objectContaining({ "agent_adaptor.run.status": "completed", "gen_ai.system": "fake" }), value: 1 }]);
    expect(points(resourceMetrics, "gen_ai.client.token.usage").map((p) => [p.attributes["gen_ai.token.type"], (p.value as { sum: number }).sum]).sort()).toEqual([["input", 100], ["output", 20]]);
    expect(points(resourceMetrics, "agent_adaptor.run.cost")[0]?.value).toBe(0.25);
    expect(points(resourceMetrics, "gen_ai.client.operation.duration")[0]?.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": "m-1" });
    expect(points(resourceMetrics, "agent_adaptor.approvals")[0]?.attributes).toMatchObject({ "agent_adaptor.approval.decision": "allow", "agent_adaptor.request.resolved_by": "handler" });
    expect(points(resourceMetrics, "agent_adaptor.tool.calls")[0]?.attributes).toMatchObject({ "agent_adaptor.tool.status": "completed" });
  });

  it("a failed run: error.type is the error code, status error, counted by code; inspect and prepare spans", async () => {
    const { exporter, tracerProvider, meterProvider, reader } = sdk();
    const observer = await openTelemetry({ tracerProvider, meterProvider });
    const script: FakeRunScript = { steps: [{ markDelivered: true }, { emit: { type: "tool.started", callId: "open", kind: "read", title: "read" } }, { fail: { code: "provider_error", message: "model down" } }] };
    await using agent = createAgent(fakeDriver({ script }), { observers: [observer] });
    await expect(agent.run("go")).rejects.toMatchObject({ code: "provider_error" });
    await agent.inspect();
    await agent.prepare();
    const spans = exporter.getFinishedSpans();
    const run = byName(spans, "invoke_agent fake")!;
    expect(run.attributes).toMatchObject({ "error.type": "provider_error", "gen_ai.response.finish_reasons": ["error"], "agent_adaptor.run.status": "failed" });
    expect(run.status.code).toBe(2);
    expect(run.status.message).toContain("model down");
    // The tool call the failure left open ended with the run.
    expect(byName(spans, "execute_tool read")?.endTime).toBeDefined();
    expect(byName(spans, "inspect fake")?.attributes).toMatchObject({ "gen_ai.operation.name": "inspect", "gen_ai.system": "fake" });
    expect(byName(spans, "prepare fake")?.attributes).toMatchObject({ "gen_ai.operation.name": "prepare" });
    const { resourceMetrics } = await reader.collect();
    expect(points(resourceMetrics, "agent_adaptor.run.failures")).toEqual([{ attributes: expect.objectContaining({ "error.type": "provider_error" }), value: 1 }]);
    const operations = points(resourceMetrics, "gen_ai.client.operation.duration").map((p) => p.attributes["gen_ai.operation.name"]).sort();
    expect(operations).toEqual(["inspect", "invoke_agent", "prepare"]);
  });

  it.skipIf(process.platform !== "linux")("the provider process gets the run span's context as TRACEPARENT, under the caller's trace", async () => {
    const { exporter, tracerProvider } = sdk();
    const observer = await openTelemetry({ tracerProvider });
    const driver = fakeDriver({ process: true, script: { steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "hi" } }, { waitForAbort: true }] } });
    await using agent = createAgent(driver, { observers: [observer] });
    const caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const stream = agent.stream("go", { traceContext: { traceparent: caller, tracestate: "k=v" } });
    let environ = "";
    for await (const event of stream) {
      if (event.type !== "message.delta") continue;
      environ = await readFile(`/proc/${driver.probe.livePids()[0]}/environ`, "utf8");
      stream.cancel("read");
    }
    await stream.result.catch(() => undefined);
    const run = byName(exporter.getFinishedSpans(), "invoke_agent fake")!;
    expect(run.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(run.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(run.attributes["agent_adaptor.run.status"]).toBe("cancelled");
    const variables = environ.split("\0");
    expect(variables).toContain(`TRACEPARENT=00-${run.spanContext().traceId}-${run.spanContext().spanId}-01`);
    expect(variables).toContain("TRACESTATE=k=v");
  });

  it("without an SDK: the API's no-op tracer records nothing and no trace context reaches the provider", async () => {
    const observer = await openTelemetry();
    const driver = fakeDriver({ script: TOOL_AND_APPROVAL });
    const seen: (string | undefined)[] = [];
    const original = driver.run.bind(driver);
    driver.run = (request, sink, signal) => {
      seen.push(request.traceContext?.traceparent);
      return original(request, sink, signal);
    };
    await using agent = createAgent(driver, { observers: [observer] });
    expect((await agent.run("go", { onApproval: async () => ({ decision: "allow" }) })).text).toBe("done");
    expect(seen).toEqual([undefined]);
  });

  it("an observer that throws never fails the run; without @opentelemetry/api the observer is refused naming the install command", async () => {
    const throwing: AgentObserver = {
      run: () => ({ event: () => { throw new Error("observer bug"); }, deltas: true }),
      operation: () => () => { throw new Error("observer bug"); },
    };
    await using agent = createAgent(fakeDriver(), { observers: [throwing, { run: () => { throw new Error("bug"); } }] });
    expect((await agent.run("go")).text).toBe("ok");
    await agent.inspect();
    const error = await openTelemetry({ importer: () => Promise.reject(new Error("Cannot find package")) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutableNotFoundError);
    expect((error as ExecutableNotFoundError).install).toBe(OTEL_API_INSTALL);
    expect(() => createAgent(fakeDriver(), { observers: [{ run: "no" } as unknown as AgentObserver] })).toThrow(/observers/);
  });
});
