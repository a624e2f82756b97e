/**
 * Host paths in the server's answers: the text rule is shared with the bridges
 * (redact/hide-paths.ts); a thread mismatch also hides values that are paths as a whole.
 */
import type { ThreadMismatch } from "../errors/index.js";
import { hidePaths, PATH_PLACEHOLDER } from "../redact/hide-paths.js";

export { hidePaths, PATH_PLACEHOLDER };

/** Whether a setting's value is a path as a whole (it then reads as the placeholder, spaces and all). */
function isPathValue(value: string): boolean {
  const trimmed = value.trim();
  return /^(?:file:\/\/|~?\/|[A-Za-z]:[\\/]|\\\\)/.test(trimmed);
}

/**
 * A thread mismatch as a client may read it: the dimension and the setting's name kept, a value
 * of the workspace dimension or one that is a path replaced whole, paths inside other values
 * replaced.
 */
export function clientMismatch(m: ThreadMismatch): ThreadMismatch {
  const value = (v: string): string => (m.dimension === "workspace" || isPathValue(v) ? PATH_PLACEHOLDER : hidePaths(v));
  return { dimension: m.dimension, setting: hidePaths(m.setting), recorded: value(m.recorded), current: value(m.current) };
}
