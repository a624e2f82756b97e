/**
 * Quiet stops (issue #14 item 5): once the consumer cancels — `stream.cancel()` or the caller's
 * signal — not one delta and no new item reaches it, even from a provider that keeps streaming
 * after the interrupt; the items it saw open get their closing events, then `run.cancelled`.
 * Core enforces it, so the driver here is a deliberately unruly one wrapped around the fake driver.
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/index.js";
import type { Driver, EventSink, RunRequest, RunResponse } from "../../src/driver/types.js";
import type { ApprovalRequest } from "../../src/driver/vocabulary.js";
import type { ApprovalDecision } from "../../src/events/types.js";
import type { AgentEvent } from "../../src/events/types.js";
import { RunCancelledError } from "../../src/errors/index.js";
import { fakeDriver } from "../../src/testing/index.js";

/** Deltas, tool calls and notices the provider keeps sending after it was told to stop. */
const AFTER_ABORT = 2_000;

/** A provider that streams until aborted, then ignores the abort for a while before closing up. */
function unrulyDriver(): Driver {
  const base = fakeDriver({ script: { steps: [] } });
  const run = async (request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> => {
    request.markDelivered();
    await sink.emit({ type: "message.delta", itemId: "m1", text: "a" });
    await sink.emit({ type: "tool.started", callId: "c1", kind: "other", title: "first tool" });
    await sink.emit({ type: "reasoning.delta", itemId: "r1", text: "thinking" });
    // An approval that names its tool call: it is keyed by its request id, not the call's.
    const approval = request.approve({ requestId: "ap1", callId: "c1", kind: "command", summary: "run it", options: [] });
    while (!signal.aborted) await sink.emit({ type: "message.delta", itemId: "m1", text: "b" });
    for (let i = 0; i < AFTER_ABORT; i++) {
      await sink.emit({ type: "message.delta", itemId: i % 2 === 0 ? "m1" : "m2", text: "late" });
      if (i % 100 === 0) {
        await sink.emit({ type: "tool.started", callId: `late-${i}`, kind: "other", title: "late tool" });
        await sink.emit({ type: "tool.updated", callId: "c1", output: "late output" });
        await sink.emit({ type: "notice", level: "info", code: "fake_notice", message: "still talking" });
        await sink.emit({ type: "message.completed", itemId: `new-${i}`, text: "a message never started" });
      }
    }
    await sink.emit({ type: "reasoning.completed", itemId: "r1", text: "thinking" });
    await sink.emit({ type: "message.completed", itemId: "m1", text: "ab" });
    await sink.emit({ type: "message.completed", itemId: "m2", text: "late" });
    await sink.emit({ type: "tool.completed", callId: "late-0", status: "completed" });
    await approval;
    await sink.emit({ type: "tool.completed", callId: "c1", status: "failed" });
    throw signal.reason;
  };
  return new Proxy(base, {
    get(target, key) {
      if (key === "run") return run;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

type StopKind = "cancel" | "signal";

async function streamAndStop(kind: StopKind, readBeforeStop: number, bufferSize?: number) {
  // The host answers the approval only when the run stops, so it is open at the stop.
  const onApproval = (_request: ApprovalRequest, signal: AbortSignal) =>
    new Promise<ApprovalDecision>((resolve) => signal.addEventListener("abort", () => resolve({ decision: "deny" }), { once: true }));
  const agent = createAgent(unrulyDriver(), { defaults: { onApproval }, ...(bufferSize ? { events: { bufferSize } } : {}) });
  const caller = new AbortController();
  const stream = agent.stream("go", { signal: caller.signal });
  const before: AgentEvent[] = [];
  const after: AgentEvent[] = [];
  let stopped = false;
  for await (const event of stream) {
    (stopped ? after : before).push(event);
    if (!stopped && before.length === readBeforeStop) {
      stopped = true;
      if (kind === "cancel") stream.cancel("enough");
      else caller.abort(new Error("enough"));
    }
  }
  await expect(stream.result).rejects.toBeInstanceOf(RunCancelledError);
  await agent.close();
  return { before, after };
}

describe.each<StopKind>(["cancel", "signal"])("a stop by %s", (kind) => {
  it.each([
    ["the buffer holds deltas published before the stop", 5, 16],
    ["the default buffer", 40, undefined],
  ])("delivers no delta and no new item after it, only closings and run.cancelled (%s)", async (_label, readBeforeStop, bufferSize) => {
    const { before, after } = await streamAndStop(kind, readBeforeStop, bufferSize);
    expect(before.some((event) => event.type === "tool.started")).toBe(true);
    const types = after.map((event) => event.type);
    expect(types.filter((type) => type === "message.delta" || type === "reasoning.delta")).toEqual([]);
    expect(types.filter((type) => type.endsWith(".started") || type === "tool.updated" || type === "notice")).toEqual([]);
    // Only the items the consumer saw open are closed: m2, new-* and late-* were never delivered open.
    const closings = after.filter((event) => event.type !== "run.cancelled");
    const idOf = (event: AgentEvent) => ("itemId" in event ? event.itemId : "callId" in event ? event.callId : "requestId" in event ? event.requestId : "");
    expect(closings.map((event) => `${event.type}:${idOf(event)}`)).toEqual([
      "approval.resolved:ap1",
      "reasoning.completed:r1",
      "message.completed:m1",
      "tool.completed:c1",
    ]);
    expect(after.at(-1)?.type).toBe("run.cancelled");
    expect(types.filter((type) => type === "run.cancelled")).toHaveLength(1);
  });
});
