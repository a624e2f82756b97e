/**
 * One `pi --mode rpc` process and its JSONL protocol (neither ACP nor JSON-RPC): commands
 * `{id?, type, …}` go in on stdin; responses `{id, type:"response", command, success, data?,
 * error?}` and untagged events come out on stdout. Quirks handled here:
 *
 * - framing is LF only (the shared framer; never `readline`, which also splits on U+2028);
 * - Pi prints nothing at start-up: it is ready when it answers its first command (`get_state`);
 * - an error response to an unknown command carries no `id`: it settles the oldest pending
 *   command of the same name;
 * - Pi exits on end of input, as a single process.
 */
import { withinInitializeTimeout } from "../../driver/initialize-timeout.js";
import { MalformedFrameNotices } from "../../driver/malformed-frames.js";
import type { DriverEvent } from "../../events/types.js";
import { ProviderError } from "../../errors/index.js";
import type { Redactor } from "../../redact/redact.js";
import { readJsonLines, writeJsonLine, type ProcessHandle } from "../../process/index.js";
import { ProcessConnection, spawnLaunch, type ProcessLaunch } from "../../driver/kit/connection.js";
import { evidenceClock } from "../../driver/kit/evidence.js";
import { isObject, stderrExcerpt, str, type Json } from "../../driver/json.js";

type Phase = "before_delivery" | "after_delivery";

/** Pi refused a command (`success: false`). `piMessage` is Pi's own error text. */
export class PiCommandError extends ProviderError {
  readonly command: string;
  readonly piMessage: string;
  constructor(command: string, piMessage: string, phase: Phase) {
    super(`pi refused ${command}: ${piMessage}`, { code: /^Unknown command/i.test(piMessage) ? "method_unsupported" : "provider_error", phase });
    this.command = command;
    this.piMessage = piMessage;
  }
}

/** What the run bound to the connection receives. */
export interface PiHandlers {
  /** One event (any non-response frame). Awaited: a slow consumer pauses reading. */
  onEvent(event: Json): Promise<void> | void;
  notice(event: DriverEvent): Promise<void> | void;
}

export interface PiSpawn extends ProcessLaunch {
  initializeTimeoutMs: number;
  signal: AbortSignal;
  onSpawn?(connection: PiConnection): void;
}

interface Pending {
  id: string;
  command: string;
  phase: Phase;
  resolve(data: unknown): void;
  reject(error: unknown): void;
}

export class PiConnection extends ProcessConnection {
  readonly #pending = new Map<string, Pending>();
  #nextId = 0;
  #handlers: PiHandlers | undefined;
  #state: Json = {};
  #readyMs = 0;
  readonly #retirements: (() => Promise<void>)[] = [];
  readonly #malformed = new MalformedFrameNotices((event) => this.#handlers?.notice(event), "pi");

  private constructor(proc: ProcessHandle, redactor: Redactor) {
    super(proc);
    void this.#read(redactor);
  }

  protected override onExit(): void {
    this.#failPending();
  }

  /** Spawns Pi and waits for its first `get_state` answer (its readiness). */
  static async open(options: PiSpawn): Promise<PiConnection> {
    options.signal.throwIfAborted();
    const proc = await spawnLaunch(options);
    const connection = new PiConnection(proc, options.redactor);
    options.onSpawn?.(connection);
    try {
      const started = evidenceClock();
      const getState = (bounded: AbortSignal) => connection.request("get_state", {}, bounded, "before_delivery");
      const state = await withinInitializeTimeout("pi", options.initializeTimeoutMs, options.signal, getState, "get_state");
      connection.#readyMs = evidenceClock() - started;
      if (!isObject(state)) throw new ProviderError("pi answered get_state without a state object", { code: "malformed_response", phase: "before_delivery" });
      connection.#state = state;
      return connection;
    } catch (error) {
      await connection.close();
      options.signal.throwIfAborted();
      throw error;
    }
  }

  /** The first `get_state` answer. */
  get state(): Json {
    return this.#state;
  }

  /** Spawn → first answer, in ms. */
  get readyMs(): number {
    return this.#readyMs;
  }

  /** Binds a run's handlers; returns the unbind function. */
  bind(handlers: PiHandlers): () => void {
    this.#handlers = handlers;
    return () => {
      if (this.#handlers === handlers) this.#handlers = undefined;
    };
  }

  /** Reports the malformed lines still being counted; a run calls it before it ends. */
  flushMalformed(): Promise<void> {
    return this.#malformed.flush();
  }

  async #read(redactor: Redactor): Promise<void> {
    try {
      for await (const line of readJsonLines(this.process.stdout, { redact: (t) => redactor.redactText(t) })) {
        if (line.kind === "error") {
          await this.#malformed.report(line.error.code, line.excerpt);
          continue;
        }
        const frame = line.value;
        if (!isObject(frame) || typeof frame.type !== "string") {
          await this.#malformed.report("malformed_frame");
          continue;
        }
        if (frame.type === "response") {
          this.#settle(frame);
          continue;
        }
        const handlers = this.#handlers;
        if (handlers === undefined) continue;
        try {
          await handlers.onEvent(frame);
        } catch {
          // The run is ending; its events have nowhere to go.
        }
      }
    } catch {
      // The stream failed; the exit watch fails what is pending.
    }
  }

  #settle(frame: Json): void {
    const id = str(frame.id);
    const command = str(frame.command);
    let pending = id === undefined ? undefined : this.#pending.get(id);
    // Pi's error response to an unknown command has no id.
    if (pending === undefined && id === undefined && command !== undefined) pending = [...this.#pending.values()].find((p) => p.command === command);
    if (pending === undefined) return;
    this.#pending.delete(pending.id);
    if (frame.success === true) pending.resolve(frame.data);
    else pending.reject(new PiCommandError(pending.command, str(frame.error) ?? "no reason given", pending.phase));
  }

  #failPending(): void {
    for (const pending of [...this.#pending.values()]) {
      this.#pending.delete(pending.id);
      pending.reject(this.exitError(`during ${pending.command}`, pending.phase));
    }
  }

  /**
   * Sends a command and resolves with its response's `data`. Rejects with {@link PiCommandError}
   * when Pi refuses it, a `provider_exited` error when Pi exits first, or the abort reason.
   */
  async request(command: string, payload: Json, signal: AbortSignal | undefined, phase: Phase): Promise<unknown> {
    signal?.throwIfAborted();
    if (this.exitStatus !== undefined) throw this.exitError(`before ${command}`, phase);
    const id = `aa-${++this.#nextId}`;
    let onAbort: (() => void) | undefined;
    const answer = new Promise<unknown>((resolve, reject) => {
      this.#pending.set(id, { id, command, phase, resolve, reject });
      if (signal !== undefined) {
        onAbort = () => {
          this.#pending.delete(id);
          reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
      }
    });
    try {
      await writeJsonLine(this.process.stdin, { ...payload, id, type: command });
    } catch {
      // Pi is gone; the exit watch fails the command.
    }
    try {
      return await answer;
    } finally {
      if (onAbort !== undefined) signal!.removeEventListener("abort", onAbort);
    }
  }

  exitError(when: string, phase: Phase): ProviderError {
    const exit = this.exitStatus;
    const status = exit === undefined ? "" : exit.signal ? ` (signal ${exit.signal})` : ` (exit code ${String(exit.code)})`;
    const tail = stderrExcerpt(this.process.stderrTail());
    return new ProviderError(`pi exited ${when}${status}${tail ? `: ${tail}` : ""}`, { code: "provider_exited", retryable: phase === "before_delivery", phase });
  }

  /** Ends Pi's input (it exits on EOF, saving its session), then stops and reaps it; `close()` runs it once. */
  protected async shutdown(): Promise<void> {
    this.#handlers = undefined;
    if (this.exitStatus === undefined) {
      try {
        this.process.stdin.end();
      } catch {
        // Already closed.
      }
      await Promise.race([this.process.exited, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    }
    await this.process.stop({ graceMs: 1500 });
    await Promise.all(this.#retirements.map((release) => release().catch(() => undefined)));
  }

  /**
   * Releases `release` (what the process was given: its private directory, its host-tools
   * endpoint) once the process is gone: awaited by `close()`, and run when it exits by itself.
   * `release` must be idempotent.
   */
  retireWith(release: () => Promise<void>): void {
    this.#retirements.push(release);
    void this.exited.then(release, release).catch(() => undefined);
  }
}
