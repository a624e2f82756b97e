/** The grep tool's ripgrep backend: `rg` found on PATH (or given), run in the workspace. */
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { StringDecoder } from "node:string_decoder";

import { runCommand } from "./command.js";
import type { GrepQuery, GrepResult } from "./grep-types.js";
import { MAX_GREP_LINES, MAX_GREP_COLUMNS } from "./grep-types.js";

/** The first executable `rg` on PATH, or undefined. */
export async function findRipgrep(path: string | undefined = process.env.PATH): Promise<string | undefined> {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, process.platform === "win32" ? "rg.exe" : "rg");
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The arguments of one search; the path is relative to the workspace, which is rg's directory. */
export function ripgrepArgs(query: GrepQuery): string[] {
  const args = ["--no-config", "--line-number", "--with-filename", "--no-heading", "--color=never", "--sort=path"];
  args.push(`--max-columns=${MAX_GREP_COLUMNS}`, "--max-columns-preview", "--no-require-git", "--glob=!node_modules");
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.glob !== undefined) args.push(`--glob=${query.glob}`);
  // Always a path: without one rg would read its (closed) stdin. `.` makes it print `./` first.
  args.push("--regexp", query.pattern, "--", query.path);
  return args;
}

/** Runs ripgrep and keeps the first {@link MAX_GREP_LINES} lines of matches. */
export async function searchWithRipgrep(rg: string, query: GrepQuery, root: string, signal: AbortSignal): Promise<GrepResult> {
  const lines: string[] = [];
  let pending = "";
  let more = false;
  const decoder = new StringDecoder("utf8");
  const end = await runCommand({
    command: rg,
    args: ripgrepArgs(query),
    cwd: root,
    signal,
    onData: (chunk, stop) => {
      if (more) return;
      pending += decoder.write(chunk);
      const parts = pending.split("\n");
      pending = parts.pop()!;
      for (const line of parts) {
        if (lines.length >= MAX_GREP_LINES) {
          more = true;
          stop();
          return;
        }
        lines.push(stripDot(line));
      }
    },
  });
  if (end.stopped === "cancel") return { lines, more, error: "cancelled" };
  pending += decoder.end();
  if (pending !== "" && !more && lines.length < MAX_GREP_LINES) lines.push(stripDot(pending));
  if (end.exitCode === 2 && lines.length === 0) return { lines, more, error: firstLines(end.stderr) || "ripgrep failed" };
  return { lines, more };
}

function stripDot(line: string): string {
  return line.startsWith("./") ? line.slice(2) : line;
}

function firstLines(text: string): string {
  return text.trim().split("\n").slice(0, 6).join("\n");
}
