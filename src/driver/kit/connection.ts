/**
 * The process side of a driver's connection: spawning the child with exactly the launch
 * settings, and the lifecycle every connection shares (pid, alive, exited, one close).
 */
import { spawnProcess, STOP_ESCALATION, type ProcessExit, type ProcessHandle } from "../../process/index.js";
import type { Redactor } from "../../redact/redact.js";
import type { OwnedConnection } from "./processes.js";

/** How a driver launches its CLI. */
export interface ProcessLaunch {
  command: string;
  args: readonly string[];
  cwd: string;
  /** Explicit variables for the child; `undefined` removes one. */
  env: Readonly<Record<string, string | undefined>>;
  /** Parent variable names passed through on top of the default allowlist. */
  inheritEnv: readonly string[];
  /** Redacts the child's stderr tail. */
  redactor: Redactor;
}

/** Spawns the CLI in its own process group with these launch settings and no other option. */
export function spawnLaunch(launch: ProcessLaunch): Promise<ProcessHandle> {
  return spawnProcess({
    command: launch.command,
    args: launch.args,
    cwd: launch.cwd,
    env: launch.env,
    inheritEnv: launch.inheritEnv,
    redactor: launch.redactor,
  });
}

/**
 * A connection over one child process. It is alive until the process exits or closing begins;
 * `close()` runs the subclass's {@link ProcessConnection.shutdown} once, however often it is called.
 */
export abstract class ProcessConnection implements OwnedConnection {
  readonly process: ProcessHandle;
  #exit: ProcessExit | undefined;
  #closing: Promise<void> | undefined;

  protected constructor(proc: ProcessHandle) {
    this.process = proc;
    void proc.exited.then((exit) => {
      this.#exit = exit;
      this.onExit(exit);
    });
  }

  get pid(): number {
    return this.process.pid;
  }

  get alive(): boolean {
    return this.#exit === undefined && this.#closing === undefined;
  }

  get exited(): Promise<ProcessExit> {
    return this.process.exited;
  }

  /** How the process exited, once it has. */
  protected get exitStatus(): ProcessExit | undefined {
    return this.#exit;
  }

  /** Stops the process and reaps it. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.shutdown();
    return this.#closing;
  }

  /** Called once when the process has exited (after {@link ProcessConnection.exitStatus} is set). */
  protected onExit(_exit: ProcessExit): void {
    // Nothing by default.
  }

  /** The protocol's way of ending the process (end its input, wait, stop the group). */
  protected abstract shutdown(): Promise<void>;
}

/**
 * The first step of stopping a turn the host cancelled ({@link STOP_ESCALATION}): send the
 * protocol's interrupt and give the provider `graceMs` to end its turn. Resolves when the turn
 * ended (the interrupt was answered and `turnEnded` settled, or `turnEnded` settled on its own) or
 * the grace ran out; never rejects. The caller then stops the process group — stdin end and
 * SIGTERM, SIGKILL after the policy's `termGraceMs` — so a provider that ignores everything is
 * gone within about a second.
 */
export async function interruptWithinGrace(
  interrupt: () => Promise<unknown>,
  turnEnded: Promise<unknown>,
  graceMs: number = STOP_ESCALATION.interruptGraceMs,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
  const ended = turnEnded.then(
    () => undefined,
    () => undefined,
  );
  const answered = Promise.resolve()
    .then(interrupt)
    .then(
      () => ended,
      () => ended,
    );
  await Promise.race([answered, ended, grace]);
  clearTimeout(timer);
}
