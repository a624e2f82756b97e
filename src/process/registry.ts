/**
 * Registry of live process groups. Node does not kill children when the host exits, and
 * `detached` children survive even a terminal hang-up; this registry SIGKILLs every group still
 * live when the host ends (see `onHostExit`: `exit`, and SIGINT/SIGTERM/SIGHUP without a host
 * handler), so a crashed or forgetful host leaves no orphans. A host killed outright (SIGKILL)
 * runs nothing: the reaper (see reaper.ts) kills the groups then.
 */
import { signalGroup } from "./group.js";
import { onHostExit } from "./host-exit.js";
import { reaperForget, reaperRelease, reaperWatch } from "./reaper.js";

const live = new Set<number>();
let release: (() => void) | undefined;

function killAll(): void {
  for (const pid of live) signalGroup(pid, "SIGKILL");
  live.clear();
}

/** Records a live group leader. */
export function registerGroup(pid: number): void {
  live.add(pid);
  reaperWatch(pid);
  release ??= onHostExit(killAll);
}

/** Forgets a group once it is known to be gone; with none left, the exit cleanup is released. */
export function unregisterGroup(pid: number): void {
  if (!live.delete(pid)) return;
  reaperForget(pid);
  if (live.size === 0 && release !== undefined) {
    release();
    release = undefined;
    reaperRelease();
  }
}

/** Number of process groups spawned here that are not yet known to be gone (for tests). */
export function liveProcessCount(): number {
  return live.size;
}
