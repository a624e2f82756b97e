/**
 * Unified diffs for `file_change` tool events, one per file, bounded. Drivers whose provider
 * reports only a file's new content (or old and new text) compute the diff here, so every driver
 * gives a host the same thing to render.
 */
import { createTwoFilesPatch } from "diff";
import type { FileChange } from "../../events/types.js";

/** Default cap of one file's diff, in UTF-8 bytes. */
export const DEFAULT_DIFF_MAX_BYTES = 64 * 1024;

/** Files larger than this together are not diffed line by line: the cost grows with their size. */
const MAX_DIFFED_BYTES = 4 * 1024 * 1024;

/** Bounds on one computed diff. */
export interface DiffLimits {
  /** Cap of the diff text in UTF-8 bytes (default 64 KiB); past it the diff ends with a marker line. */
  maxBytes?: number;
}

/**
 * One file's change with its unified diff. `before` undefined means the file did not exist
 * (added); `after` undefined means it was removed (deleted).
 */
export function fileChange(path: string, before: string | undefined, after: string | undefined, limits: DiffLimits = {}): FileChange {
  const change: FileChange["change"] = before === undefined ? "added" : after === undefined ? "deleted" : "modified";
  return { path, change, diff: unifiedFileDiff(path, before, after, limits) };
}

/** A unified diff of one file (`--- a/path` / `+++ b/path`, `/dev/null` for an added or deleted side), capped. */
export function unifiedFileDiff(path: string, before: string | undefined, after: string | undefined, limits: DiffLimits = {}): string {
  const maxBytes = limits.maxBytes ?? DEFAULT_DIFF_MAX_BYTES;
  const oldText = before ?? "";
  const newText = after ?? "";
  const oldName = before === undefined ? "/dev/null" : `a/${headerPath(path)}`;
  const newName = after === undefined ? "/dev/null" : `b/${headerPath(path)}`;
  if (Buffer.byteLength(oldText) + Buffer.byteLength(newText) > MAX_DIFFED_BYTES) {
    return `--- ${oldName}\n+++ ${newName}\n${truncationMarker(Buffer.byteLength(newText))}`;
  }
  const patch = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, { context: 3 });
  // jsdiff starts with an `Index:` banner and a `===` rule; a unified diff starts at `---`.
  const start = patch.indexOf("--- ");
  return capDiff(start > 0 ? patch.slice(start) : patch, maxBytes);
}

/**
 * The `---`/`+++` header lines of one file's unified diff: `a/<old>` and `b/<new>`, `/dev/null`
 * for a side that does not exist (undefined). An absolute path keeps one slash after the prefix,
 * as git writes it (`a/abs/path`). For drivers that render a provider's own hunks.
 */
export function diffHeaders(oldPath: string | undefined, newPath: string | undefined): string {
  const oldName = oldPath === undefined ? "/dev/null" : `a/${headerPath(oldPath)}`;
  const newName = newPath === undefined ? "/dev/null" : `b/${headerPath(newPath)}`;
  return `--- ${oldName}\n+++ ${newName}\n`;
}

function headerPath(path: string): string {
  return path.replace(/^\/+/, "");
}

/**
 * `diff` cut at the last whole line within `maxBytes` UTF-8 bytes, followed by the marker line
 * `\ diff truncated: N bytes omitted`; unchanged when it fits.
 */
export function capDiff(diff: string, maxBytes: number = DEFAULT_DIFF_MAX_BYTES): string {
  const bytes = Buffer.from(diff, "utf8");
  if (bytes.length <= maxBytes) return diff;
  let end = bytes.lastIndexOf(0x0a, maxBytes - 1);
  if (end < 0) end = 0;
  else end += 1;
  // Never cut inside a UTF-8 sequence: step back over continuation bytes.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  const kept = bytes.subarray(0, end).toString("utf8");
  return `${kept}${kept === "" || kept.endsWith("\n") ? "" : "\n"}${truncationMarker(bytes.length - end)}`;
}

function truncationMarker(omitted: number): string {
  return `\\ diff truncated: ${omitted} bytes omitted\n`;
}
