/**
 * A bounded, sorted walk of a workspace directory for glob and grep. Symbolic links are listed
 * but never followed (a link cannot lead the walk out of the workspace), `.git` and
 * `node_modules` below the starting directory are skipped, and the walk stops after a number
 * of entries so a huge tree cannot stall a call.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

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
}

/** Whether the last walk stopped at its entry bound. */
export interface WalkState {
  truncated: boolean;
}

/** Entries under `start` (real, absolute), depth first, each directory's entries in name order. */
export async function* walk(start: string, options: WalkOptions, state: WalkState = { truncated: false }): AsyncGenerator<WalkEntry> {
  const budget = { left: options.maxEntries ?? MAX_WALK_ENTRIES };
  yield* walkDirectory(start, "", options, state, budget);
}

async function* walkDirectory(dir: string, rel: string, options: WalkOptions, state: WalkState, budget: { left: number }): AsyncGenerator<WalkEntry> {
  if (options.signal.aborted || state.truncated) return;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // unreadable or vanished: not an error of the whole walk
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dirent of entries) {
    if (options.skipHidden && dirent.name.startsWith(".")) continue;
    if (options.signal.aborted || state.truncated) return;
    if (--budget.left < 0) {
      state.truncated = true;
      return;
    }
    const entryRel = rel === "" ? dirent.name : `${rel}/${dirent.name}`;
    const path = join(dir, dirent.name);
    yield { rel: entryRel, path, dirent };
    if (dirent.isDirectory() && !SKIPPED_DIRECTORIES.has(dirent.name)) yield* walkDirectory(path, entryRel, options, state, budget);
  }
}
