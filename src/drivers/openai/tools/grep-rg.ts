/** The grep tool's ripgrep backend: `rg` found on PATH (or given), run in the workspace. */
import { constants } from "node:fs";
import { access, open } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { StringDecoder } from "node:string_decoder";

import { runCommand } from "./command.js";
import type { GrepQuery, GrepResult } from "./grep-types.js";
import { LONG_LINE_MARKER, MAX_GREP_LINES, MAX_GREP_COLUMNS } from "./grep-types.js";
import { redactThenClip } from "../../../redact/clip.js";

/** A file rg cut a line of is read again for its event copy only up to this size. */
const MAX_REREAD_BYTES = 32 * 1024 * 1024;

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

/**
 * `result` with `published` lines when rg cut a long line itself (see `ToolOutcome.published`): a
 * secret across rg's cut would leave its front, so each cut line is read again from its file,
 * redacted, then cut. A line that cannot be found again is withheld from the copy.
 */
export async function publishCutLines(result: GrepResult, root: string, redact: (text: string) => string): Promise<GrepResult> {
  if (!result.lines.some((line) => line.endsWith(LONG_LINE_MARKER))) return result;
  const files = new Map<string, string[] | undefined>();
  const published: string[] = [];
  for (const line of result.lines) published.push(line.endsWith(LONG_LINE_MARKER) ? await republished(line, root, files, redact) : line);
  return { ...result, published };
}

async function republished(line: string, root: string, files: Map<string, string[] | undefined>, redact: (text: string) => string): Promise<string> {
  const preview = (rest: string) => rest.slice(0, -LONG_LINE_MARKER.length);
  // `path:line:text`, where the path may hold `:digits:` itself: each split is tried in turn.
  for (const match of line.matchAll(/:(\d+):/g)) {
    const path = line.slice(0, match.index);
    const shown = preview(line.slice(match.index + match[0].length));
    let lines = files.get(path);
    if (!files.has(path)) {
      lines = await fileLines(join(root, path));
      files.set(path, lines);
    }
    const real = lines?.[Number(match[1]) - 1];
    if (real !== undefined && real.startsWith(shown)) return `${path}:${match[1]}:${redactThenClip(real, redact, MAX_GREP_COLUMNS, "")}${LONG_LINE_MARKER}`;
  }
  const numbered = /^(.*?:\d+:)/.exec(line);
  return `${numbered?.[1] ?? ""}[long line withheld]${LONG_LINE_MARKER}`;
}

async function fileLines(path: string): Promise<string[] | undefined> {
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > MAX_REREAD_BYTES) return undefined;
      return (await handle.readFile("utf8")).split(/\r?\n/);
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

function stripDot(line: string): string {
  return line.startsWith("./") ? line.slice(2) : line;
}

function firstLines(text: string): string {
  return text.trim().split("\n").slice(0, 6).join("\n");
}
