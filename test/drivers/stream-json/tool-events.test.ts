/**
 * Normalized tool events of the stream-json mapper (Claude Code and CodeBuddy), fed frames shaped
 * as the real CLIs sent them on the lane (the `tool_use_result` and `_meta.rawResponse` payloads are
 * copied from Claude Code 2.1 and CodeBuddy 2.117 runs), against a real temporary workspace.
 */
import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TurnMapper } from "../../../src/drivers/stream-json/turn.js";
import type { DriverEvent } from "../../../src/events/types.js";

/** A diff header names an absolute path with one slash after its a/ or b/ prefix, as git does. */
const headerPath = (path: string): string => path.replace(/^\/+/, "");

type Started = Extract<DriverEvent, { type: "tool.started" }>;
type Completed = Extract<DriverEvent, { type: "tool.completed" }>;

let workspace: string;
let outside: string;
let events: DriverEvent[];
let mapper: TurnMapper;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "aa-tools-ws-"));
  outside = await mkdtemp(join(tmpdir(), "aa-tools-out-"));
  events = [];
  mapper = new TurnMapper({ emit: (event) => void events.push(event) }, "claude", (text) => text, undefined, workspace);
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const toolUse = (id: string, name: string, input: unknown) =>
  mapper.handle({ type: "assistant", message: { id: `msg_${id}`, content: [{ type: "tool_use", id, name, input }] }, parent_tool_use_id: null });

const toolResult = (id: string, content: unknown, extra: { isError?: boolean; toolUseResult?: unknown; meta?: unknown } = {}) =>
  mapper.handle({
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, ...(extra.isError !== undefined ? { is_error: extra.isError } : {}), ...(extra.meta ? { _meta: extra.meta } : {}) }] },
    parent_tool_use_id: null,
    ...(extra.toolUseResult !== undefined ? { tool_use_result: extra.toolUseResult } : {}),
  });

const started = (id: string) => events.find((e): e is Started => e.type === "tool.started" && e.callId === id)!;
const completed = (id: string) => events.find((e): e is Completed => e.type === "tool.completed" && e.callId === id)!;

describe("stream-json tool events: commands", () => {
  it("a Bash call: name, kind, command, rawInput (no deprecated input, no guessed cwd); exit 0 from a plain success", async () => {
    const input = { command: "echo ok", description: "ok" };
    await toolUse("call_ok", "Bash", input);
    await toolResult("call_ok", "ok", { isError: false, toolUseResult: { stdout: "ok", stderr: "", interrupted: false, isImage: false, noOutputExpected: false } });
    expect(started("call_ok")).toMatchObject({ kind: "command", name: "Bash", title: "Bash: echo ok", command: "echo ok", rawInput: input });
    expect(started("call_ok")).not.toHaveProperty("input");
    expect(started("call_ok")).not.toHaveProperty("cwd");
    expect(completed("call_ok")).toMatchObject({ status: "completed", output: "ok", exitCode: 0 });
  });

  it("Claude Code's failed Bash result: the exit code from its `Exit code N` text, status failed", async () => {
    await toolUse("call_fail", "Bash", { command: "echo out; echo err >&2; exit 3" });
    await toolResult("call_fail", "Exit code 3\nout\nerr", { isError: true, toolUseResult: "Error: Exit code 3\nout\nerr" });
    expect(completed("call_fail")).toMatchObject({ status: "failed", exitCode: 3, output: "Exit code 3\nout\nerr" });
  });

  it("no exit code when Claude Code does not say it: a returnCodeInterpretation, an interrupt, a backgrounded command, an error without the line", async () => {
    const cases: [string, unknown, boolean][] = [
      ["call_grep", { stdout: "", stderr: "", interrupted: false, returnCodeInterpretation: "No matches found" }, false],
      ["call_int", { stdout: "", stderr: "", interrupted: true }, false],
      ["call_bg", { stdout: "", stderr: "", interrupted: false, backgroundTaskId: "b1" }, false],
      ["call_err", "Error: something else", true],
    ];
    for (const [id, toolUseResult, isError] of cases) {
      await toolUse(id, "Bash", { command: "grep x /dev/null" });
      await toolResult(id, "text", { isError, toolUseResult });
      expect(completed(id), id).not.toHaveProperty("exitCode");
    }
  });

  it("CodeBuddy states the exit code in _meta.rawResponse; a non-zero exit is failed although the block says is_error false", async () => {
    await toolUse("call_cb", "Bash", { command: "exit 3" });
    await toolResult("call_cb", [{ type: "text", text: "Command: exit 3\nExit Code: 3" }], {
      isError: false,
      meta: { rawResponse: { exitCode: 3, signal: null, interrupted: false, is_error: true, tool_error_code: "8002" } },
    });
    await toolUse("call_cb0", "Bash", { command: "echo ok" });
    await toolResult("call_cb0", [{ type: "text", text: "Command: echo ok\nExit Code: 0" }], { isError: false, meta: { rawResponse: { exitCode: 0, signal: null, interrupted: false } } });
    expect(completed("call_cb")).toMatchObject({ status: "failed", exitCode: 3 });
    expect(completed("call_cb0")).toMatchObject({ status: "completed", exitCode: 0 });
  });
});

describe("stream-json tool events: MCP", () => {
  it("splits mcp__<server>__<tool> at the first `__` after the server", async () => {
    await toolUse("call_m1", "mcp__docs__search", { q: "x" });
    await toolUse("call_m2", "mcp__srv__tool__with__parts", {});
    expect(started("call_m1")).toMatchObject({ kind: "mcp", name: "mcp__docs__search", mcp: { server: "docs", tool: "search" }, title: "docs: search", rawInput: { q: "x" } });
    expect(started("call_m2").mcp).toEqual({ server: "srv", tool: "tool__with__parts" });
  });
});

describe("stream-json tool events: file changes from Claude Code's tool_use_result", () => {
  it("Write of a new file: added, at the start and at the end, with a /dev/null diff naming the file", async () => {
    const path = join(workspace, "new.txt");
    await toolUse("call_w", "Write", { file_path: path, content: "one\ntwo\n" });
    await writeFile(path, "one\ntwo\n");
    await toolResult("call_w", `File created successfully at: ${path}`, { toolUseResult: { type: "create", filePath: path, content: "one\ntwo\n", structuredPatch: [], originalFile: null } });
    const expected = { path, change: "added", diff: `--- /dev/null\n+++ b/${headerPath(path)}\n@@ -0,0 +1,2 @@\n+one\n+two\n` };
    expect(started("call_w").files).toEqual([expected]);
    expect(completed("call_w")).toMatchObject({ status: "completed", files: [expected] });
  });

  it("Write over an existing file: modified, diffed against the reported original", async () => {
    const path = join(workspace, "old.txt");
    await writeFile(path, "alpha\nbeta\n");
    await toolUse("call_u", "Write", { file_path: path, content: "alpha\nBETA\n" });
    await toolResult("call_u", "updated", { toolUseResult: { type: "update", filePath: path, content: "alpha\nBETA\n", originalFile: "alpha\nbeta\n", structuredPatch: [] } });
    const diff = `--- a/${headerPath(path)}\n+++ b/${headerPath(path)}\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n`;
    expect(started("call_u").files).toEqual([{ path, change: "modified", diff }]);
    expect(completed("call_u").files).toEqual([{ path, change: "modified", diff }]);
  });

  it("Edit: modified, the end's diff rendered from the CLI's structuredPatch", async () => {
    const path = join(workspace, "edit.txt");
    await writeFile(path, "a\nb\nc\n");
    await toolUse("call_e", "Edit", { file_path: path, old_string: "b", new_string: "B" });
    await toolResult("call_e", "updated", {
      toolUseResult: { filePath: path, oldString: "b", newString: "B", originalFile: "a\nb\nc\n", structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" a", "-b", "+B", " c"] }] },
    });
    const diff = `--- a/${headerPath(path)}\n+++ b/${headerPath(path)}\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n`;
    expect(started("call_e").files).toEqual([{ path, change: "modified", diff }]);
    expect(completed("call_e").files).toEqual([{ path, change: "modified", diff }]);
  });

  it("NotebookEdit: the notebook diffed from the reported original_file and updated_file", async () => {
    const path = join(workspace, "n.ipynb");
    const before = '{\n "cells": [\n  "a"\n ]\n}\n';
    const after = '{\n "cells": [\n  "b"\n ]\n}\n';
    await writeFile(path, before);
    await toolUse("call_nb", "NotebookEdit", { notebook_path: path, cell_id: "c1", new_source: "b" });
    await toolResult("call_nb", "Updated cell c1", {
      toolUseResult: { new_source: "b", cell_id: "c1", cell_type: "code", language: "python", edit_mode: "replace", notebook_path: path, original_file: before, updated_file: after },
    });
    expect(started("call_nb").files).toEqual([{ path, change: "modified" }]);
    expect(completed("call_nb").files).toEqual([{ path, change: "modified", diff: `--- a/${headerPath(path)}\n+++ b/${headerPath(path)}\n@@ -1,5 +1,5 @@\n {\n  "cells": [\n-  "a"\n+  "b"\n  ]\n }\n` }]);
  });

  it("a failed or declined file call reports no changed files", async () => {
    const path = join(workspace, "x.txt");
    await toolUse("call_f", "Write", { file_path: path, content: "x" });
    await toolResult("call_f", "<tool_use_error>nope</tool_use_error>", { isError: true });
    expect(completed("call_f")).toMatchObject({ status: "failed" });
    expect(completed("call_f")).not.toHaveProperty("files");
  });
});

describe("stream-json tool events: file changes compared from the workspace (CodeBuddy reports no patch)", () => {
  beforeEach(() => {
    mapper = new TurnMapper({ emit: (event) => void events.push(event) }, "codebuddy", (text) => text, undefined, workspace);
  });

  it("a created file is added, an overwritten one modified, an untouched one changes nothing", async () => {
    await writeFile(join(workspace, "old.txt"), "alpha\nbeta\n");
    await writeFile(join(workspace, "same.txt"), "same\n");
    await toolUse("call_new", "Write", { file_path: join(workspace, "new.txt"), content: "fresh\n" });
    await toolUse("call_old", "Write", { file_path: "old.txt", content: "alpha\nBETA\n" });
    await toolUse("call_same", "Edit", { file_path: join(workspace, "same.txt"), old_string: "same", new_string: "other" });
    // The CLI runs the tools after they were announced.
    await writeFile(join(workspace, "new.txt"), "fresh\n");
    await writeFile(join(workspace, "old.txt"), "alpha\nBETA\n");
    for (const id of ["call_new", "call_old", "call_same"]) await toolResult(id, [{ type: "text", text: "done" }], { isError: false });
    expect(completed("call_new").files).toEqual([{ path: join(workspace, "new.txt"), change: "added", diff: `--- /dev/null\n+++ b/${headerPath(join(workspace, "new.txt"))}\n@@ -0,0 +1,1 @@\n+fresh\n` }]);
    expect(completed("call_old").files).toEqual([{ path: "old.txt", change: "modified", diff: "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n" }]);
    // CodeBuddy refused the Edit in its result text, yet said is_error false: the file is unchanged.
    expect(completed("call_same").files).toEqual([]);
  });

  it("never reads through a symbolic link or outside the workspace: the change is named without a diff", async () => {
    await writeFile(join(outside, "secret.txt"), "outside content\n");
    await symlink(join(outside, "secret.txt"), join(workspace, "link.txt"));
    await symlink(outside, join(workspace, "dir"));
    await toolUse("call_link", "Edit", { file_path: join(workspace, "link.txt"), old_string: "outside", new_string: "x" });
    await toolUse("call_dir", "Edit", { file_path: join(workspace, "dir", "secret.txt"), old_string: "outside", new_string: "x" });
    await toolUse("call_abs", "Write", { file_path: join(outside, "secret.txt"), content: "new\n" });
    for (const id of ["call_link", "call_dir", "call_abs"]) await toolResult(id, "done", { isError: false });
    expect(started("call_link").files).toEqual([{ path: join(workspace, "link.txt"), change: "modified" }]);
    expect(started("call_dir").files).toEqual([{ path: join(workspace, "dir", "secret.txt"), change: "modified" }]);
    expect(started("call_abs")).not.toHaveProperty("files");
    expect(completed("call_link").files).toEqual([{ path: join(workspace, "link.txt"), change: "modified" }]);
    expect(completed("call_abs")).not.toHaveProperty("files");
    expect(JSON.stringify(events)).not.toContain("outside content");
  });

  it("a file above the size cap or a binary file is not diffed", async () => {
    await mkdir(join(workspace, "sub"));
    await writeFile(join(workspace, "sub", "big.txt"), "x".repeat(1024 * 1024 + 1));
    await writeFile(join(workspace, "bin.dat"), Buffer.from([1, 0, 2]));
    await toolUse("call_big", "Edit", { file_path: join(workspace, "sub", "big.txt"), old_string: "x", new_string: "y" });
    await toolUse("call_bin", "Edit", { file_path: join(workspace, "bin.dat"), old_string: "a", new_string: "b" });
    expect(started("call_big").files).toEqual([{ path: join(workspace, "sub", "big.txt"), change: "modified" }]);
    expect(started("call_bin").files).toEqual([{ path: join(workspace, "bin.dat"), change: "modified" }]);
  });
});
