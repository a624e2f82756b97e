/**
 * Pi's built-in tools as normalized tool fields: `bash` (command, its output as deltas, the exit
 * code of a failed command), `edit` and `write` (the file with a unified diff), and the reads.
 *
 * What Pi reports: `tool_execution_update` repeats the command's output so far (a tail window,
 * cut from the front once it is long); a failed command's result ends with `Command exited with
 * code N`, while a successful one says nothing of its code (Pi also counts a command ended by a
 * signal as successful, so none is given); `edit` returns its own line-numbered diff in
 * `details.diff` (converted here to a unified diff); `write` returns only a byte count.
 */
import { capDiff, diffHeaders, fileChange } from "../../driver/kit/diff.js";
import type { WorkspaceFileText } from "../../driver/kit/workspace-file.js";
import { redactThenClip } from "../../redact/clip.js";
import type { FileChange, McpToolRef, ToolKind } from "../../events/types.js";
import { arr, isObject, str } from "../../driver/json.js";

/**
 * The MCP server and tool a Pi tool stands for: the driver's extension registers each MCP tool as
 * `mcp__<server>__<tool>` (see ./extension.ts); `servers` are the names it connected (the longest
 * match wins, as a server name may itself hold `__`).
 */
export function mcpTool(name: string, servers: readonly string[]): McpToolRef | undefined {
  let best: string | undefined;
  for (const server of servers) {
    if (name.startsWith(`mcp__${server}__`) && name.length > server.length + 7 && (best === undefined || server.length > best.length)) best = server;
  }
  return best === undefined ? undefined : { server: best, tool: name.slice(best.length + 7) };
}

/** The canonical kind of one of Pi's tools. */
export function toolKind(name: string): ToolKind {
  if (name === "bash") return "command";
  if (name === "edit" || name === "write") return "file_change";
  if (name === "read" || name === "grep" || name === "find" || name === "ls") return "read";
  return "other";
}

/**
 * A one-line title: the tool and its command, path or pattern. `redact` runs before the cut: a
 * secret across it would leave its front past the redaction of the emitted event.
 */
export function toolTitle(name: string, args: unknown, redact: (text: string) => string = (text) => text): string {
  const field = (key: string) => (isObject(args) ? str(args[key]) : undefined);
  const detail = field("command") ?? field("path") ?? field("pattern");
  if (detail === undefined || detail === "") return name;
  return `${name}: ${redactThenClip(detail.split("\n", 1)[0] ?? "", redact, 200)}`;
}

/** The path an `edit` or `write` call names. */
export function filePath(name: string, args: unknown): string | undefined {
  return toolKind(name) === "file_change" && isObject(args) ? str(args.path) : undefined;
}

/**
 * The part of `current` (the output so far) not in `previous`: the appended text when `current`
 * extends `previous`, else — Pi's window dropped lines from the front — what follows the longest
 * tail of `previous` that `current` starts with; when they share nothing, all of `current`.
 */
export function outputDelta(previous: string, current: string): string {
  if (current.startsWith(previous)) return current.slice(previous.length);
  const firstLineEnd = current.indexOf("\n");
  const firstLine = firstLineEnd < 0 ? current : current.slice(0, firstLineEnd + 1);
  for (let at = previous.indexOf(firstLine); at >= 0; at = previous.indexOf(firstLine, at + 1)) {
    const tail = previous.slice(at);
    if ((at === 0 || previous[at - 1] === "\n") && current.startsWith(tail)) return current.slice(tail.length);
  }
  return current;
}

const EXIT_LINE = /\n?Command exited with code (\d{1,3})$/;

/** The exit code of a failed `bash` result (`Command exited with code N` at its end). */
export function failedExitCode(output: string | undefined): number | undefined {
  const match = output === undefined ? null : EXIT_LINE.exec(output);
  return match ? Number(match[1]) : undefined;
}

/** The `(oldText, newText)` replacements of an `edit` call, in either of Pi's shapes. */
function edits(args: Record<string, unknown>): { oldText: string; newText: string }[] {
  const list = arr(args.edits).filter(isObject);
  if (typeof args.oldText === "string" && typeof args.newText === "string") list.push({ oldText: args.oldText, newText: args.newText });
  return list.flatMap((e) => (typeof e.oldText === "string" && typeof e.newText === "string" && e.oldText !== "" ? [{ oldText: e.oldText, newText: e.newText }] : []));
}

/** The files a call will change as known at its start (the file was read before it ran). */
export function startFiles(name: string, args: unknown, before: WorkspaceFileText): FileChange[] | undefined {
  const path = filePath(name, args);
  if (path === undefined || !isObject(args)) return undefined;
  if (name === "write") {
    const content = str(args.content);
    if (content === undefined || before.state === "unavailable") return undefined;
    // The same text before and after: Pi may have written it before the read. Modified, no diff.
    if (before.state === "text" && before.text === content) return [{ path, change: "modified" }];
    return [fileChange(path, before.state === "text" ? before.text : undefined, content)];
  }
  // `edit` changes an existing file; its diff when every replacement applies once.
  if (before.state !== "text") return [{ path, change: "modified" }];
  let text = before.text;
  for (const edit of edits(args)) {
    if (text.split(edit.oldText).length !== 2) return [{ path, change: "modified" }];
    text = text.replace(edit.oldText, () => edit.newText);
  }
  return [fileChange(path, before.text, text)];
}

/** The files a successful call changed: `write` diffed against the start's copy, `edit` from Pi's own diff. */
export function completedFiles(name: string, args: unknown, before: WorkspaceFileText, details: unknown): FileChange[] | undefined {
  const path = filePath(name, args);
  if (path === undefined) return undefined;
  if (name === "write") return startFiles(name, args, before);
  const piDiff = isObject(details) ? str(details.diff) : undefined;
  const diff = piDiff === undefined ? undefined : unifiedFromPiDiff(path, piDiff);
  return [diff === undefined ? { path, change: "modified" } : { path, change: "modified", diff }];
}

interface PiLine {
  mark: "+" | "-" | " ";
  number: number;
  text: string;
}

const PI_LINE = /^([+\- ])\s*(\d+) (.*)$/;
const PI_ELISION = /^ \s*\.\.\.$/;

/** Splits Pi's diff (`+N text`, `-N text`, ` N text`, and ` ...` between distant hunks) into hunks. */
function piHunks(diff: string): PiLine[][] | undefined {
  const hunks: PiLine[][] = [[]];
  for (const line of diff.split("\n")) {
    if (PI_ELISION.test(line)) {
      if (hunks.at(-1)!.length > 0) hunks.push([]);
      continue;
    }
    const match = PI_LINE.exec(line);
    if (match === null) return undefined;
    hunks.at(-1)!.push({ mark: match[1] as PiLine["mark"], number: Number(match[2]), text: match[3]! });
  }
  return hunks.filter((h) => h.length > 0);
}

/**
 * A unified diff from Pi's edit diff. Pi numbers context and removed lines in the old file and
 * added lines in the new one; a hunk's start in the other file follows from the lines added and
 * removed before it. Undefined when the text is not in that shape.
 */
export function unifiedFromPiDiff(path: string, diff: string): string | undefined {
  const hunks = piHunks(diff);
  if (hunks === undefined || hunks.length === 0) return undefined;
  let shift = 0; // new line number minus old line number before the hunk
  let body = "";
  for (const hunk of hunks) {
    const first = hunk[0]!;
    const oldStart = first.mark === "+" ? first.number - shift : first.number;
    const oldLines = hunk.filter((l) => l.mark !== "+").length;
    const newLines = hunk.filter((l) => l.mark !== "-").length;
    const newStart = oldStart + shift;
    body += `@@ -${oldLines === 0 ? oldStart - 1 : oldStart},${oldLines} +${newLines === 0 ? newStart - 1 : newStart},${newLines} @@\n`;
    body += hunk.map((l) => `${l.mark}${l.text}\n`).join("");
    shift += newLines - oldLines;
  }
  return capDiff(`${diffHeaders(path, path)}${body}`);
}
