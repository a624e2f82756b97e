/**
 * One CLI process speaking stream-json: spawned in its own process group with a scrubbed
 * environment, read line by line with backpressure, with host→CLI control requests correlated to
 * their responses. Everything that is not a control response is handed, in order, to the one
 * attached consumer; awaiting the consumer pauses reading (and so the child's stdout).
 */
import { randomBytes } from "node:crypto";
import { ProtocolError, ProviderError } from "../../errors/index.js";
import type { HostToolsEndpoint } from "../../driver/types.js";
import type { Redactor } from "../../redact/redact.js";
import { spawnProcess, writeJsonLine, type ProcessExit, type ProcessHandle } from "../../process/index.js";
import type { JsonLine } from "../../process/framer.js";
import { readJsonLineBatches } from "../../process/ndjson.js";
import { isObject, str, type ControlRequestLine, type Json } from "./wire.js";

/** What the reader hands to the consumer. */
export type Incoming =
  | { kind: "message"; message: Json }
  | { kind: "malformed"; code: string; message: string };

export type Consumer = (item: Incoming) => void | Promise<void>;

export interface StartOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string | undefined>;
  inheritEnv: readonly string[];
  redactor: Redactor;
  /** What the process owns besides itself (its directory, its host-tools endpoint): released once it has exited. */
  release?: () => Promise<void>;
  /** The host-tools endpoint the process registered at start, bound to whichever run it serves. */
  hostTools?: HostToolsEndpoint;
}

/** Lines read before a consumer attached; a standby should receive none, so this stays tiny. */
const MAX_BACKLOG = 256;

interface Pending {
  subtype: string;
  resolve: (response: Json) => void;
  reject: (error: Error) => void;
}

export class StreamJsonProcess {
  readonly #handle: ProcessHandle;
  readonly #pending = new Map<string, Pending>();
  readonly #backlog: Incoming[] = [];
  readonly #ended: Promise<ProcessExit>;
  #consumer: Consumer | undefined;
  #exit: ProcessExit | undefined;
  #counter = 0;
  readonly #idPrefix = randomBytes(4).toString("hex");
  /** The host-tools endpoint this process registered, if any (a run that claims the process binds it). */
  readonly hostTools: HostToolsEndpoint | undefined;

  private constructor(handle: ProcessHandle, release: (() => Promise<void>) | undefined, hostTools: HostToolsEndpoint | undefined) {
    this.#handle = handle;
    this.hostTools = hostTools;
    this.#ended = this.#read(release);
    // A reader failure never becomes an unhandled rejection; it surfaces as `ended`.
    this.#ended.catch(() => undefined);
  }

  /** Starts the CLI. Rejects fast with `ExecutableNotFoundError` when it cannot be started. */
  static async start(options: StartOptions): Promise<StreamJsonProcess> {
    const handle = await spawnProcess({
      command: options.command,
      args: options.args,
      cwd: options.cwd,
      env: options.env,
      inheritEnv: options.inheritEnv,
      redactor: options.redactor,
    });
    return new StreamJsonProcess(handle, options.release, options.hostTools);
  }

  get pid(): number {
    return this.#handle.pid;
  }

  /** False once stdout ended or the process exited. */
  get alive(): boolean {
    return this.#exit === undefined && this.#handle.exitStatus === undefined;
  }

  /** Resolves once stdout has ended and the process has exited; never rejects. */
  get ended(): Promise<ProcessExit> {
    return this.#ended;
  }

  /** The kit's name for {@link StreamJsonProcess.ended}, so the driver's owned-process set can track it. */
  get exited(): Promise<ProcessExit> {
    return this.#ended;
  }

  stderrTail(): string {
    return this.#handle.stderrTail();
  }

  /** Sets the consumer of every non-control line, replaying what arrived before. */
  async attach(consumer: Consumer | undefined): Promise<void> {
    this.#consumer = consumer;
    if (!consumer) return;
    while (this.#backlog.length > 0 && this.#consumer === consumer) await consumer(this.#backlog.shift()!);
  }

  /** Writes one line. Rejects with `peer_exited` when the CLI's input is closed. */
  send(line: unknown): Promise<void> {
    return writeJsonLine(this.#handle.stdin, line);
  }

  /**
   * Sends a control request and resolves with the response payload. Rejects with a
   * `ProviderError` for an error response (`control_error`), on exit, on abort and on timeout.
   */
  request(request: { subtype: string } & Json, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Json> {
    const id = `req_${this.#idPrefix}_${++this.#counter}`;
    const line: ControlRequestLine = { type: "control_request", request_id: id, request };
    return new Promise<Json>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        this.#pending.delete(id);
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        cleanup();
        void this.send({ type: "control_cancel_request", request_id: id }).catch(() => undefined);
        reject(options.signal!.reason);
      };
      if (options.signal?.aborted) return reject(options.signal.reason);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(new ProviderError(`the CLI did not answer ${request.subtype} within ${options.timeoutMs} ms`, { code: "timeout", retryable: true }));
        }, options.timeoutMs);
      }
      this.#pending.set(id, {
        subtype: request.subtype,
        resolve: (value) => (cleanup(), resolve(value)),
        reject: (error) => (cleanup(), reject(error)),
      });
      if (this.#exit !== undefined) return this.#pending.get(id)?.reject(this.#exitError(request.subtype));
      this.send(line).catch((error: unknown) => this.#pending.get(id)?.reject(asError(error)));
    });
  }

  /** Answers a request the CLI sent. Failures (the CLI is gone) are ignored. */
  async respond(requestId: string, response: Json): Promise<void> {
    await this.send({ type: "control_response", response: { subtype: "success", request_id: requestId, response } }).catch(() => undefined);
  }

  async respondError(requestId: string, error: string): Promise<void> {
    await this.send({ type: "control_response", response: { subtype: "error", request_id: requestId, error } }).catch(() => undefined);
  }

  /** Closes stdin; the CLI finishes what it is doing and exits. */
  closeInput(): void {
    try {
      this.#handle.stdin.end();
    } catch {
      // Already closed.
    }
  }

  /** Stdin close → SIGTERM to the group → SIGKILL; resolves once everything is reaped. */
  async stop(graceMs?: number): Promise<void> {
    await this.#handle.stop(graceMs === undefined ? {} : { graceMs });
    await this.#ended;
  }

  /** Stops the process group and waits until it is reaped (the kit's name for {@link StreamJsonProcess.stop}). */
  close(): Promise<void> {
    return this.stop();
  }

  async #read(release: (() => Promise<void>) | undefined): Promise<ProcessExit> {
    try {
      // A chunk's lines at a time: a consumer that takes a line synchronously costs no promise.
      for await (const batch of readJsonLineBatches(this.#handle.stdout)) {
        for (const frame of batch) {
          const delivering = this.#take(frame);
          if (delivering !== undefined) await delivering;
        }
      }
    } catch {
      // The stream failed (destroyed on stop); the exit below says the rest.
    }
    const exit = await this.#handle.exited;
    // Before `ended` resolves: whoever awaited the process's end finds its directory gone.
    await release?.().catch(() => undefined);
    this.#exit = exit;
    for (const [, pending] of this.#pending) pending.reject(this.#exitError(pending.subtype));
    this.#pending.clear();
    return exit;
  }

  /** Routes one line: control responses settle their request, the rest goes to the consumer. */
  #take(frame: JsonLine): void | Promise<void> {
    if (frame.kind === "error") return this.#deliver({ kind: "malformed", code: frame.error.code, message: frame.error.message });
    const message = frame.value;
    // Every stream-json message names its `type`; JSON without one is no protocol message.
    if (!isObject(message) || typeof message.type !== "string") {
      return this.#deliver({ kind: "malformed", code: "malformed_frame", message: "a stdout line is JSON but no typed stream-json message" });
    }
    if (message.type === "control_response" && isObject(message.response)) return this.#settle(message.response);
    return this.#deliver({ kind: "message", message });
  }

  /** Hands one item to the consumer; a promise only when the consumer returned one. */
  #deliver(item: Incoming): void | Promise<void> {
    if (this.#consumer) return this.#consumer(item);
    if (this.#backlog.length < MAX_BACKLOG) this.#backlog.push(item);
  }

  #settle(response: Json): void {
    const id = str(response.request_id);
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (!pending) return;
    if (response.subtype === "success") {
      pending.resolve(isObject(response.response) ? response.response : {});
    } else {
      const text = str(response.error) ?? "unknown error";
      pending.reject(new ProviderError(`the CLI refused ${pending.subtype}: ${text}`, { code: "control_error" }));
    }
  }

  #exitError(subtype: string): ProviderError {
    const exit = this.#exit ?? this.#handle.exitStatus;
    const how = exit ? describeExit(exit) : "closed its output";
    return new ProviderError(`the CLI ${how} before answering ${subtype}`, {
      code: "provider_exited",
      cause: new ProtocolError("the peer exited", "peer_exited"),
    });
  }
}

export function describeExit(exit: ProcessExit): string {
  if (exit.outputClosed) return "closed its output and was stopped";
  if (exit.signal) return `was killed by ${exit.signal}`;
  return `exited with code ${String(exit.code)}`;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
