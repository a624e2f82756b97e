/**
 * One tool call's `tool.started` and `tool.completed` in both dialects: the provider's tool name,
 * the command line of a shell tool, the MCP server and tool, the changed files with their diffs,
 * the exit code, and the raw input under `rawInput`.
 */
import { readWorkspaceText, type WorkspaceFileText } from "../../driver/kit/workspace-file.js";
import type { FileChange, ToolCompleted, ToolStarted } from "../../events/types.js";
import { redactThenClip } from "../../redact/clip.js";
import { comparedFiles, fileToolPath, reportedFiles, startFiles } from "./file-changes.js";
import { commandExitCode, commandFailed } from "./tool-results.js";
import { commandOf, effectiveTool, mcpRef, resultText, toolKind, toolTitle } from "./tools.js";

/** Longest tool output carried by an event; the rest is cut with a marker. */
export const MAX_TOOL_OUTPUT_CHARS = 32_000;

/** What ends a tool output cut at {@link MAX_TOOL_OUTPUT_CHARS}. */
const TRUNCATED = "\n[… output truncated]";

const UNAVAILABLE: WorkspaceFileText = { state: "unavailable" };

/** What the mapper keeps of one tool call between its start and its result. */
export interface ToolCall {
  name: string;
  input: unknown;
  started: boolean;
  denied: boolean;
  completed: boolean;
  /** A file tool's file as read at the start, compared with the file at the end when the CLI reports no patch. */
  before?: WorkspaceFileText;
  /** The files announced at the start. */
  startFiles?: FileChange[];
}

/** The run's workspace, where a file tool's file is read (undefined: no file is read). */
export type Workspace = string | undefined;

/** The `tool.started` fields of a call; a file tool's file is read first (the call has not run yet). */
export async function toolStarted(callId: string, call: ToolCall, workspace: Workspace, redact: (text: string) => string): Promise<ToolStarted> {
  const { name, input } = effectiveTool(call.name, call.input);
  const kind = toolKind(name);
  const started: ToolStarted = { callId, kind, name, title: toolTitle(name, input, redact) };
  const command = commandOf(name, input);
  if (command !== undefined) started.command = command;
  const mcp = mcpRef(name);
  if (mcp !== undefined) started.mcp = mcp;
  const path = kind === "file_change" ? fileToolPath(input) : undefined;
  if (path !== undefined) {
    call.before = workspace === undefined ? UNAVAILABLE : await readWorkspaceText(workspace, path);
    call.startFiles = startFiles(name, input, call.before);
    if (call.startFiles !== undefined) started.files = call.startFiles;
  }
  if (input !== undefined) started.rawInput = input;
  return started;
}

/** The `tool.completed` fields of a call from its `tool_result` block and the message's `tool_use_result`. */
export async function toolCompleted(
  callId: string,
  call: ToolCall,
  block: Record<string, unknown>,
  toolUseResult: unknown,
  workspace: Workspace,
  redact: (text: string) => string,
): Promise<ToolCompleted> {
  const kind = toolKind(effectiveTool(call.name, call.input).name);
  const output = resultText(block.content);
  const status: ToolCompleted["status"] =
    block.is_error === true ? (call.denied ? "declined" : "failed") : kind === "command" && commandFailed(block) ? "failed" : "completed";
  const event: ToolCompleted = { callId, status };
  // Redacted before the clip: a secret across the cut would leave its front past redaction.
  if (output !== undefined) event.output = redactThenClip(output, redact, MAX_TOOL_OUTPUT_CHARS + TRUNCATED.length, TRUNCATED);
  if (kind === "command") {
    const exitCode = commandExitCode(block, output, toolUseResult);
    if (exitCode !== undefined) event.exitCode = exitCode;
  }
  if (kind === "file_change" && status === "completed") {
    const files = await completedFiles(call, toolUseResult, workspace);
    if (files !== undefined) event.files = files;
  }
  return event;
}

/** The CLI's report of the change, else the file now compared with its start copy, else the start's paths. */
async function completedFiles(call: ToolCall, toolUseResult: unknown, workspace: Workspace): Promise<FileChange[] | undefined> {
  const reported = reportedFiles(toolUseResult, call.input);
  if (reported !== undefined) return reported;
  const path = fileToolPath(call.input);
  if (path === undefined) return undefined;
  const after = workspace === undefined ? UNAVAILABLE : await readWorkspaceText(workspace, path);
  return comparedFiles(path, call.before ?? UNAVAILABLE, after) ?? call.startFiles?.map((f) => ({ path: f.path, change: f.change }));
}
