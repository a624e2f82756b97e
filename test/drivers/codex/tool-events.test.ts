/**
 * Codex items → normalized tool events, on the frame shapes the real app-server (0.171) sends:
 * `fileChange.changes[].diff` is the whole content for `add`/`delete` and header-less hunks for
 * `update` (a move appends `Moved to: <path>`); every file comes out with a real unified diff.
 */
import { describe, expect, it } from "vitest";
import { TurnMapper } from "../../../src/drivers/codex/events.js";
import { normalizeFileChanges, type FileChangeSummary } from "../../../src/drivers/codex/tools.js";
import type { DriverEvent } from "../../../src/events/types.js";
import { observeToolFields } from "../tool-fields.js";

const CHANGES = [
  { path: "/w/added.txt", kind: { type: "add" }, diff: "hello\nworld\n" },
  { path: "/w/from.txt", kind: { type: "update", move_path: "/w/to.txt" }, diff: "@@ -1 +1 @@\n-move me\n+moved\n\n\nMoved to: /w/to.txt" },
  { path: "/w/gone.txt", kind: { type: "delete" }, diff: "bye\n" },
  { path: "/w/old.txt", kind: { type: "update", move_path: null }, diff: "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n" },
];

function mapper(): { m: TurnMapper; events: DriverEvent[] } {
  const events: DriverEvent[] = [];
  const m = new TurnMapper((event) => {
    events.push(event);
    return undefined;
  });
  m.threadId = "thr";
  return { m, events };
}

const item = (method: string, item: object) => ({ method, params: { threadId: "thr", turnId: "t", item } });

describe("Codex file changes", () => {
  it("become one unified diff per file: added and deleted from the content, updates and moves from the hunks", () => {
    const summaries: FileChangeSummary[] = CHANGES.map((c) => ({ path: c.path, kind: c.kind.type, diff: c.diff, ...(c.kind.move_path ? { movePath: c.kind.move_path } : {}) }));
    expect(normalizeFileChanges(summaries)).toEqual([
      { path: "/w/added.txt", change: "added", diff: "--- /dev/null\n+++ b/w/added.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n" },
      { path: "/w/to.txt", movedFrom: "/w/from.txt", change: "modified", diff: "--- a/w/from.txt\n+++ b/w/to.txt\n@@ -1 +1 @@\n-move me\n+moved\n" },
      { path: "/w/gone.txt", change: "deleted", diff: "--- a/w/gone.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n" },
      { path: "/w/old.txt", change: "modified", diff: "--- a/w/old.txt\n+++ b/w/old.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n" },
    ]);
  });

  it("a pure move has headers and no hunk; an oversized update is capped with the marker", () => {
    const [moved, big] = normalizeFileChanges([
      { path: "a.txt", kind: "update", movePath: "b.txt", diff: "\n\nMoved to: b.txt" },
      { path: "big.txt", kind: "update", diff: `@@ -1 +1 @@\n${"+x\n".repeat(40_000)}` },
    ]);
    expect(moved).toEqual({ path: "b.txt", movedFrom: "a.txt", change: "modified", diff: "--- a/a.txt\n+++ b/b.txt\n" });
    expect(Buffer.byteLength(big!.diff!)).toBeLessThanOrEqual(64 * 1024 + 64);
    expect(big!.diff).toMatch(/\n\\ diff truncated: \d+ bytes omitted\n$/);
  });

  it("maps a fileChange item: files on start, patch updates and completion; the turn diff stays off the call", async () => {
    const { m, events } = mapper();
    const started = item("item/started", { type: "fileChange", id: "call_p", changes: CHANGES.slice(0, 1), status: "inProgress" });
    await m.handle(started.method, started.params);
    await m.handle("item/fileChange/patchUpdated", { threadId: "thr", turnId: "t", itemId: "call_p", changes: CHANGES });
    const completed = item("item/completed", { type: "fileChange", id: "call_p", changes: CHANGES, status: "completed" });
    await m.handle(completed.method, completed.params);
    await m.handle("turn/diff/updated", { threadId: "thr", turnId: "t", diff: "diff --git a/added.txt b/added.txt\n" });

    expect(events.map((e) => e.type)).toEqual(["tool.started", "tool.updated", "tool.completed"]);
    expect(events[0]).toMatchObject({ kind: "file_change", name: "fileChange", files: [{ path: "/w/added.txt", change: "added" }], rawInput: { changes: [{ path: "/w/added.txt", kind: "add" }] } });
    expect(events[1]).toMatchObject({ type: "tool.updated", files: [{ change: "added" }, { change: "modified", movedFrom: "/w/from.txt" }, { change: "deleted" }, { change: "modified" }] });
    expect(events[2]).toMatchObject({ type: "tool.completed", status: "completed", files: [{ path: "/w/added.txt" }, { path: "/w/to.txt" }, { path: "/w/gone.txt" }, { path: "/w/old.txt" }] });
    expect(m.turnDiff).toContain("diff --git");
    for (const event of events) {
      expect(event).not.toHaveProperty("input");
      expect(event).not.toHaveProperty("diff");
    }
    expect(observeToolFields(events)).toEqual({
      file_change: ["started.name", "started.files", "started.rawInput", "updated.files", "completed.files", "files.diff", "files.movedFrom"],
    });
  });

  it("a declined change lists no changed files at completion (its proposal stays on tool.started)", async () => {
    const { m, events } = mapper();
    const completed = item("item/completed", { type: "fileChange", id: "call_p", changes: CHANGES.slice(0, 1), status: "declined" });
    await m.handle(completed.method, completed.params);
    expect(events.map((e) => e.type)).toEqual(["tool.started", "tool.completed"]);
    expect(events[0]).toMatchObject({ files: [{ path: "/w/added.txt" }] });
    expect(events[1]).toEqual({ type: "tool.completed", callId: "call_p", status: "declined", provenance: expect.anything() });
  });
});

describe("Codex commands and MCP calls", () => {
  it("a command carries name, command, cwd, output deltas, the whole output and the exit code", async () => {
    const { m, events } = mapper();
    const command = { type: "commandExecution", id: "call_c", command: "/bin/bash -lc 'echo hi'", cwd: "/w", status: "inProgress", aggregatedOutput: null, exitCode: null };
    await m.handle("item/started", { threadId: "thr", item: command });
    await m.handle("item/commandExecution/outputDelta", { threadId: "thr", itemId: "call_c", delta: "h" });
    await m.handle("item/commandExecution/outputDelta", { threadId: "thr", itemId: "call_c", delta: "i\n" });
    await m.handle("item/completed", { threadId: "thr", item: { ...command, status: "failed", aggregatedOutput: "hi\n", exitCode: 3 } });
    expect(events).toEqual([
      expect.objectContaining({ type: "tool.started", kind: "command", name: "commandExecution", command: "/bin/bash -lc 'echo hi'", cwd: "/w", rawInput: { command: "/bin/bash -lc 'echo hi'", cwd: "/w" } }),
      expect.objectContaining({ type: "tool.updated", output: "h" }),
      expect.objectContaining({ type: "tool.updated", output: "i\n" }),
      expect.objectContaining({ type: "tool.completed", status: "failed", output: "hi\n", exitCode: 3 }),
    ]);
    expect(events[0]).not.toHaveProperty("input");
  });

  it("an MCP call names its server and tool, with the arguments as rawInput", async () => {
    const { m, events } = mapper();
    const call = { type: "mcpToolCall", id: "call_m", server: "docs", tool: "search", status: "inProgress", arguments: { q: "x" }, result: null, error: null };
    await m.handle("item/started", { threadId: "thr", item: call });
    await m.handle("item/completed", { threadId: "thr", item: { ...call, status: "completed", result: { content: [{ type: "text", text: "found" }] } } });
    expect(events[0]).toMatchObject({ type: "tool.started", kind: "mcp", name: "search", title: "docs/search", mcp: { server: "docs", tool: "search" }, rawInput: { q: "x" } });
    expect(events[1]).toMatchObject({ type: "tool.completed", status: "completed", output: "found" });
  });
});
