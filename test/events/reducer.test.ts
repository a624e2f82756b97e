/**
 * The run-state reducer: what a UI renders from a run's events — text merged from deltas, tool
 * calls with output deltas joined and files replaced, requests pending until resolved, the
 * outcome — immutable, idempotent on replays, and itself plain JSON data.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { foldRunEvents, initialRunState, reduceRunEvent } from "../../src/events/reducer.js";
import type { AgentEvent, EventOf, EventPayloads, EventType } from "../../src/events/types.js";
import { fakeDriver } from "../../src/testing/index.js";
import { anyEvent } from "./arbitraries.js";

let seq = 0;
function ev<K extends EventType>(type: K, payload: EventPayloads[K]): AgentEvent {
  return { type, seq: seq++, runId: "run-1", at: 0, ...payload } as unknown as EventOf<K> as AgentEvent;
}

describe("reduceRunEvent", () => {
  it("folds a run into messages, reasoning, tools, plan, requests, usage and its outcome", () => {
    seq = 0;
    const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n";
    const events = [
      ev("run.started", { driver: "fake", model: "m", schemaVersion: 1 }),
      ev("thread.bound", { providerSessionId: "ps" }),
      ev("reasoning.delta", { itemId: "r1", text: "think" }),
      ev("message.delta", { itemId: "m1", text: "Hel" }),
      ev("message.delta", { itemId: "m1", text: "lo" }),
      ev("tool.started", { callId: "c1", kind: "command", name: "Bash", title: "ls", command: "ls", cwd: "/w" }),
      ev("approval.requested", { requestId: "a1", kind: "command", callId: "c1", summary: "ls", options: [{ id: "allow", label: "Allow", kind: "allow_once" }] }),
      ev("question.requested", { requestId: "q1", questions: [{ id: "q", question: "Which?" }] }),
      ev("approval.resolved", { requestId: "a1", decision: { decision: "allow" }, by: "stream" }),
      ev("tool.updated", { callId: "c1", output: "a\n" }),
      ev("tool.updated", { callId: "c1", output: "b\n" }),
      ev("tool.completed", { callId: "c1", status: "completed", exitCode: 0 }),
      ev("tool.started", { callId: "c2", kind: "file_change", title: "edit", files: [{ path: "a.txt", change: "modified" }] }),
      ev("tool.updated", { callId: "c2", files: [{ path: "a.txt", change: "modified", diff }] }),
      ev("tool.completed", { callId: "c2", status: "completed", output: "done" }),
      ev("plan.updated", { entries: [{ text: "step", status: "in_progress" }] }),
      ev("usage.observed", { usage: { input_tokens: 3 } }),
      ev("notice", { level: "info", code: "fake_notice", message: "n" }),
      ev("message.completed", { itemId: "m1", text: "Hello!" }),
      ev("run.completed", { result: { runId: "run-1", status: "completed", text: "Hello!", durationMs: 5, usage: { input_tokens: 4 } } }),
    ];
    const state = foldRunEvents(events);
    expect(state).toMatchObject({ runId: "run-1", driver: "fake", model: "m", schemaVersion: 1, providerSessionId: "ps", status: "completed", lastSeq: events.length - 1 });
    expect(state.messages).toEqual([{ itemId: "m1", text: "Hello!", completed: true }]);
    expect(state.reasoning).toEqual([{ itemId: "r1", text: "think", completed: false }]);
    expect(state.tools).toEqual([
      { callId: "c1", kind: "command", name: "Bash", title: "ls", command: "ls", cwd: "/w", status: "completed", output: "a\nb\n", exitCode: 0, files: [] },
      { callId: "c2", kind: "file_change", title: "edit", status: "completed", output: "done", files: [{ path: "a.txt", change: "modified", diff }] },
    ]);
    expect(state.plan).toEqual([{ text: "step", status: "in_progress" }]);
    // The question was never answered, but the run ended: nothing is pending any more.
    expect(state.pendingApprovals).toEqual([]);
    expect(state.pendingQuestions).toEqual([]);
    expect(state.usage).toEqual({ input_tokens: 4 });
    expect(state.notices).toEqual([{ level: "info", code: "fake_notice", message: "n" }]);
    expect(state.result?.text).toBe("Hello!");

    const midway = foldRunEvents(events.slice(0, 8));
    expect(midway.status).toBe("running");
    expect(midway.pendingApprovals.map((a) => a.requestId)).toEqual(["a1"]);
    expect(midway.pendingQuestions.map((q) => q.requestId)).toEqual(["q1"]);
    expect(midway.messages).toEqual([{ itemId: "m1", text: "Hello", completed: false }]);
  });

  it("keeps what an update said when the call's start arrives after it", () => {
    seq = 0;
    const state = foldRunEvents([
      ev("tool.updated", { callId: "c", output: "early\n" }),
      ev("tool.started", { callId: "c", kind: "command", title: "make", command: "make" }),
      ev("tool.updated", { callId: "c", output: "late\n" }),
    ]);
    expect(state.tools).toEqual([{ callId: "c", kind: "command", title: "make", command: "make", status: "running", output: "early\nlate\n", files: [] }]);
  });

  it("records a failure or a cancellation", () => {
    seq = 0;
    const failed = foldRunEvents([ev("run.started", { driver: "d", schemaVersion: 1 }), ev("run.failed", { error: { code: "provider_error", message: "m", phase: "after_delivery", retryable: false } })]);
    expect(failed).toMatchObject({ status: "failed", error: { code: "provider_error" } });
    seq = 0;
    const cancelled = foldRunEvents([ev("run.started", { driver: "d", schemaVersion: 1 }), ev("run.cancelled", { reason: "user" })]);
    expect(cancelled).toMatchObject({ status: "cancelled", cancelReason: "user" });
  });

  it("ignores replays, other runs and unknown types, returning the same state", () => {
    seq = 0;
    const first = ev("message.delta", { itemId: "m", text: "a" });
    const state = reduceRunEvent(initialRunState(), first);
    expect(reduceRunEvent(state, first)).toBe(state);
    expect(reduceRunEvent(state, { ...first, seq: 9, runId: "other" })).toBe(state);
    expect(reduceRunEvent(state, { ...first, seq: 9, type: "run.paused" } as unknown as AgentEvent)).toBe(state);
  });

  it("never mutates a state, and every state is JSON data", () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 30 }), (events) => {
        let state = initialRunState();
        let n = 0;
        for (const event of events) {
          const before = JSON.stringify(state);
          const next = reduceRunEvent(state, { ...event, runId: "r", seq: n++ });
          expect(JSON.stringify(state)).toBe(before);
          state = next;
        }
        expect(JSON.parse(JSON.stringify(state))).toStrictEqual(state);
      }),
      { numRuns: 200 },
    );
  });

  it("renders a real run of the fake driver", async () => {
    const agent = createAgent(
      fakeDriver({
        script: {
          steps: [
            { emit: { type: "tool.started", callId: "c", kind: "command", title: "echo", command: "echo hi" } },
            { emit: { type: "tool.updated", callId: "c", output: "hi\n" } },
            { emit: { type: "tool.completed", callId: "c", status: "completed", exitCode: 0 } },
            { deltas: { count: 2, text: "ok", itemId: "m" } },
          ],
        },
      }),
    );
    try {
      const stream = agent.stream("go");
      let state = initialRunState();
      for await (const event of stream) state = reduceRunEvent(state, event);
      const result = await stream.result;
      expect(state).toMatchObject({ status: "completed", driver: "fake", result: { text: result.text } });
      expect(state.tools).toEqual([{ callId: "c", kind: "command", title: "echo", command: "echo hi", status: "completed", output: "hi\n", exitCode: 0, files: [] }]);
      expect(state.messages).toEqual([{ itemId: "m", text: "okok", completed: false }]);
    } finally {
      await agent.close();
    }
  });
});
