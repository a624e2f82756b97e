/**
 * A real CLI child for lane tests, built on the library's own process supervision
 * (`spawnProcess`: own process group, scrubbed env, redacted stderr tail, group stop) and NDJSON
 * framing, so the lane also exercises that code against real CLIs. It records every message the
 * CLI sends and lets a test wait for one.
 */
import type { ProcessExit, ProcessHandle } from "../../process/index.js";
import { readJsonLines, spawnProcess } from "../../process/index.js";

/** How the child ended. */
export type CliExit = ProcessExit;

/** Options of {@link CliProcess.spawn}. */
export interface CliSpawnOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The child's environment; a variable set to `undefined` is removed. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Label used in error messages, e.g. the CLI name. */
  readonly label?: string;
  /**
   * `ndjson` (default): the process reads stdout itself, one JSON message per line.
   * `external`: a protocol peer (e.g. a JSON-RPC peer) owns stdout and reports to {@link CliProcess.record}.
   */
  readonly stdout?: "ndjson" | "external";
}

/** Options of {@link CliProcess.waitFor}. */
export interface WaitOptions {
  /** Give up after this long (default 90 s). */
  readonly timeoutMs?: number;
  /** Only look at messages at or after this index (default 0). */
  readonly from?: number;
  /** Names what is awaited in the error message. */
  readonly what?: string;
}

const DEFAULT_WAIT_MS = 90_000;

interface Waiter {
  readonly predicate: (message: unknown) => boolean;
  readonly from: number;
  readonly what: string;
  readonly resolve: (index: number) => void;
  readonly reject: (error: Error) => void;
}

/** A spawned CLI speaking newline-delimited JSON on stdio. */
export class CliProcess {
  /** Every message received from the CLI, in order. */
  readonly messages: unknown[] = [];
  /** Problems with stdout frames (invalid JSON, ...), kept for diagnosis. */
  readonly strayLines: string[] = [];

  private readonly waiters = new Set<Waiter>();
  private readonly listeners = new Set<(message: unknown, index: number) => void>();
  /** Set once the child has exited and its stdout has been read to the end. */
  private finished = false;

  private constructor(
    /** The supervised child. */
    readonly handle: ProcessHandle,
    private readonly label: string,
  ) {}

  /** Starts the child in its own process group. Rejects when it cannot be started. */
  static async spawn(options: CliSpawnOptions): Promise<CliProcess> {
    const handle = await spawnProcess({ command: options.command, args: options.args, cwd: options.cwd, env: options.env });
    const proc = new CliProcess(handle, options.label ?? options.command);
    if ((options.stdout ?? "ndjson") === "ndjson") proc.readUntil(proc.readStdout());
    return proc;
  }

  /**
   * Tells the process when the peer that owns stdout has read everything (`external` mode).
   * Waiters still pending once the child has exited and `done` resolved are rejected.
   */
  readUntil(done: Promise<unknown>): void {
    // A descendant that outlives the child may hold stdout open: then give up reading after 1 s.
    const settled = Promise.race([
      done.catch(() => undefined),
      this.handle.exited.then(() => new Promise((resolve) => setTimeout(resolve, 1_000).unref())),
    ]);
    void Promise.all([this.handle.exited, settled]).then(() => {
      this.finished = true;
      this.failWaiters();
    });
  }

  /** Process id of the child (the group leader). */
  get pid(): number {
    return this.handle.pid;
  }

  /** Resolves when the child has exited. */
  get exited(): Promise<CliExit> {
    return this.handle.exited;
  }

  /** Exit status once the child has exited. */
  get exitStatus(): CliExit | undefined {
    return this.handle.exitStatus;
  }

  /** The tail of the child's stderr (bounded, secrets redacted). */
  get stderr(): string {
    return this.handle.stderrTail();
  }

  /** Writes one JSON line to stdin. */
  send(message: unknown): void {
    this.writeLine(JSON.stringify(message));
  }

  /** Writes one raw line to stdin. */
  writeLine(line: string): void {
    if (this.exitStatus !== undefined || !this.handle.stdin.writable) {
      throw new Error(`${this.label}: cannot write, the process has exited${this.describeExit()}`);
    }
    this.handle.stdin.write(`${line}\n`);
  }

  /** Closes stdin (many CLIs finish the current turn and exit on EOF). */
  closeStdin(): void {
    this.handle.stdin.end();
  }

  /** Appends a message received from the CLI (used by protocol peers that own stdout). */
  record(message: unknown): void {
    const index = this.messages.push(message) - 1;
    for (const listener of this.listeners) listener(message, index);
    for (const waiter of [...this.waiters]) {
      if (index >= waiter.from && waiter.predicate(message)) {
        this.waiters.delete(waiter);
        waiter.resolve(index);
      }
    }
  }

  /** Calls `listener` for every message already received and every later one. */
  onMessage(listener: (message: unknown, index: number) => void): () => void {
    this.messages.forEach((m, i) => listener(m, i));
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves with the first message (at or after `from`) satisfying `predicate`. Rejects when the
   * child exits first or on timeout, with the last messages and the stderr tail for diagnosis.
   */
  async waitFor<T = unknown>(predicate: (message: unknown) => boolean, options: WaitOptions = {}): Promise<T> {
    const index = await this.waitForIndex(predicate, options);
    return this.messages[index] as T;
  }

  /** Like {@link waitFor}, but resolves with the message's index. */
  waitForIndex(predicate: (message: unknown) => boolean, options: WaitOptions = {}): Promise<number> {
    const from = options.from ?? 0;
    for (let i = from; i < this.messages.length; i++) if (predicate(this.messages[i])) return Promise.resolve(i);
    const what = options.what ?? "a matching message";
    if (this.finished) return Promise.reject(this.failure(`exited before ${what}`));
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(this.failure(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        predicate,
        from,
        what,
        resolve: (i) => {
          clearTimeout(timer);
          resolve(i);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.waiters.add(waiter);
    });
  }

  /**
   * Stops the child and its whole process group (stdin closed, SIGTERM, then SIGKILL after
   * `graceMs`), so re-spawned wrappers and native grandchildren go too. Safe to call twice.
   */
  async stop(graceMs = 2_000): Promise<CliExit> {
    await this.handle.stop({ graceMs });
    return this.handle.exited;
  }

  private async readStdout(): Promise<void> {
    try {
      for await (const line of readJsonLines(this.handle.stdout)) {
        if (line.kind === "json") this.record(line.value);
        else this.strayLines.push(`line ${line.line}: ${line.error.message}${line.excerpt ? ` — ${line.excerpt}` : ""}`);
      }
    } catch (error) {
      this.strayLines.push(`stdout failed: ${(error as Error).message}`);
    }
  }

  private failWaiters(): void {
    for (const waiter of [...this.waiters]) {
      this.waiters.delete(waiter);
      waiter.reject(this.failure(`exited before ${waiter.what}`));
    }
  }

  private describeExit(): string {
    const exit = this.exitStatus;
    return exit === undefined ? "" : ` (code ${String(exit.code)}, signal ${String(exit.signal)})`;
  }

  private failure(summary: string): Error {
    const tail = (s: string, n: number): string => (s.length > n ? `…${s.slice(-n)}` : s);
    const lastMessages = this.messages
      .slice(-8)
      .map((m) => tail(JSON.stringify(m) ?? String(m), 600))
      .join("\n");
    return new Error(
      `${this.label}: ${summary}${this.describeExit()}\n` +
        `--- last stdout messages ---\n${lastMessages || "(none)"}\n` +
        (this.strayLines.length ? `--- unreadable stdout ---\n${tail(this.strayLines.join("\n"), 2000)}\n` : "") +
        `--- stderr tail ---\n${tail(this.stderr, 4000) || "(empty)"}`,
    );
  }
}
