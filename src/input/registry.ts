/**
 * Registry of live run-owned input directories. Every ending of a run removes its directory;
 * this is the safety net for the one ending no code runs after: the host process exiting while a
 * run is still alive. On `exit` every directory still registered is removed synchronously.
 *
 * Only the `exit` event is hooked (installing signal handlers would change the host's own
 * behaviour); a host that handles SIGINT/SIGTERM itself should end with `process.exit()`.
 */
import { rmSync } from "node:fs";

const live = new Set<string>();
let hooked = false;

function removeAllOnExit(): void {
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
  if (!hooked) {
    process.on("exit", removeAllOnExit);
    hooked = true;
  }
  live.add(dir);
}

/** Forgets a directory once it is removed. */
export function unregisterInputDirectory(dir: string): void {
  live.delete(dir);
}

/** Number of run-owned input directories created here and not yet removed. */
export function liveInputDirectoryCount(): number {
  return live.size;
}
