/** What the grep tool's two backends (ripgrep and the JS search) share. */

/** Lines of matches one call returns at most. */
export const MAX_GREP_LINES = 500;
/** Characters of a matching line shown; the rest is replaced by ripgrep's marker. */
export const MAX_GREP_COLUMNS = 500;
/** ripgrep's marker of a cut line, which the JS search writes too. */
export const LONG_LINE_MARKER = " [... omitted end of long line]";

/** One search. `path` is relative to the workspace (`.` for all of it). */
export interface GrepQuery {
  pattern: string;
  path: string;
  glob?: string;
  ignoreCase: boolean;
}

/** `path:line:text` lines in path order; `more` when the cap cut them. */
export interface GrepResult {
  lines: string[];
  more: boolean;
  /** A message for the model (a bad pattern, a cancel). */
  error?: string;
  /** The JS search stopped at its entry bound. */
  walkTruncated?: boolean;
  /** `lines` for events, once a line was cut: each cut line redacted before its cut (see `ToolOutcome.published`). */
  published?: string[];
}
