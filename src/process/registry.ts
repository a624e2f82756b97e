/**
 * Registry of live process groups. Node does not kill children when the host exits, and
 * `detached` children survive even a terminal hang-up; this registry SIGKILLs every group still
 * live when the host process exits, so a crashed or forgetful host leaves no orphans.
 *
 * Only the `exit` event is hooked: installing signal handlers would change the host's own
 * behaviour. A host that handles SIGINT/SIGTERM itself should end with `process.exit()`, which
 * fires `exit`.
 */
import { signalGroup } from "./group.js";

const live = new Set<number>();
let hooked = false;

function killAllOnExit(): void {
  for (const pid of live) signalGroup(pid, "SIGKILL");
  live.clear();
}

/** Records a live group leader. */
export function registerGroup(pid: number): void {
  if (!hooked) {
    process.on("exit", killAllOnExit);
    hooked = true;
  }
  live.add(pid);
}

/** Forgets a group once it is known to be gone. */
export function unregisterGroup(pid: number): void {
  live.delete(pid);
}

/** Number of process groups spawned here that are not yet known to be gone (for tests). */
export function liveProcessCount(): number {
  return live.size;
}
