/**
 * A unified diff as lines the console colours: file headers, hunk headers, added, removed and
 * context lines, and notes such as `\ No newline at end of file` or the library's
 * `\ diff truncated: N bytes omitted`.
 */

export type DiffLineKind = "meta" | "hunk" | "add" | "del" | "ctx" | "note";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/** Classify each line of `diff`. A trailing newline does not make an empty last line. */
export function parseUnifiedDiff(diff: string): DiffLine[] {
  const lines = diff.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  let inHunk = false;
  return lines.map((text): DiffLine => {
    if (text.startsWith("@@")) {
      inHunk = true;
      return { kind: "hunk", text };
    }
    if (text.startsWith("\\")) return { kind: "note", text };
    // Headers come before the first hunk; inside a hunk a "---" line is a removed "--" line.
    if (!inHunk || text.startsWith("diff ")) {
      if (text.startsWith("diff ")) inHunk = false;
      return { kind: "meta", text };
    }
    if (text.startsWith("+")) return { kind: "add", text };
    if (text.startsWith("-")) return { kind: "del", text };
    return { kind: "ctx", text };
  });
}

/** How many lines `diff` adds and removes. */
export function diffStat(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.kind === "add") added++;
    else if (line.kind === "del") removed++;
  }
  return { added, removed };
}
