/**
 * The grep tool's search without ripgrep, writing what rg writes: `path:line:text` in path order,
 * hidden files, node_modules, binary files and .gitignore'd paths skipped, links not followed,
 * long lines cut with rg's marker. The pattern is a JavaScript regular expression.
 */
import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
import { Worker } from "node:worker_threads";

import { displayPath } from "./confine.js";
import { parseRule } from "./gitignore.js";
import type { GrepQuery, GrepResult } from "./grep-types.js";
import { LONG_LINE_MARKER, MAX_GREP_COLUMNS, MAX_GREP_LINES } from "./grep-types.js";
import { looksBinary } from "./files.js";
import { redactThenClip } from "../../../redact/clip.js";
import { walk, type WalkState } from "./walk.js";

/** Files larger than this are not searched by the JS search. */
export const MAX_JS_SEARCH_FILE_BYTES = 32 * 1024 * 1024;

/** The pattern as a JavaScript regular expression, or the reason it is not one. */
export function compilePattern(pattern: string, ignoreCase: boolean): RegExp | string {
  const flags = ignoreCase ? "i" : "";
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    try {
      return new RegExp(pattern, flags);
    } catch (error) {
      // V8's message already says what it is ("Invalid regular expression: /(/: Unterminated group").
      const message = (error as Error).message;
      return /^invalid regular expression/i.test(message) ? message : `invalid regular expression: ${message}`;
    }
  }
}

/** Searches `start` (the real path of `query.path`) under `root`. */
export async function searchWithJs(query: GrepQuery, root: string, start: string, signal: AbortSignal, redact?: (text: string) => string): Promise<GrepResult> {
  const regex = compilePattern(query.pattern, query.ignoreCase);
  if (typeof regex === "string") return { lines: [], more: false, error: regex };
  const accept = globFilter(query.glob);
  const result: GrepResult = { lines: [], more: false };
  const state: WalkState = { truncated: false };
  const matcher = new LineMatcher(regex, signal);
  try {
    const files = (await stat(start)).isDirectory() ? walkFiles(root, start, signal, state) : single(start);
    for await (const file of files) {
      const rel = displayPath(root, file);
      if (!accept(rel)) continue;
      if (!(await searchFile(file, rel, matcher, result, redact))) break;
      if (signal.aborted) return { ...result, error: "cancelled" };
    }
  } catch (error) {
    if (signal.aborted) return { ...result, error: "cancelled" };
    throw error;
  } finally {
    await matcher.close();
  }
  if (signal.aborted) return { ...result, error: "cancelled" };
  if (state.truncated) result.walkTruncated = true;
  return result;
}

/** Tests a file's lines against the pattern in a worker thread (see {@link LineMatcher}). */
const MATCHER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on("message", (text) => {
  const lines = text.split("\\n");
  if (lines.at(-1) === "") lines.pop();
  const hits = [];
  for (let i = 0; i < lines.length; i++) if (regex.test(lines[i])) hits.push(i);
  parentPort.postMessage(hits);
});
`;

/**
 * The pattern comes from the model: a JavaScript regular expression can backtrack for hours on
 * one line (`^(a+)+$`), and on the host's thread it would freeze the whole process, its cancel
 * included. So lines are tested in a worker, one search's worker for all its files, and a cancel
 * terminates it at once.
 */
class LineMatcher {
  readonly #worker: Worker;
  readonly #failed: Promise<never>;
  readonly #signal: AbortSignal;
  #stop: () => void = () => undefined;

  constructor(regex: RegExp, signal: AbortSignal) {
    this.#signal = signal;
    this.#worker = new Worker(MATCHER_SOURCE, { eval: true, workerData: { source: regex.source, flags: regex.flags } });
    this.#failed = new Promise<never>((_, reject) => {
      this.#stop = (): void => {
        reject(signal.reason ?? new Error("aborted"));
        void this.#worker.terminate();
      };
      if (signal.aborted) this.#stop();
      else signal.addEventListener("abort", this.#stop, { once: true });
      this.#worker.once("error", reject);
      this.#worker.once("exit", () => reject(new Error("the search worker stopped")));
    });
    this.#failed.catch(() => undefined);
  }

  /** The 0-based indexes of the lines of `text` that match. */
  match(text: string): Promise<number[]> {
    const hits = new Promise<number[]>((resolve) => this.#worker.once("message", resolve));
    this.#worker.postMessage(text);
    return Promise.race([hits, this.#failed]);
  }

  async close(): Promise<void> {
    this.#signal.removeEventListener("abort", this.#stop);
    await this.#worker.terminate();
  }
}

async function* single(path: string): AsyncGenerator<string> {
  yield path;
}

async function* walkFiles(root: string, start: string, signal: AbortSignal, state: WalkState): AsyncGenerator<string> {
  for await (const entry of walk(start, { signal, skipHidden: true, gitignore: { root } }, state)) {
    if (entry.dirent.isFile()) yield entry.path;
  }
}

/** rg's `--glob`: gitignore syntax relative to the workspace; `!` excludes, a plain glob is required. */
function globFilter(glob: string | undefined): (rel: string) => boolean {
  const rule = glob === undefined ? undefined : parseRule(glob);
  if (rule === undefined) return () => true;
  if (!rule.negate) return (rel) => rule.matcher.test(rel);
  return (rel) => {
    // An excluded directory excludes everything below it.
    const parts = rel.split("/");
    for (let i = 1; i <= parts.length; i += 1) {
      const isDirectory = i < parts.length;
      if ((!rule.dirOnly || isDirectory) && rule.matcher.test(parts.slice(0, i).join("/"))) return false;
    }
    return true;
  };
}

/** Appends the file's matching lines; false once the cap is reached. */
async function searchFile(path: string, rel: string, matcher: LineMatcher, result: GrepResult, redact?: (text: string) => string): Promise<boolean> {
  let bytes: Buffer;
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > MAX_JS_SEARCH_FILE_BYTES) return true;
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch {
    return true; // unreadable: skipped, as rg does with --no-messages
  }
  if (looksBinary(bytes)) return true;
  const text = bytes.toString("utf8");
  const hits = await matcher.match(text);
  if (hits.length === 0) return true;
  const lines = text.split("\n");
  for (const i of hits) {
    const line = lines[i]!;
    if (result.lines.length >= MAX_GREP_LINES) {
      result.more = true;
      return false;
    }
    const cut = line.length > MAX_GREP_COLUMNS;
    const shown = cut ? line.slice(0, MAX_GREP_COLUMNS) + LONG_LINE_MARKER : line;
    if (cut && redact !== undefined) result.published ??= [...result.lines];
    result.published?.push(`${rel}:${i + 1}:${cut && redact !== undefined ? redactThenClip(line, redact, MAX_GREP_COLUMNS, "") + LONG_LINE_MARKER : shown}`);
    result.lines.push(`${rel}:${i + 1}:${shown}`);
  }
  return true;
}
