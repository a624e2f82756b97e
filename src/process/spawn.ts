/**
 * Child supervision (DESIGN §10, §13): start a provider CLI in its own process group with a
 * scrubbed environment, keep a bounded redacted stderr tail, and stop the whole tree gracefully
 * and idempotently.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { Readable, Writable } from "node:stream";

import { ConfigError, ExecutableNotFoundError } from "../errors/index.js";
import { createRedactor, type Redactor } from "../redact/redact.js";
import { buildChildEnv } from "./env.js";
import { groupAlive, signalGroup } from "./group.js";
import { registerGroup, unregisterGroup } from "./registry.js";
import { TailBuffer } from "./tail-buffer.js";

/** Default bound of the stderr tail. */
export const DEFAULT_STDERR_TAIL_BYTES = 64 * 1024;
/**
 * How a provider that is told to stop is escalated (issue #14): the protocol's interrupt, then
 * {@link StopEscalation.interruptGraceMs} for the turn to end; then stdin is closed and the group
 * gets SIGTERM, then {@link StopEscalation.termGraceMs} before SIGKILL. Short on purpose: a
 * cooperative CLI ends its turn and exits well within them, and one that ignores all of it is
 * gone within about a second.
 */
export interface StopEscalation {
  /** After the interrupt, how long the provider gets to end its turn before the group is stopped. */
  interruptGraceMs: number;
  /** After stdin end and SIGTERM, how long the group gets to exit before SIGKILL. */
  termGraceMs: number;
}

/** The one escalation policy every driver's stop follows. */
export const STOP_ESCALATION: Readonly<StopEscalation> = Object.freeze({ interruptGraceMs: 250, termGraceMs: 500 });

/** Default time between SIGTERM and SIGKILL ({@link STOP_ESCALATION}'s `termGraceMs`). */
export const DEFAULT_STOP_GRACE_MS = STOP_ESCALATION.termGraceMs;

/** How often a stop checks whether the group has emptied: signal 0 is cheap, groups have no event. */
const GROUP_POLL_MS = 25;
/**
 * How long a stop waits after SIGKILL for the group to vanish, and then for stderr to close so the
 * tail is complete. Only a descendant that left the group (setsid) can hold the pipe open longer;
 * then it is let go.
 */
const STDIO_SETTLE_MS = 1000;
/**
 * A child whose stdout reached end of file can no longer answer: after this long without exiting
 * it is stopped (with the same grace again before SIGKILL), so a reader waiting for its exit
 * fails within about two seconds instead of never.
 */
export const OUTPUT_CLOSED_EXIT_MS = 1000;

export interface SpawnProcessOptions {
  command: string;
  args?: readonly string[];
  cwd?: string;
  /** Explicit variables for the child; they win over inherited ones. `undefined` removes one. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Parent variable names passed through on top of the default allowlist. */
  inheritEnv?: readonly string[];
  /** Bound of {@link ProcessHandle.stderrTail}, in bytes. Default 64 KiB. */
  stderrTailBytes?: number;
  /** Redacts the stderr tail. Default: secrets from the parent's and the child's environment. */
  redactor?: Redactor;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when it was stopped because it closed its stdout yet kept running. */
  outputClosed?: true;
}

export interface StopOptions {
  /** Time allowed between SIGTERM and SIGKILL. Default {@link DEFAULT_STOP_GRACE_MS}. */
  graceMs?: number;
}

/** A running child that leads its own process group. */
export interface ProcessHandle {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /**
   * Resolves (never rejects) once the child has exited and been reaped. A child that closes its
   * stdout and does not exit within {@link OUTPUT_CLOSED_EXIT_MS} is stopped, so this settles.
   */
  readonly exited: Promise<ProcessExit>;
  /** The exit status, once known. */
  readonly exitStatus: ProcessExit | undefined;
  /** The last bytes the child wrote to stderr, as redacted text; complete once `stop()` resolved. */
  stderrTail(): string;
  /**
   * Closes stdin, SIGTERMs the group, waits up to `graceMs` for it to empty, SIGKILLs what is
   * left and awaits the child's reaping. Safe to call repeatedly and concurrently.
   */
  stop(options?: StopOptions): Promise<void>;
}

/** Alias of {@link ProcessHandle}. */
export type ManagedProcess = ProcessHandle;

/**
 * Starts `command` as a process-group leader with piped stdio. Rejects promptly with
 * {@link ExecutableNotFoundError} when it cannot be started (missing, not executable, ...).
 */
export async function spawnProcess(options: SpawnProcessOptions): Promise<ProcessHandle> {
  const env = buildChildEnv(process.env, { inheritEnv: options.inheritEnv, env: options.env });
  const redactor = options.redactor ?? createRedactor({ env: { ...process.env, ...env } });

  let child: ChildProcess;
  try {
    child = spawn(options.command, options.args ?? [], {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
  } catch (err) {
    throw startFailure(options.command, err);
  }

  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" && options.cwd !== undefined && !(await isDirectory(options.cwd))) {
      throw new ConfigError(`the working directory does not exist: ${options.cwd}`);
    }
    throw startFailure(options.command, err);
  }
  return new ChildHandle(child, exited, options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES, redactor);
}

function startFailure(command: string, err: unknown): ExecutableNotFoundError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const name = basename(command);
  const error =
    code === "ENOENT"
      ? new ExecutableNotFoundError(command, `executable not found: ${name}`)
      : new ExecutableNotFoundError(command, `could not start ${name}${code ? ` (${code})` : ""}`);
  // Keep the cause for debugging without putting it in the message.
  Object.defineProperty(error, "cause", { value: err, enumerable: false, configurable: true, writable: true });
  return error;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

class ChildHandle implements ProcessHandle {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly exited: Promise<ProcessExit>;
  #exitStatus: ProcessExit | undefined;
  readonly #tail: TailBuffer;
  readonly #redactor: Redactor;
  readonly #child: ChildProcess;
  readonly #stderrClosed: Promise<void>;
  #stopping: Promise<void> | undefined;
  #outputClosed = false;

  constructor(child: ChildProcess, exited: Promise<ProcessExit>, tailBytes: number, redactor: Redactor) {
    this.pid = child.pid!;
    this.stdin = child.stdin!;
    this.stdout = child.stdout!;
    this.exited = exited.then((status) => (this.#outputClosed ? { ...status, outputClosed: true } : status));
    this.#tail = new TailBuffer(tailBytes);
    this.#redactor = redactor;
    this.#child = child;
    this.#stderrClosed = new Promise((resolve) => child.stderr!.once("close", resolve));

    // Late errors (EPIPE on a dead child's stdin, ...) must never crash the host; consumers that
    // iterate a stream still see its failure.
    child.on("error", () => {});
    child.stdin!.on("error", () => {});
    child.stdout!.on("error", () => {});
    child.stderr!.on("error", () => {});
    // Always drain stderr, or a chatty child blocks on a full pipe.
    child.stderr!.on("data", (chunk: Buffer) => this.#tail.push(chunk));
    // 'end' is end of file read by a consumer, never a destroy: every byte before it was read.
    child.stdout!.once("end", () => this.#watchExitAfterOutputEnd());

    registerGroup(this.pid);
    void this.exited.then((status) => {
      this.#exitStatus = status;
      // Descendants may outlive the leader; keep the group registered until it is empty.
      if (!groupAlive(this.pid)) unregisterGroup(this.pid);
    });
  }

  get exitStatus(): ProcessExit | undefined {
    return this.#exitStatus;
  }

  stderrTail(): string {
    return this.#redactor.redactText(this.#tail.text());
  }

  #watchExitAfterOutputEnd(): void {
    if (this.#exitStatus !== undefined || this.#stopping !== undefined) return;
    const timer = setTimeout(() => {
      if (this.#exitStatus !== undefined || this.#stopping !== undefined) return;
      this.#outputClosed = true;
      void this.stop({ graceMs: OUTPUT_CLOSED_EXIT_MS });
    }, OUTPUT_CLOSED_EXIT_MS);
    timer.unref();
    void this.exited.then(() => clearTimeout(timer));
  }

  stop(options: StopOptions = {}): Promise<void> {
    this.#stopping ??= this.#stop(options.graceMs ?? DEFAULT_STOP_GRACE_MS);
    return this.#stopping;
  }

  async #stop(graceMs: number): Promise<void> {
    const pid = this.pid;
    // Many CLIs exit on their own at end of input.
    if (!this.stdin.destroyed) {
      try {
        this.stdin.end();
      } catch {
        // Already failing; the signals below still apply.
      }
    }
    if (signalGroup(pid, "SIGTERM")) {
      const deadline = Date.now() + Math.max(0, graceMs);
      let leaderGone = this.#exitStatus !== undefined;
      void this.exited.then(() => (leaderGone = true));
      while (Date.now() < deadline && (!leaderGone || groupAlive(pid))) {
        const poll = sleep(Math.min(GROUP_POLL_MS, Math.max(1, deadline - Date.now())));
        // Woken by the leader's exit too: the group is usually empty by then, so a stop that
        // worked returns at once instead of up to one poll interval later.
        await (leaderGone ? poll : Promise.race([poll, this.exited]));
      }
      signalGroup(pid, "SIGKILL");
    }
    await this.exited;
    // SIGKILL is delivered asynchronously: wait until the rest of the group is really gone.
    const killDeadline = Date.now() + STDIO_SETTLE_MS;
    while (Date.now() < killDeadline && groupAlive(pid)) await sleep(GROUP_POLL_MS);
    unregisterGroup(pid);
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      this.#stderrClosed.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STDIO_SETTLE_MS))),
    ]);
    clearTimeout(timer);
    if (!settled) {
      this.#child.stdout?.destroy();
      this.#child.stderr?.destroy();
    }
  }
}
