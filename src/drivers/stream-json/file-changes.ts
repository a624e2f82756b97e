/**
 * The files a file tool (Write, Edit, MultiEdit, NotebookEdit) changes, with one unified diff
 * each. At the start: the change the call asks for, diffed against the file as it is then (read
 * from the workspace, bounded, see the kit's workspace-file). At the end: what the CLI reports —
 * Claude Code's `tool_use_result` carries the previous content (`originalFile`) and the patch
 * (`structuredPatch`) — or, when it reports neither (CodeBuddy), the file read again and diffed
 * against the start's copy.
 */
import { capDiff, diffHeaders, fileChange } from "../../driver/kit/diff.js";
import type { WorkspaceFileText } from "../../driver/kit/workspace-file.js";
import type { FileChange } from "../../events/types.js";
import { isObject, str, type Json } from "./wire.js";

/** The file a file tool names (`file_path`, or `notebook_path` for NotebookEdit). */
export function fileToolPath(input: unknown): string | undefined {
  if (!isObject(input)) return undefined;
  return str(input.file_path) ?? str(input.notebook_path);
}

/** One `old_string` → `new_string` replacement as Edit applies it; undefined when it cannot apply. */
function replace(text: string, edit: unknown): string | undefined {
  if (!isObject(edit)) return undefined;
  const oldString = str(edit.old_string);
  const newString = str(edit.new_string);
  if (oldString === undefined || newString === undefined || oldString === "" || !text.includes(oldString)) return undefined;
  return edit.replace_all === true ? text.split(oldString).join(newString) : text.replace(oldString, () => newString);
}

/** The content the call asks for, given the file's current text; undefined when it cannot be told. */
function requestedContent(name: string, input: Json, before: string): string | undefined {
  if (name === "Write") return str(input.content);
  if (name === "Edit") return replace(before, input);
  if (name === "MultiEdit" && Array.isArray(input.edits)) {
    let text: string | undefined = before;
    for (const edit of input.edits) text = text === undefined ? undefined : replace(text, edit);
    return text;
  }
  return undefined;
}

/** A file that does not exist yet: Write creates it, and Edit does with an empty `old_string`. */
function createdContent(name: string, input: Json): string | undefined {
  if (name === "Write") return str(input.content);
  if (name === "Edit" && input.old_string === "") return str(input.new_string);
  return undefined;
}

/** The files a call will change as known at its start, or undefined when not known. */
export function startFiles(name: string, input: unknown, before: WorkspaceFileText): FileChange[] | undefined {
  const path = fileToolPath(input);
  if (path === undefined || !isObject(input)) return undefined;
  if (before.state === "absent") {
    const created = createdContent(name, input);
    return created === undefined ? undefined : [fileChange(path, undefined, created)];
  }
  if (before.state === "text") {
    const after = requestedContent(name, input, before.text);
    return [after === undefined ? { path, change: "modified" } : fileChange(path, before.text, after)];
  }
  // Unreadable here: only an edit is known to change an existing file.
  return name === "Write" ? undefined : [{ path, change: "modified" }];
}

/** One hunk of Claude Code's `structuredPatch`. */
interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

function hunks(value: unknown): Hunk[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: Hunk[] = [];
  for (const h of value) {
    if (!isObject(h) || !Array.isArray(h.lines)) return undefined;
    const [oldStart, oldLines, newStart, newLines] = [h.oldStart, h.oldLines, h.newStart, h.newLines];
    if (typeof oldStart !== "number" || typeof oldLines !== "number" || typeof newStart !== "number" || typeof newLines !== "number") return undefined;
    out.push({ oldStart, oldLines, newStart, newLines, lines: h.lines.filter((l): l is string => typeof l === "string") });
  }
  return out;
}

/** A unified diff of `path` from the CLI's hunks, with the same headers and cap as the kit's diffs. */
export function patchDiff(path: string, change: FileChange["change"], patch: Hunk[]): string {
  const body = patch.map((h) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.map((l) => `${l}\n`).join("")}`).join("");
  return capDiff(`${diffHeaders(change === "added" ? undefined : path, change === "deleted" ? undefined : path)}${body}`);
}

/**
 * The files a completed call changed as Claude Code's `tool_use_result` reports them, or
 * undefined when the result is not one of its file results (then the caller compares contents).
 */
export function reportedFiles(result: unknown, input: unknown): FileChange[] | undefined {
  if (!isObject(result)) return undefined;
  if (str(result.notebook_path) !== undefined) return notebookFiles(result, input);
  if (str(result.filePath) === undefined) return undefined;
  const path = fileToolPath(input) ?? str(result.filePath)!;
  const original = result.originalFile;
  const content = str(result.content);
  const patch = hunks(result.structuredPatch);
  if (result.type === "create" && content !== undefined) return [fileChange(path, undefined, content)];
  if (result.type === "update" && content !== undefined && typeof original === "string") {
    return original === content ? [] : [fileChange(path, original, content)];
  }
  if (result.type !== "update" && patch === undefined) return undefined;
  // An update too large to keep its previous content, or an Edit: the CLI's patch is the diff.
  // An Edit without previous content and with an empty old_string created the file.
  const change: FileChange["change"] = original === null && result.oldString === "" ? "added" : "modified";
  return [patch !== undefined && patch.length > 0 ? { path, change, diff: patchDiff(path, change, patch) } : { path, change }];
}

/** NotebookEdit's result: the whole notebook before and after (its JSON), unless it reports an error. */
function notebookFiles(result: Json, input: unknown): FileChange[] | undefined {
  const path = fileToolPath(input) ?? str(result.notebook_path)!;
  const [before, after] = [result.original_file, result.updated_file];
  if (str(result.error) !== undefined || typeof before !== "string" || typeof after !== "string") return undefined;
  return before === after ? [] : [fileChange(path, before, after)];
}

/** The change between two reads of one file, or undefined when either read could not tell. */
export function comparedFiles(path: string, before: WorkspaceFileText, after: WorkspaceFileText): FileChange[] | undefined {
  if (before.state === "unavailable" || after.state === "unavailable") return undefined;
  const old = before.state === "text" ? before.text : undefined;
  const now = after.state === "text" ? after.text : undefined;
  if (old === now) return [];
  return [fileChange(path, old, now)];
}
