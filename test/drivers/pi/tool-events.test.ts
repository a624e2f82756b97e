/**
 * Normalized tool events of the Pi mapper, fed events shaped as real Pi 0.73 sent them on the lane
 * (bash updates repeating the output so far, `Command exited with code N`, edit's own diff in
 * `details.diff`), against a real temporary workspace.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPatch } from "diff";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PiEventMapper } from "../../../src/drivers/pi/events.js";
import { outputDelta, unifiedFromPiDiff } from "../../../src/drivers/pi/tools.js";
import type { DriverEvent } from "../../../src/events/types.js";
// Pi's own diff writer, to check the conversion against what Pi really produces.
import { generateDiffString } from "../../../node_modules/@mariozechner/pi-coding-agent/dist/core/tools/edit-diff.js";

type Started = Extract<DriverEvent, { type: "tool.started" }>;
type Completed = Extract<DriverEvent, { type: "tool.completed" }>;

let workspace: string;
let events: DriverEvent[];
let mapper: PiEventMapper;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "aa-pi-tools-"));
  events = [];
  mapper = new PiEventMapper(async (event) => void events.push(event), workspace);
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const started = (id: string) => events.find((e): e is Started => e.type === "tool.started" && e.callId === id)!;
const completed = (id: string) => events.find((e): e is Completed => e.type === "tool.completed" && e.callId === id)!;
const updates = (id: string) => events.flatMap((e) => (e.type === "tool.updated" && e.callId === id ? [e.output] : []));

/** The model streamed the call (Pi's `toolcall_end`), then Pi runs it. */
const streamed = (id: string, name: string, args: unknown) =>
  mapper.handle({ type: "message_update", assistantMessageEvent: { type: "toolcall_end", contentIndex: 0, toolCall: { type: "toolCall", id, name, arguments: args } } });
const start = (id: string, name: string, args: unknown) => mapper.handle({ type: "tool_execution_start", toolCallId: id, toolName: name, args });
const update = (id: string, text: string) => mapper.handle({ type: "tool_execution_update", toolCallId: id, toolName: "bash", partialResult: { content: text === "" ? [] : [{ type: "text", text }] } });
const end = (id: string, name: string, text: string, isError: boolean, details?: unknown) =>
  mapper.handle({ type: "tool_execution_end", toolCallId: id, toolName: name, result: { content: [{ type: "text", text }], ...(details ? { details } : {}) }, isError });

describe("pi tool events: bash", () => {
  it("command, title and rawInput at the start; the repeated output sent on as deltas; a failed command's exit code", async () => {
    const args = { command: "for i in 1 2 3; do echo line$i; done; exit 3" };
    await start("call_0", "bash", args);
    for (const text of ["", "line1\n", "line1\nline2\n", "line1\nline2\nline3\n"]) await update("call_0", text);
    await end("call_0", "bash", "line1\nline2\nline3\n\n\nCommand exited with code 3", true);
    expect(started("call_0")).toMatchObject({ kind: "command", name: "bash", title: `bash: ${args.command}`, command: args.command, rawInput: args });
    expect(started("call_0")).not.toHaveProperty("input");
    expect(updates("call_0")).toEqual(["line1\n", "line2\n", "line3\n"]);
    expect(completed("call_0")).toMatchObject({ status: "failed", exitCode: 3, output: "line1\nline2\nline3\n\n\nCommand exited with code 3" });
  });

  it("a successful command has no exit code: Pi does not report it", async () => {
    await start("call_1", "bash", { command: "echo ok" });
    await end("call_1", "bash", "ok\n", false);
    expect(completed("call_1")).toMatchObject({ status: "completed", output: "ok\n" });
    expect(completed("call_1")).not.toHaveProperty("exitCode");
  });

  it("output deltas survive Pi's tail window dropping lines from the front", () => {
    expect(outputDelta("", "a\n")).toBe("a\n");
    expect(outputDelta("a\nb\n", "a\nb\nc\n")).toBe("c\n");
    expect(outputDelta("a\nb\nc\n", "b\nc\nd\ne\n")).toBe("d\ne\n");
    expect(outputDelta("x\ny\n", "y\nz\n")).toBe("z\n");
    // Nothing shared: the whole window is new.
    expect(outputDelta("a\n", "q\nr\n")).toBe("q\nr\n");
  });
});

describe("pi tool events: write and edit", () => {
  it("write of a new file: added with a /dev/null diff, the file read while the model streamed the call", async () => {
    const args = { path: "new.txt", content: "one\ntwo\n" };
    await streamed("call_w", "write", args);
    await start("call_w", "write", args);
    await writeFile(join(workspace, "new.txt"), args.content);
    await end("call_w", "write", "Successfully wrote 8 bytes to new.txt", false);
    const expected = [{ path: "new.txt", change: "added", diff: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n" }];
    expect(started("call_w").files).toEqual(expected);
    expect(completed("call_w").files).toEqual(expected);
  });

  it("write over an existing file: modified, diffed against the file read before Pi ran the call", async () => {
    await writeFile(join(workspace, "old.txt"), "alpha\nbeta\n");
    const args = { path: "old.txt", content: "alpha\nBETA\n" };
    await streamed("call_u", "write", args);
    // Pi runs the call before its start event is read: the copy from the streamed call is the one used.
    await writeFile(join(workspace, "old.txt"), args.content);
    await start("call_u", "write", args);
    await end("call_u", "write", "Successfully wrote 11 bytes to old.txt", false);
    expect(completed("call_u").files).toEqual([{ path: "old.txt", change: "modified", diff: "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n" }]);
  });

  it("edit: modified, its diff converted from Pi's own", async () => {
    await writeFile(join(workspace, "edit.txt"), "a\nb\nc\n");
    const args = { path: "edit.txt", edits: [{ oldText: "b", newText: "B" }] };
    await streamed("call_e", "edit", args);
    await start("call_e", "edit", args);
    await end("call_e", "edit", "Successfully replaced 1 block(s) in edit.txt.", false, { diff: " 1 a\n-2 b\n+2 B\n 3 c", firstChangedLine: 2 });
    const diff = "--- a/edit.txt\n+++ b/edit.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    expect(started("call_e").files).toEqual([{ path: "edit.txt", change: "modified", diff }]);
    expect(completed("call_e").files).toEqual([{ path: "edit.txt", change: "modified", diff }]);
  });

  it("a failed edit reports no files", async () => {
    await start("call_x", "edit", { path: "missing.txt", edits: [{ oldText: "a", newText: "b" }] });
    await end("call_x", "edit", "Could not edit file: missing.txt. Error code: ENOENT.", true);
    expect(completed("call_x")).toMatchObject({ status: "failed" });
    expect(completed("call_x")).not.toHaveProperty("files");
  });

  it("Pi's diff converted to a unified diff applies to the old file and gives the new one (distant hunks, inserts, deletes)", async () => {
    const old = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const cases = [
      old.replace("line 3\n", "line three\nline 3b\n").replace("line 30\n", ""),
      old.replace("line 1\n", "first\n").replace("line 40\n", "last\n"),
      old.replace("line 20\n", "line 20\nadded a\nadded b\n"),
      `zero\n${old}`,
    ];
    for (const now of cases) {
      const piDiff = generateDiffString(old, now).diff;
      const unified = unifiedFromPiDiff("f.txt", piDiff);
      expect(unified, piDiff).toBeDefined();
      expect(applyPatch(old, unified!), `${piDiff}\n---\n${unified}`).toBe(now);
    }
  });
});

describe("pi tool events: confinement", () => {
  it("a write outside the workspace is not read: no files are claimed", async () => {
    const outside = await mkdtemp(join(tmpdir(), "aa-pi-out-"));
    try {
      const args = { path: join(outside, "f.txt"), content: "x\n" };
      await streamed("call_o", "write", args);
      await start("call_o", "write", args);
      await end("call_o", "write", "ok", false);
      expect(started("call_o")).not.toHaveProperty("files");
      expect(completed("call_o")).not.toHaveProperty("files");
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe("a secret in a long command line", () => {
  it("is redacted before the title is cut, so no part of it is left past the cut", async () => {
    const key = "Zq8Kx2mP9vL4nR7tW1yB5cH3jF6gD0sA";
    const redacting = new PiEventMapper(async (event) => void events.push(event), workspace, [], (text) => text.split(key).join("[REDACTED]"));
    // The title keeps the command line's first 199 characters: 22 of them are the key's unless it is redacted first.
    const command = `${"y".repeat(176)} ${key} and more`;
    await redacting.handle({ type: "tool_execution_start", toolCallId: "call_k", toolName: "bash", args: { command } });
    const title = started("call_k").title ?? "";
    expect(title).toContain("[REDACTED]");
    expect(title).not.toContain(key.slice(0, 8));
  });
});
