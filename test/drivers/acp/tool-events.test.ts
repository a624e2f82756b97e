/**
 * ACP tool calls → normalized tool events, on the update shapes real agents send (codex-acp,
 * Gemini CLI, claude-agent-acp): name only where the agent gives one, command and cwd from
 * `rawInput`, diff blocks as files with unified diffs, content text as a delta although every
 * update replaces the content whole, and the exit code from `rawOutput`.
 */
import { describe, expect, it } from "vitest";
import { UpdateMapper } from "../../../src/drivers/acp/events.js";
import { readFrame } from "../../../src/driver/lens.js";
import type { DriverEvent } from "../../../src/events/types.js";
import { observeToolFields } from "../tool-fields.js";

function mapper(): { m: UpdateMapper; events: DriverEvent[] } {
  const events: DriverEvent[] = [];
  const m = new UpdateMapper(
    async (event) => {
      events.push(event);
    },
    { id: "acp", name: "ACP" },
    "run_t",
  );
  return { m, events };
}

const feed = async (m: UpdateMapper, ...updates: object[]) => {
  for (const update of updates) await m.handle({ sessionId: "s", update });
};

/** A permission request's tool call, read as the driver reads frames. */
const permissionCall = (value: object) => readFrame<Parameters<UpdateMapper["ensureTool"]>[0]>(value) as Parameters<UpdateMapper["ensureTool"]>[0];

const text = (t: string) => ({ type: "content", content: { type: "text", text: t } });

describe("ACP tool calls", () => {
  it("codex-acp command: command from the argv in rawInput, cwd, whole output and exit code of a failure", async () => {
    const { m, events } = mapper();
    const argv = ["/bin/bash", "-lc", "echo out; exit 3"];
    await feed(
      m,
      { sessionUpdate: "tool_call", toolCallId: "call_1", title: "echo out; exit 3", kind: "execute", status: "in_progress", rawInput: { command: argv, cwd: "/w" } },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "failed", content: [text("```sh\nout\n```\n")], rawOutput: { exit_code: 3, stdout: "out\n" } },
    );
    expect(events).toEqual([
      expect.objectContaining({ type: "tool.started", kind: "command", command: "/bin/bash -lc 'echo out; exit 3'", cwd: "/w", rawInput: { command: argv, cwd: "/w" } }),
      expect.objectContaining({ type: "tool.completed", status: "failed", exitCode: 3, output: "```sh\nout\n```\n" }),
    ]);
    expect(events[0]).not.toHaveProperty("name");
    expect(events[0]).not.toHaveProperty("input");
  });

  it("codex-acp unified exec: a completion without content takes rawOutput's aggregated_output; the output it reports empty stays empty; a completion the turn ended without is cancelled", async () => {
    const { m, events } = mapper();
    const start = (id: string) => ({ sessionUpdate: "tool_call", toolCallId: id, title: "echo start; echo end; exit 3", kind: "execute", status: "in_progress", rawInput: { command: ["/bin/bash", "-lc", "x"], source: "unified_exec_startup" } });
    // The shapes codex-acp 0.16 sent for one command on a loaded machine: Codex's end event
    // carries the transcript its output stream had read by then, which may be nothing.
    const end = (id: string, output: string) => ({
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: "failed",
      rawOutput: { stdout: output, stderr: "", aggregated_output: output, exit_code: 3, formatted_output: output, status: "failed" },
    });
    await feed(m, start("whole"), end("whole", "start\nend\n"), start("empty"), end("empty", ""), start("late"));
    await m.finish();
    const completed = events.filter((e) => e.type === "tool.completed");
    expect(completed).toEqual([
      expect.objectContaining({ callId: "whole", status: "failed", exitCode: 3, output: "start\nend\n" }),
      expect.objectContaining({ callId: "empty", status: "failed", exitCode: 3, output: "" }),
      expect.objectContaining({ callId: "late", status: "cancelled" }),
    ]);
    expect(completed[2]).not.toHaveProperty("exitCode");
  });

  it("codex-acp patch: diff blocks at the start are files (oldText absent → added), repeated unchanged at completion", async () => {
    const { m, events } = mapper();
    const content = [
      { type: "diff", path: "/w/added.txt", newText: "hello\n" },
      { type: "diff", path: "/w/old.txt", oldText: "one\ntwo\n", newText: "one\nTWO\n" },
    ];
    await feed(
      m,
      { sessionUpdate: "tool_call", toolCallId: "call_0", title: "Edit", kind: "edit", status: "in_progress", content, locations: [{ path: "/w/added.txt" }] },
      { sessionUpdate: "tool_call_update", toolCallId: "call_0", status: "completed", content, rawOutput: { stdout: "Success.\n", success: true } },
    );
    const files = [
      { path: "/w/added.txt", change: "added", diff: "--- /dev/null\n+++ b/w/added.txt\n@@ -0,0 +1,1 @@\n+hello\n" },
      { path: "/w/old.txt", change: "modified", diff: "--- a/w/old.txt\n+++ b/w/old.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n" },
    ];
    expect(events.map((e) => e.type)).toEqual(["tool.started", "tool.completed"]);
    expect(events[0]).toMatchObject({ kind: "file_change", files });
    expect(events[1]).toMatchObject({ status: "completed", files });
    for (const event of events) expect(event).not.toHaveProperty("diff");
  });

  it("Gemini CLI: its _meta.kind says added although oldText is empty; no name, command or exit code is invented", async () => {
    const { m, events } = mapper();
    await m.ensureTool(permissionCall({
      toolCallId: "write_file__call_0",
      status: "pending",
      title: "Writing to a.txt",
      kind: "edit",
      content: [{ type: "diff", path: "/w/a.txt", oldText: "", newText: "hi\n", _meta: { kind: "add" } }],
    }));
    await m.ensureTool(permissionCall({ toolCallId: "run_shell_command__call_1", status: "pending", title: "echo out; exit 3", kind: "execute", content: [text("[current working directory /w] (fail)")] }));
    await feed(m, { sessionUpdate: "tool_call_update", toolCallId: "run_shell_command__call_1", status: "completed", title: "echo out; exit 3", content: [], kind: "execute" });
    expect(events[0]).toMatchObject({ type: "tool.started", kind: "file_change", files: [{ path: "/w/a.txt", change: "added", diff: expect.stringContaining("--- /dev/null\n") }] });
    expect(events[1]).toEqual({ type: "tool.started", callId: "run_shell_command__call_1", kind: "command", title: "echo out; exit 3", provenance: expect.anything() });
    expect(events[2]).toEqual({ type: "tool.completed", callId: "run_shell_command__call_1", status: "completed", provenance: expect.anything() });
  });

  it("claude-agent-acp: an empty-input announcement starts with the next update, which brings the input and the diff", async () => {
    const { m, events } = mapper();
    const meta = { claudeCode: { toolName: "Write" } };
    await feed(
      m,
      { _meta: meta, toolCallId: "call_w", sessionUpdate: "tool_call", rawInput: {}, status: "pending", title: "Write", kind: "edit", content: [], locations: [] },
      { _meta: meta, toolCallId: "call_w", sessionUpdate: "tool_call_update", rawInput: { file_path: "/w/p.txt", content: "p\n" }, title: "Write p.txt", kind: "edit", content: [{ type: "diff", path: "/w/p.txt", oldText: null, newText: "p\n" }] },
      { _meta: meta, toolCallId: "call_w", sessionUpdate: "tool_call_update", status: "completed", rawOutput: "File created successfully at: /w/p.txt" },
    );
    expect(events.map((e) => e.type)).toEqual(["tool.started", "tool.completed"]);
    expect(events[0]).toMatchObject({ name: "Write", title: "Write p.txt", rawInput: { file_path: "/w/p.txt" }, files: [{ path: "/w/p.txt", change: "added" }] });
    expect(events[1]).toMatchObject({ status: "completed", output: "File created successfully at: /w/p.txt", files: [{ path: "/w/p.txt", change: "added" }] });
  });

  it("claude-agent-acp shell: the command is known at the start; a held announcement the turn ends on is started and cancelled", async () => {
    const { m, events } = mapper();
    const meta = { claudeCode: { toolName: "Bash" } };
    await feed(
      m,
      { _meta: meta, toolCallId: "b", sessionUpdate: "tool_call", rawInput: {}, status: "pending", title: "Terminal", kind: "execute", content: [] },
      { _meta: meta, toolCallId: "b", sessionUpdate: "tool_call_update", rawInput: { command: "make test", description: "run" }, title: "make test", kind: "execute" },
      { _meta: meta, toolCallId: "h", sessionUpdate: "tool_call", rawInput: {}, status: "pending", title: "Terminal", kind: "execute", content: [] },
    );
    expect(events).toEqual([expect.objectContaining({ type: "tool.started", callId: "b", name: "Bash", command: "make test", title: "make test" })]);
    await m.finish();
    expect(events.slice(1).map((e) => [e.type, (e as { callId: string }).callId])).toEqual([
      ["tool.started", "h"],
      ["tool.completed", "b"],
      ["tool.completed", "h"],
    ]);
  });

  it("the ACP name field wins; content that grows goes out as deltas, replaced content whole", async () => {
    const { m, events } = mapper();
    await feed(
      m,
      { sessionUpdate: "tool_call", toolCallId: "t", name: "bash", title: "run", kind: "execute", status: "in_progress", rawInput: { command: "make" }, _meta: { x: { toolName: "other" } } },
      { sessionUpdate: "tool_call_update", toolCallId: "t", content: [text("line 1\n")] },
      { sessionUpdate: "tool_call_update", toolCallId: "t", content: [text("line 1\nline 2\n")] },
      { sessionUpdate: "tool_call_update", toolCallId: "t", content: [text("line 1\nline 2\n")] },
      { sessionUpdate: "tool_call_update", toolCallId: "t", content: [text("summary\n")] },
      { sessionUpdate: "tool_call_update", toolCallId: "t", status: "completed", rawOutput: { exitCode: 0 } },
    );
    expect(events[0]).toMatchObject({ name: "bash", command: "make" });
    expect(events.filter((e) => e.type === "tool.updated").map((e) => (e as { output?: string }).output)).toEqual(["line 1\n", "line 2\n", "summary\n"]);
    expect(events.at(-1)).toMatchObject({ type: "tool.completed", status: "completed", output: "summary\n", exitCode: 0 });
    expect(observeToolFields(events)).toEqual({
      command: ["started.name", "started.command", "started.rawInput", "updated.output", "completed.output", "completed.exitCode"],
    });
  });

  it("a failed edit lists no changed files at completion", async () => {
    const { m, events } = mapper();
    const content = [{ type: "diff", path: "/w/a.txt", oldText: "a\n", newText: "b\n" }];
    await feed(
      m,
      { sessionUpdate: "tool_call", toolCallId: "e", title: "Edit", kind: "edit", status: "pending", content },
      { sessionUpdate: "tool_call_update", toolCallId: "e", status: "failed", content: [text("permission denied")] },
    );
    expect(events.at(-1)).toEqual({ type: "tool.completed", callId: "e", status: "failed", output: "permission denied", provenance: expect.anything() });
  });
});
