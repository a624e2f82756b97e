/**
 * Registry of live process groups. Node does not kill children when the host exits, and
 * `detached` children survive even a terminal hang-up; this registry SIGKILLs every group still
 * live when the host process exits, so a crashed or forgetful host leaves no orphans.
 *
 * A host killed by SIGINT, SIGTERM or SIGHUP with no handler of its own never fires `exit`.
 * While groups are live, the registry therefore listens for those signals too: when it is the
 * only listener (the host would have died by default), it kills the groups and re-raises the
 * signal so the host still dies of it. A host with its own handler keeps full control and should
 * end with `process.exit()`, which fires `exit`.
 */
import { signalGroup } from "./group.js";

const live = new Set<number>();
const TERMINATING_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
let hooked = false;

function killAll(): void {
  for (const pid of live) signalGroup(pid, "SIGKILL");
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return; // the host handles it
  killAll();
  unhook();
  process.kill(process.pid, signal);
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", killAll);
  for (const signal of TERMINATING_SIGNALS) process.on(signal, onSignal);
}

function unhook(): void {
  if (!hooked) return;
  hooked = false;
  process.off("exit", killAll);
  for (const signal of TERMINATING_SIGNALS) process.off(signal, onSignal);
}

/** Records a live group leader. */
export function registerGroup(pid: number): void {
  live.add(pid);
  hook();
}

/** Forgets a group once it is known to be gone; with none left, the host's signals are its own again. */
export function unregisterGroup(pid: number): void {
  live.delete(pid);
  if (live.size === 0) unhook();
}

/** Number of process groups spawned here that are not yet known to be gone (for tests). */
export function liveProcessCount(): number {
  return live.size;
}
