/**
 * Codex file changes → normalized `FileChange`s with one unified diff per file. Codex's
 * `FileUpdateChange.diff` is not one format: for `add` it is the new file's whole content, for
 * `delete` the removed content, for `update` the hunks without `---`/`+++` headers (a move appends
 * `Moved to: <path>`). Each is turned into a real unified diff here, bounded by the kit's cap.
 */
import type { FileChange } from "../../events/types.js";
import { capDiff, diffHeaders, fileChange } from "../../driver/kit/diff.js";
import { list, open, str, type Unchecked } from "../../driver/lens.js";
import type { FileUpdateChange } from "./protocol/v2/FileUpdateChange.js";

/** A file change of an item, as far as Codex described it. */
export interface FileChangeSummary {
  path?: string;
  /** `add`, `delete` or `update`. */
  kind?: string;
  /** Codex's own `diff` text (see the module comment for its shape per kind). */
  diff?: string;
  /** `update` with a move: the new path. */
  movePath?: string;
}

export function fileChangeSummaries(changes: Unchecked<FileUpdateChange[]> | undefined): FileChangeSummary[] {
  return list(changes).flatMap((entry) => {
    const change = open(entry);
    if (change === undefined) return [];
    const summary: FileChangeSummary = {};
    const path = str(change.path);
    const kind = open(change.kind);
    const type = str(kind?.type);
    const movePath = kind !== undefined && "move_path" in kind ? str(kind.move_path) : undefined;
    const diff = str(change.diff);
    if (path !== undefined) summary.path = path;
    if (type !== undefined) summary.kind = type;
    if (diff !== undefined) summary.diff = diff;
    if (movePath !== undefined) summary.movePath = movePath;
    return [summary];
  });
}

/** An `update`'s hunks under `---`/`+++` headers, without the `Moved to:` trailer of a move. */
function updateDiff(from: string, to: string, hunks: string, movePath: string | undefined): string {
  let body = hunks;
  const trailer = movePath === undefined ? undefined : `Moved to: ${movePath}`;
  if (trailer !== undefined && body.endsWith(trailer)) body = body.slice(0, -trailer.length).replace(/\n+$/, "");
  if (body !== "" && !body.endsWith("\n")) body += "\n";
  return capDiff(`${diffHeaders(from, to)}${body}`);
}

/** One Codex change as a normalized file change; undefined when it names no path. */
export function normalizeFileChange(summary: FileChangeSummary): FileChange | undefined {
  const path = summary.path;
  if (path === undefined) return undefined;
  const text = summary.diff;
  switch (summary.kind) {
    case "add":
      return text === undefined ? { path, change: "added" } : fileChange(path, undefined, text);
    case "delete":
      return text === undefined ? { path, change: "deleted" } : fileChange(path, text, undefined);
    default: {
      const to = summary.movePath ?? path;
      const file: FileChange = { path: to, change: "modified" };
      if (summary.movePath !== undefined) file.movedFrom = path;
      if (text !== undefined) file.diff = updateDiff(path, to, text, summary.movePath);
      return file;
    }
  }
}

/** Every change of an item that names a path, normalized. */
export function normalizeFileChanges(summaries: readonly FileChangeSummary[]): FileChange[] {
  return summaries.map(normalizeFileChange).filter((f): f is FileChange => f !== undefined);
}
