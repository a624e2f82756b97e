/**
 * A bounded, sorted walk of a workspace directory for glob and grep. Symbolic links are listed
 * but never followed (a link cannot lead the walk out of the workspace), `.git` and
 * `node_modules` below the starting directory are skipped, and the walk stops after a number
 * of entries so a huge tree cannot stall a call.
 */
import { constants, type Dirent } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";

import { displayPath } from "./confine.js";
import { isIgnored, parseIgnoreFile, type IgnoreFile } from "./gitignore.js";

/** Directories a walk never enters below its start. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** Entries one walk visits at most. */
export const MAX_WALK_ENTRIES = 200_000;

/** One entry found: `rel` is relative to the walk's start, `/`-separated. */
export interface WalkEntry {
  rel: string;
  path: string;
  dirent: Dirent;
}

export interface WalkOptions {
  signal: AbortSignal;
  /** Skip hidden files and directories (names starting with `.`), as ripgrep does by default. */
  skipHidden?: boolean;
  maxEntries?: number;
  /** Honour .gitignore files from `root` (the workspace's real path) down to each entry. */
  gitignore?: { root: string };
}

/** An ignore file larger than this is not read. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** Whether the last walk stopped at its entry bound. */
export interface WalkState {
  truncated: boolean;
}

/** Entries under `start` (real, absolute), depth first, each directory's entries in name order. */
export async function* walk(start: string, options: WalkOptions, state: WalkState = { truncated: false }): AsyncGenerator<WalkEntry> {
  const budget = { left: options.maxEntries ?? MAX_WALK_ENTRIES };
  let ignores: IgnoreFile[] | undefined;
  let prefix = "";
  if (options.gitignore !== undefined) {
    const rel = displayPath(options.gitignore.root, start);
    prefix = rel === "." ? "" : `${rel}/`;
    ignores = await ancestorIgnores(options.gitignore.root, prefix);
  }
  yield* walkDirectory({ dir: start, rel: "", prefix, ignores }, options, state, budget);
}

interface Directory {
  dir: string;
  /** Relative to the walk's start ("" for the start). */
  rel: string;
  /** The start relative to the root, "" or ending in "/". */
  prefix: string;
  /** Ignore files that apply here, shallowest first; undefined when .gitignore is not honoured. */
  ignores: IgnoreFile[] | undefined;
}

async function* walkDirectory(at: Directory, options: WalkOptions, state: WalkState, budget: { left: number }): AsyncGenerator<WalkEntry> {
  if (options.signal.aborted || state.truncated) return;
  let entries: Dirent[];
  try {
    entries = await readdir(at.dir, { withFileTypes: true });
  } catch {
    return; // unreadable or vanished: not an error of the whole walk
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const fromRoot = at.prefix + (at.rel === "" ? "" : `${at.rel}/`);
  const ignores = at.ignores === undefined ? undefined : await withIgnoreFile(at.ignores, at.dir, fromRoot);
  for (const dirent of entries) {
    if (options.skipHidden && dirent.name.startsWith(".")) continue;
    if (options.signal.aborted || state.truncated) return;
    if (ignores !== undefined && isIgnored(ignores, fromRoot + dirent.name, dirent.isDirectory())) continue;
    if (--budget.left < 0) {
      state.truncated = true;
      return;
    }
    const rel = at.rel === "" ? dirent.name : `${at.rel}/${dirent.name}`;
    const path = join(at.dir, dirent.name);
    yield { rel, path, dirent };
    if (dirent.isDirectory() && !SKIPPED_DIRECTORIES.has(dirent.name)) yield* walkDirectory({ dir: path, rel, prefix: at.prefix, ignores }, options, state, budget);
  }
}

/** The ignore files of the root and every directory between it and the start. */
async function ancestorIgnores(root: string, prefix: string): Promise<IgnoreFile[]> {
  const files: IgnoreFile[] = [];
  const parts = prefix.split("/").filter(Boolean);
  for (let depth = 0; depth < parts.length; depth += 1) {
    const base = parts.slice(0, depth).map((p) => `${p}/`).join("");
    const loaded = await withIgnoreFile(files, join(root, ...parts.slice(0, depth)), base);
    files.splice(0, files.length, ...loaded);
  }
  return files;
}

/** `ignores` plus the .gitignore of `dir` when it has one (a link is not followed). */
async function withIgnoreFile(ignores: IgnoreFile[], dir: string, base: string): Promise<IgnoreFile[]> {
  let handle;
  try {
    handle = await open(join(dir, ".gitignore"), constants.O_RDONLY | constants.O_NOFOLLOW);
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_IGNORE_FILE_BYTES) return ignores;
    return [...ignores, parseIgnoreFile(await handle.readFile("utf8"), base)];
  } catch {
    return ignores;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
