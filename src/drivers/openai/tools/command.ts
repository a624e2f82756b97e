/**
 * One child process for a tool (a shell command, ripgrep): its own process group through
 * src/process, stdin closed, stdout streamed to the caller, a timeout, and a stop on abort that
 * takes the whole group with it. When the leader exits, whatever it left behind in its group
 * (a background job holding the output pipe) is stopped too, so no process outlives the call.
 */
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { spawnProcess, type ProcessHandle } from "../../../process/index.js";

/** How long the output pipe may stay open after the group is gone before it is let go. */
const PIPE_SETTLE_MS = 1000;

export interface CommandOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  signal: AbortSignal;
  /** Parent variables passed through on top of the default allowlist (src/process/env.ts). */
  inheritEnv?: readonly string[];
  timeoutMs?: number;
  /** Every stdout chunk; `stop()` ends the process early (the caller has what it needs). */
  onData(chunk: Buffer, stop: () => void): void;
}

/** How a command ended. `exitCode` is set only when the leader exited on its own. */
export interface CommandEnd {
  exitCode?: number;
  /** The signal that ended the leader, when it was not stopped here. */
  signal?: string;
  /** Why it was stopped here, if it was. */
  stopped?: "timeout" | "cancel" | "caller";
  /** The end of its stderr (redacted), for a command that reports errors there. */
  stderr: string;
}

/** Runs the command to its end; rejects only when it cannot be started. */
export async function runCommand(options: CommandOptions): Promise<CommandEnd> {
  const mark = `${MARK}=${randomUUID()}`;
  const handle = await spawnProcess({ command: options.command, args: options.args, cwd: options.cwd, inheritEnv: options.inheritEnv, env: { [MARK]: mark.slice(MARK.length + 1) } });
  handle.stdin.end();
  let stopped: CommandEnd["stopped"];
  const stop = (why: NonNullable<CommandEnd["stopped"]>): void => {
    stopped ??= why;
    void handle.stop();
  };
  const onAbort = (): void => stop("cancel");
  options.signal.addEventListener("abort", onAbort, { once: true });
  if (options.signal.aborted) stop("cancel");
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => stop("timeout"), options.timeoutMs);
  const outputClosed = drain(handle, (chunk) => options.onData(chunk, () => stop("caller")));
  try {
    const exit = await handle.exited;
    // The leader is gone: end the rest of its group (background jobs) and reap it.
    await handle.stop();
    await killEscaped(mark);
    await settle(outputClosed, handle);
    const stderr = handle.stderrTail();
    if (stopped !== undefined) return { stopped, stderr };
    if (exit.code !== null) return { exitCode: exit.code, stderr };
    return exit.signal === null ? { stderr } : { signal: exit.signal, stderr };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
}

function drain(handle: ProcessHandle, onData: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve) => {
    handle.stdout.on("data", onData);
    handle.stdout.once("close", resolve);
    handle.stdout.once("error", () => resolve());
  });
}

/** Waits for the last output; a pipe still held by an escaped descendant is let go. */
async function settle(outputClosed: Promise<void>, handle: ProcessHandle): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), PIPE_SETTLE_MS)));
  const result = await Promise.race([outputClosed, late]);
  clearTimeout(timer);
  if (result === "late") handle.stdout.destroy();
}

/** The variable every process of one command inherits, naming the command. */
const MARK = "AGENT_ADAPTOR_TOOL_COMMAND";

/**
 * Stops what left the command's process group (`setsid`, a daemon's double fork): such a process
 * still carries the command's mark in its environment. Linux only (`/proc`); elsewhere the group
 * stop is all there is.
 */
async function killEscaped(mark: string): Promise<void> {
  if (process.platform !== "linux") return;
  const entries = await readdir("/proc").catch(() => [] as string[]);
  const needle = Buffer.from(`${mark}\0`);
  const killed: string[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry)) return;
      const environ = await readFile(`/proc/${entry}/environ`).catch(() => undefined);
      if (environ === undefined || !environ.includes(needle)) return;
      try {
        process.kill(Number(entry), "SIGKILL");
        killed.push(entry);
      } catch {
        // Gone already.
      }
    }),
  );
  // A signal is delivered, not yet acted on: the call ends once they are gone (or zombies), up to a bound.
  for (let waited = 0; killed.length > 0 && waited < ESCAPED_WAIT_MS; waited += 10) {
    const states = await Promise.all(killed.map((pid) => readFile(`/proc/${pid}/stat`, "latin1").catch(() => "")));
    if (states.every((stat) => stat === "" || /^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2)))) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** How long the end of a command waits for escaped processes it killed to be gone. */
const ESCAPED_WAIT_MS = 1000;
