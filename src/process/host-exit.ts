/**
 * Cleanups that must run however the host process ends: on `exit` (including `process.exit()`
 * and an uncaught exception), and on SIGINT, SIGTERM or SIGHUP when the host has no handler of
 * its own, which would otherwise kill it without firing `exit`.
 *
 * One shared listener per signal, so that several cleanups (process groups, input directories)
 * never mistake each other for a host handler. When the host has its own handler it keeps full
 * control and should end with `process.exit()`, which fires `exit`.
 *
 * SIGKILL cannot be caught: the group reaper and the stale-directory sweep cover it.
 */
const TERMINATING_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

const cleanups = new Set<() => void>();
let hooked = false;

function runAll(): void {
  for (const cleanup of [...cleanups]) {
    try {
      cleanup();
    } catch {
      // Nothing more can be done while exiting.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return; // the host handles it
  runAll();
  unhook();
  // Die of the signal, as the host would have without this listener.
  process.kill(process.pid, signal);
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", runAll);
  for (const signal of TERMINATING_SIGNALS) process.on(signal, onSignal);
}

function unhook(): void {
  if (!hooked) return;
  hooked = false;
  process.off("exit", runAll);
  for (const signal of TERMINATING_SIGNALS) process.off(signal, onSignal);
}

/**
 * Runs `cleanup` (synchronously) when the host ends, until the returned function is called. With
 * no cleanup registered, the host's signals are its own again.
 */
export function onHostExit(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  hook();
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0) unhook();
  };
}
