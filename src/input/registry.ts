/**
 * Registry of live run-owned input directories. Every ending of a run removes its directory;
 * this is the safety net for the endings no run code sees: the host process exiting, or dying of
 * SIGINT/SIGTERM/SIGHUP without a handler of its own, while a run is still alive (see
 * `onHostExit`). Every directory still registered is then removed synchronously. After a SIGKILL
 * nothing runs: the next start sweeps the directory (see `sweepStaleInputDirectories`).
 */
import { rmSync } from "node:fs";

import { onHostExit } from "../process/host-exit.js";

const live = new Set<string>();
let release: (() => void) | undefined;

function removeAll(): void {
  for (const dir of live) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Nothing more can be done while exiting.
    }
  }
  live.clear();
}

/** Records a live run directory. */
export function registerInputDirectory(dir: string): void {
  live.add(dir);
  release ??= onHostExit(removeAll);
}

/** Forgets a directory once it is removed; with none left, the exit cleanup is released. */
export function unregisterInputDirectory(dir: string): void {
  live.delete(dir);
  if (live.size === 0 && release !== undefined) {
    release();
    release = undefined;
  }
}

/** Number of run-owned input directories created here and not yet removed. */
export function liveInputDirectoryCount(): number {
  return live.size;
}
