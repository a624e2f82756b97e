/**
 * Host paths kept out of what a remote client reads. A library error is written for the host's
 * own logs and may name the workspace, a store file or an executable; the server's answers must
 * not tell a client where things live on the host.
 */
import type { ThreadMismatch } from "../errors/index.js";

/** What a path reads as in an answer. */
export const PATH_PLACEHOLDER = "<path>";

/**
 * An absolute path inside free text: a `file:` URL, a POSIX path (a `/` that does not follow a
 * word, `:`, `.` or another `/`, so URLs, `a/b` and `run/session` stay), `~/…`, a drive path or
 * a UNC path. Quotes and whitespace end it.
 */
const ABSOLUTE_PATH = /file:\/\/[^\s"'`]*|(?<![\w.:/~-])~?(?:\/[^\s"'`/]+)+\/?|(?<![\w])[A-Za-z]:[\\/][^\s"'`]*|\\\\[^\s"'`\\]+(?:\\[^\s"'`\\]+)*/g;

/** `text` with every absolute path in it replaced by {@link PATH_PLACEHOLDER}. */
export function hidePaths(text: string): string {
  return text.replace(ABSOLUTE_PATH, PATH_PLACEHOLDER);
}

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
