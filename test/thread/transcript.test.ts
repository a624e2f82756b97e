/**
 * The history form of one turn's events (src/thread/transcript.ts): deltas merged or dropped,
 * tool updates merged, long fields and whole turns capped with a marker, input left untouched.
 */
import { describe, expect, it } from "vitest";

import type { AgentEvent } from "../../src/index.js";
import { capText, compactTranscript, HISTORY_FIELD_CAP_BYTES, HISTORY_TURN_CAP_BYTES } from "../../src/thread/transcript.js";

let seq = 0;
const ev = (payload: Record<string, unknown>): AgentEvent => ({ seq: seq++, runId: "r", at: 1, ...payload }) as unknown as AgentEvent;
const strip = (events: AgentEvent[]) => events.map(({ seq: _s, runId: _r, at: _a, ...rest }) => rest);

describe("compactTranscript", () => {
  it("drops the deltas of completed items and merges those of items the run never completed", () => {
    const events = [
      ev({ type: "message.delta", itemId: "m1", text: "Hel" }),
      ev({ type: "reasoning.delta", itemId: "r1", text: "thin" }),
      ev({ type: "message.delta", itemId: "m1", text: "lo" }),
      ev({ type: "message.completed", itemId: "m1", text: "Hello" }),
      ev({ type: "reasoning.delta", itemId: "r1", text: "king" }),
      ev({ type: "tool.started", callId: "c", kind: "other", title: "t" }),
      ev({ type: "message.delta", itemId: "m2", text: "par" }),
      ev({ type: "message.delta", itemId: "m2", text: "tial" }),
    ];
    const copy = structuredClone(events);
    const { events: out, omittedEvents } = compactTranscript(events);
    expect(omittedEvents).toBeUndefined();
    expect(strip(out)).toEqual([
      { type: "reasoning.delta", itemId: "r1", text: "thinking" },
      { type: "message.completed", itemId: "m1", text: "Hello" },
      { type: "tool.started", callId: "c", kind: "other", title: "t" },
      { type: "message.delta", itemId: "m2", text: "partial" },
    ]);
    expect(events).toEqual(copy);
  });

  it("merges a tool call's updates into one, leaving out what tool.completed already says", () => {
    const events = [
      ev({ type: "tool.started", callId: "a", kind: "command", title: "ls", command: "ls", rawInput: { cmd: "ls" } }),
      ev({ type: "tool.updated", callId: "a", output: "one\n" }),
      ev({ type: "tool.started", callId: "b", kind: "file_change", title: "edit", rawInput: { path: "x" } }),
      ev({ type: "tool.updated", callId: "b", files: [{ path: "x", change: "modified", diff: "d1" }] }),
      ev({ type: "tool.updated", callId: "a", output: "two\n" }),
      ev({ type: "tool.updated", callId: "b", files: [{ path: "x", change: "modified", diff: "d2" }] }),
      ev({ type: "tool.completed", callId: "a", status: "completed", exitCode: 0 }),
      ev({ type: "tool.completed", callId: "b", status: "completed", files: [{ path: "x", change: "modified", diff: "d2" }] }),
      ev({ type: "tool.started", callId: "c", kind: "command", title: "cat", command: "cat" }),
      ev({ type: "tool.updated", callId: "c", output: "streamed" }),
      ev({ type: "tool.completed", callId: "c", status: "completed", output: "whole output" }),
    ];
    expect(strip(compactTranscript(events).events)).toEqual([
      { type: "tool.started", callId: "a", kind: "command", title: "ls", command: "ls", rawInput: { cmd: "ls" } },
      { type: "tool.updated", callId: "a", output: "one\ntwo\n" },
      { type: "tool.started", callId: "b", kind: "file_change", title: "edit", rawInput: { path: "x" } },
      { type: "tool.completed", callId: "a", status: "completed", exitCode: 0 },
      { type: "tool.completed", callId: "b", status: "completed", files: [{ path: "x", change: "modified", diff: "d2" }] },
      { type: "tool.started", callId: "c", kind: "command", title: "cat", command: "cat" },
      { type: "tool.completed", callId: "c", status: "completed", output: "whole output" },
    ]);
  });

  it("keeps the last file list of a call the run never completed", () => {
    const events = [
      ev({ type: "tool.updated", callId: "b", files: [{ path: "x", change: "added", diff: "d1" }] }),
      ev({ type: "tool.updated", callId: "b", files: [{ path: "x", change: "added", diff: "d2" }, { path: "y", change: "deleted" }] }),
    ];
    expect(strip(compactTranscript(events).events)).toEqual([
      { type: "tool.updated", callId: "b", files: [{ path: "x", change: "added", diff: "d2" }, { path: "y", change: "deleted" }] },
    ]);
  });

  it("caps long texts, outputs, diffs and raw inputs with a marker", () => {
    const long = "x".repeat(HISTORY_FIELD_CAP_BYTES + 10);
    const events = [
      ev({ type: "message.completed", itemId: "m", text: long }),
      ev({ type: "tool.started", callId: "c", kind: "file_change", title: "write", rawInput: { content: long } }),
      ev({ type: "tool.completed", callId: "c", status: "completed", output: long, files: [{ path: "f", change: "added", diff: long }] }),
    ];
    const [message, started, completed] = compactTranscript(events).events as unknown as Record<string, unknown>[];
    expect(message!.text).toBe(`${"x".repeat(HISTORY_FIELD_CAP_BYTES)}\n[truncated: 10 bytes omitted]`);
    expect(typeof started!.rawInput).toBe("string");
    expect(started!.rawInput).toMatch(/^\{"content":"x+\n\[truncated: \d+ bytes omitted\]$/);
    expect(completed!.output).toBe(message!.text);
    expect((completed!.files as { diff: string }[])[0]!.diff).toBe(message!.text);
  });

  it("keeps the head and tail of a turn over the cap and counts what it left out", () => {
    const chunk = "y".repeat(HISTORY_FIELD_CAP_BYTES / 2);
    const events = Array.from({ length: 100 }, (_, i) => ev({ type: "tool.completed", callId: `c${i}`, status: "completed", output: chunk }));
    const { events: out, omittedEvents } = compactTranscript(events);
    expect(omittedEvents).toBeGreaterThan(0);
    expect(out.length + omittedEvents!).toBe(100);
    expect(new TextEncoder().encode(JSON.stringify(out)).length).toBeLessThanOrEqual(HISTORY_TURN_CAP_BYTES);
    expect(out[0]).toMatchObject({ callId: "c0" });
    expect(out.at(-1)).toMatchObject({ callId: "c99" });
    const kept = out.map((e) => Number((e as { callId: string }).callId.slice(1)));
    const gap = kept.findIndex((n, i) => i > 0 && n !== kept[i - 1]! + 1);
    expect(kept[gap]! - kept[gap - 1]! - 1).toBe(omittedEvents);
  });
});

describe("capText", () => {
  it("leaves text within the cap alone and never splits a character", () => {
    expect(capText("short", 10)).toBe("short");
    expect(capText("ü".repeat(5), 10)).toBe("ü".repeat(5));
    expect(capText("ü".repeat(6), 11)).toBe(`${"ü".repeat(5)}\n[truncated: 2 bytes omitted]`);
    expect(capText("𝄞𝄞", 6)).toBe("𝄞\n[truncated: 4 bytes omitted]");
  });
});
