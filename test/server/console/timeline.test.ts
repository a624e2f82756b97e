import { describe, expect, it } from "vitest";
import { applyEntries, EMPTY_TIMELINE, mergePending, TOOL_OUTPUT_CAP, type TimelineState, type ToolItem } from "../../../console/src/timeline.js";
import type { AgentEvent, SessionNotice, StreamEntry } from "../../../console/src/wire.js";
import type { EventPayloads, EventType } from "../../../src/events/types.js";

let runSeq = 0;
/** A run event as the wire carries it (run seq, runId, at). */
function ev<K extends EventType>(type: K, payload: EventPayloads[K], runId = "run_1"): AgentEvent {
  return { type, seq: runSeq++, runId, at: 1, ...payload } as unknown as AgentEvent;
}

function fold(events: (AgentEvent | SessionNotice)[], from: TimelineState = EMPTY_TIMELINE, firstSeq = from.lastSeq + 1): TimelineState {
  const entries: StreamEntry[] = events.map((event, i) => ({ seq: firstSeq + i, event }));
  return applyEntries(from, entries);
}

describe("console timeline", () => {
  it("accumulates message deltas into one bubble, completed text replacing them", () => {
    const state = fold([
      ev("run.started", { driver: "openai", schemaVersion: 1 }),
      ev("message.delta", { itemId: "m1", text: "Hel" }),
      ev("reasoning.delta", { itemId: "r1", text: "think" }),
      ev("message.delta", { itemId: "m1", text: "lo **there**" }),
    ]);
    expect(state.items.map((i) => i.kind)).toEqual(["run", "message", "reasoning"]);
    expect(state.items[1]).toMatchObject({ kind: "message", text: "Hello **there**", done: false, seq: 2 });
    const done = fold([ev("message.completed", { itemId: "m1", text: "Hello there." })], state);
    expect(done.items[1]).toMatchObject({ text: "Hello there.", done: true });
    // Unchanged items keep their identity, so their views are not re-rendered.
    expect(done.items[0]).toBe(state.items[0]);
    expect(done.items[2]).toBe(state.items[2]);
  });

  it("follows a tool call from start to end: command, streamed output, exit code, diffs", () => {
    const diff = "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hi\n";
    const state = fold([
      ev("tool.started", { callId: "c1", kind: "command", title: "touch a.txt", command: "echo hi > a.txt", cwd: "/w" }),
      ev("tool.updated", { callId: "c1", output: "line 1\n" }),
      ev("tool.updated", { callId: "c1", output: "line 2\n", files: [{ path: "a.txt", change: "added" }] }),
      ev("tool.completed", { callId: "c1", status: "completed", exitCode: 0, files: [{ path: "a.txt", change: "added", diff }] }),
    ]);
    expect(state.items).toHaveLength(1);
    expect(state.items[0]).toMatchObject({
      kind: "tool",
      callId: "c1",
      toolKind: "command",
      command: "echo hi > a.txt",
      status: "completed",
      exitCode: 0,
      output: "line 1\nline 2\n",
      files: [{ path: "a.txt", change: "added", diff }],
    });
  });

  it("keeps the tail of a tool's output past the cap, counting what it dropped", () => {
    const chunk = "x".repeat(TOOL_OUTPUT_CAP / 2 + 10);
    const state = fold([
      ev("tool.started", { callId: "c", kind: "command", title: "spam" }),
      ev("tool.updated", { callId: "c", output: chunk }),
      ev("tool.updated", { callId: "c", output: chunk + "END" }),
    ]);
    const tool = state.items[0] as ToolItem;
    expect(tool.output.length).toBe(TOOL_OUTPUT_CAP);
    expect(tool.output.endsWith("END")).toBe(true);
    expect(tool.outputDropped).toBe(chunk.length * 2 + 3 - TOOL_OUTPUT_CAP);
  });

  it("shows a tool update whose start was trimmed from the log", () => {
    const state = fold([ev("tool.completed", { callId: "gone", status: "failed", exitCode: 2, output: "boom" })]);
    expect(state.items[0]).toMatchObject({ kind: "tool", callId: "gone", status: "failed", exitCode: 2, output: "boom" });
  });

  it("keeps one plan and one usage item per run, usage merged key by key", () => {
    const state = fold([
      ev("plan.updated", { entries: [{ text: "a", status: "in_progress" }] }),
      ev("usage.observed", { usage: { input_tokens: 10, output_tokens: 1 } }),
      ev("plan.updated", { entries: [{ text: "a", status: "completed" }, { text: "b", status: "pending" }] }),
      ev("usage.observed", { usage: { output_tokens: 5, cost_usd: 0.002 } }),
    ]);
    expect(state.items).toHaveLength(2);
    expect(state.items[0]).toMatchObject({ kind: "plan", entries: [{ text: "a", status: "completed" }, { text: "b", status: "pending" }] });
    expect(state.items[1]).toMatchObject({ kind: "usage", usage: { input_tokens: 10, output_tokens: 5, cost_usd: 0.002 } });
  });

  it("lists an approval as pending until it is resolved", () => {
    const requested = fold([
      ev("tool.started", { callId: "c1", kind: "command", title: "rm", command: "rm -rf build" }),
      ev("approval.requested", { requestId: "a1", kind: "command", callId: "c1", summary: "Run rm -rf build?", options: [{ id: "deny", label: "Deny", kind: "deny" }] }),
    ]);
    expect(requested.approvals).toEqual([{ runId: "run_1", requestId: "a1", kind: "command", callId: "c1", summary: "Run rm -rf build?", options: [{ id: "deny", label: "Deny", kind: "deny" }] }]);
    const resolved = fold([ev("approval.resolved", { requestId: "a1", decision: { decision: "deny", optionId: "decline" }, by: "stream" })], requested);
    expect(resolved.approvals).toEqual([]);
    expect(resolved.items[1]).toMatchObject({ kind: "approval", requestId: "a1", resolution: { outcome: "deny (decline)", by: "stream" } });
    const plain = fold([ev("approval.resolved", { requestId: "a1", decision: { decision: "allow", optionId: "allow" }, by: "policy" })], requested);
    expect(plain.items[1]).toMatchObject({ resolution: { outcome: "allow", by: "policy" } });
    // A late /pending answer that still lists it does not bring it back.
    const merged = mergePending(resolved, { approvals: requested.approvals, questions: [] });
    expect(merged.approvals).toEqual([]);
  });

  it("keeps question texts but never answers, and settles a run's requests when it ends", () => {
    const state = fold([
      ev("question.requested", { requestId: "q1", questions: [{ id: "k", question: "API key?", secret: true }] }),
      ev("approval.requested", { requestId: "a2", kind: "tool", summary: "use tool", options: [] }),
    ]);
    expect(state.questions.map((q) => q.requestId)).toEqual(["q1"]);
    expect(state.items[0]).toMatchObject({ kind: "question", prompts: ["API key?"] });
    const ended = fold([ev("run.cancelled", { reason: "interrupted" })], state);
    expect(ended.approvals).toEqual([]);
    expect(ended.questions).toEqual([]);
    expect(ended.items.at(-1)).toMatchObject({ kind: "run", phase: "cancelled", reason: "interrupted" });
    const answered = fold([ev("question.resolved", { requestId: "q1", answered: true, by: "stream" })], state);
    expect(answered.items[0]).toMatchObject({ resolution: { answered: true, by: "stream" } });
  });

  it("tells apart runs that reuse a request id: each run's request is pending, shown and settled on its own", () => {
    const ask = (runId: string) => ev("approval.requested", { requestId: "a1", kind: "command", summary: `in ${runId}`, options: [] }, runId);
    const first = fold([
      ev("run.started", { driver: "fake", schemaVersion: 1 }, "run_a"),
      ask("run_a"),
      ev("approval.resolved", { requestId: "a1", decision: { decision: "allow" }, by: "stream" }, "run_a"),
      ev("run.completed", { result: { runId: "run_a", status: "completed", text: "", durationMs: 1 } }, "run_a"),
      ev("question.requested", { requestId: "q1", questions: [{ id: "x", question: "first?" }] }, "run_a"),
      ev("question.resolved", { requestId: "q1", answered: true, by: "stream" }, "run_a"),
    ]);
    expect(first.approvals).toEqual([]);
    // A later run asks with the same ids (a restarted provider, a scripted agent): pending again.
    const second = fold([ev("run.started", { driver: "fake", schemaVersion: 1 }, "run_b"), ask("run_b"), ev("question.requested", { requestId: "q1", questions: [{ id: "x", question: "second?" }] }, "run_b")], first);
    expect(second.approvals.map((a) => [a.runId, a.requestId])).toEqual([["run_b", "a1"]]);
    expect(second.questions.map((q) => [q.runId, q.requestId])).toEqual([["run_b", "q1"]]);
    const denied = fold([ev("approval.resolved", { requestId: "a1", decision: { decision: "deny" }, by: "stream" }, "run_b")], second);
    // Each run keeps its own item and outcome.
    const outcomes = denied.items.filter((i) => i.kind === "approval").map((i) => [i.runId, i.kind === "approval" ? i.resolution?.outcome : undefined]);
    expect(outcomes).toEqual([["run_a", "allow"], ["run_b", "deny"]]);
    expect(denied.questions.map((q) => q.runId)).toEqual(["run_b"]);
    // /pending naming the new run's request is not mistaken for the settled one of the old run.
    const merged = mergePending(fold([], first), { approvals: [{ runId: "run_b", requestId: "a1", kind: "command", summary: "s", options: [] }], questions: [] });
    expect(merged.approvals.map((a) => a.runId)).toEqual(["run_b"]);
  });

  it("adds pending requests only /pending knows of (the log was trimmed)", () => {
    const merged = mergePending(EMPTY_TIMELINE, {
      approvals: [{ runId: "r", requestId: "a9", kind: "command", summary: "s", options: [] }],
      questions: [{ runId: "r", requestId: "q9", questions: [] }],
    });
    expect(merged.approvals.map((a) => a.requestId)).toEqual(["a9"]);
    expect(merged.questions.map((q) => q.requestId)).toEqual(["q9"]);
    expect(mergePending(merged, { approvals: merged.approvals, questions: merged.questions })).toBe(merged);
  });

  it("shows a run's start and its end as two items, the end after what the run did", () => {
    const started = fold([ev("run.started", { driver: "codex", model: "gpt-5", schemaVersion: 1 }), ev("message.delta", { itemId: "m", text: "hi" })]);
    const ended = fold([ev("run.completed", { result: { runId: "run_1", status: "completed", text: "hi", durationMs: 1234 } })], started);
    expect(ended.items.map((i) => (i.kind === "run" ? i.phase : i.kind))).toEqual(["started", "message", "completed"]);
    expect(ended.items[0]).toEqual({ kind: "run", key: "run:run_1:started", seq: 1, runId: "run_1", phase: "started", driver: "codex", model: "gpt-5" });
    expect(ended.items[2]).toEqual({ kind: "run", key: "run:run_1:end", seq: 3, runId: "run_1", phase: "completed", durationMs: 1234 });
  });

  it("shows session notices and run ends in order", () => {
    const state = fold([
      { type: "session.prompt_queued", promptId: "p1", wake: true },
      { type: "session.gate", gate: { open: false, by: "hold", reason: "lunch", since: "2026-01-01T00:00:00Z" } },
      ev("run.failed", { error: { code: "provider_error", message: "boom", phase: "after_delivery", retryable: false } }),
    ]);
    expect(state.items.map((i) => i.kind)).toEqual(["session", "session", "run"]);
    expect(state.items[2]).toMatchObject({ phase: "failed", error: { code: "provider_error", message: "boom" } });
  });

  it("applies a replay overlapping what it holds exactly once (dedupe by seq)", () => {
    const events = [ev("message.delta", { itemId: "m", text: "a" }), ev("message.delta", { itemId: "m", text: "b" }), ev("message.delta", { itemId: "m", text: "c" })];
    const once = fold(events);
    expect(once.lastSeq).toBe(3);
    // The same entries again, then a replay from seq 2 with one new entry.
    expect(fold(events, once, 1)).toBe(once);
    const replay = applyEntries(once, [
      { seq: 2, event: events[1]! },
      { seq: 3, event: events[2]! },
      { seq: 4, event: ev("message.delta", { itemId: "m", text: "d" }) },
      { seq: 4, event: ev("message.delta", { itemId: "m", text: "d" }) },
    ]);
    expect(replay.items[0]).toMatchObject({ text: "abcd" });
    expect(replay.lastSeq).toBe(4);
  });
});
