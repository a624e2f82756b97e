/**
 * A symmetric JSON-RPC 2.0 peer over NDJSON stdio: both sides send requests (provider CLIs ask the
 * host for approvals and user input), so this is one class rather than a client and a server.
 *
 * Parsing is lenient because real providers are: Codex app-server omits `"jsonrpc": "2.0"`, so
 * a message is classified by shape (a response has an `id`, a `result` or `error`, no `method`).
 */
import type { Writable } from "node:stream";

import { AdaptorError, ProtocolError } from "../errors/index.js";
import { redactText } from "../redact/redact.js";
import { JsonRpcError, JsonRpcErrorCode } from "./jsonrpc-error.js";
import { readJsonLineBatches, writeJsonLine } from "./ndjson.js";

export type JsonRpcId = string | number;

export interface JsonRpcPeerOptions {
  /** The peer's output (a child's stdout). */
  input: AsyncIterable<Uint8Array | string>;
  /** The peer's input (a child's stdin). */
  output: Writable;
  /**
   * Answers a request from the peer. Its value is the result; throwing a {@link JsonRpcError}
   * sends that error; any other failure sends -32603. Without a handler every request gets -32601.
   * The signal aborts when the peer is closed or exits.
   */
  onRequest?: (method: string, params: unknown, signal: AbortSignal) => unknown;
  /**
   * Receives a notification. Reading waits for a returned promise, so a slow consumer pauses the
   * peer's output (backpressure); for that reason it must not await this peer's own requests.
   */
  onNotification?: (method: string, params: unknown) => void | Promise<void>;
  /** Reports a malformed frame or message; the peer keeps running. */
  onProtocolError?: (error: ProtocolError, excerpt?: string) => void;
  /** Frame size limit, see `readJsonLines`. */
  maxLineBytes?: number;
  /** A faster decoder for the peer's most frequent lines, see `NdjsonFramerOptions.decode`. */
  decode?: (line: string) => unknown;
  /** Whether outgoing messages carry `"jsonrpc": "2.0"`. Default true. */
  jsonrpcField?: boolean;
  /** Redacts error messages and excerpts that come from the peer. Default: the process-wide redactor. */
  redact?: (text: string) => string;
}

export interface JsonRpcRequestOptions {
  /** Aborting rejects the request with `request_cancelled` (a late answer is then ignored). */
  signal?: AbortSignal;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  cleanup(): void;
}

/** Ids of requests abandoned locally, so their late answers are not reported as protocol errors. */
const CANCELLED_MEMORY = 1024;

export class JsonRpcPeer {
  readonly #output: Writable;
  readonly #onRequest: JsonRpcPeerOptions["onRequest"];
  readonly #onNotification: JsonRpcPeerOptions["onNotification"];
  readonly #onProtocolError: JsonRpcPeerOptions["onProtocolError"];
  readonly #redact: (text: string) => string;
  readonly #header: { jsonrpc?: "2.0" };
  readonly #pending = new Map<string, Pending>();
  readonly #cancelled = new Set<string>();
  readonly #incoming = new Set<AbortController>();
  readonly #stopReading = new AbortController();
  #nextId = 1;
  /** Why new requests fail, once the peer is closed or gone. */
  #ended: "closed" | "exited" | undefined;

  /** Resolves (never rejects) when reading has stopped: the peer's output ended or {@link close} was called. */
  readonly done: Promise<void>;

  constructor(options: JsonRpcPeerOptions) {
    this.#output = options.output;
    this.#onRequest = options.onRequest;
    this.#onNotification = options.onNotification;
    this.#onProtocolError = options.onProtocolError;
    this.#redact = options.redact ?? redactText;
    this.#header = options.jsonrpcField === false ? {} : { jsonrpc: "2.0" };
    this.done = this.#read(options.input, options.maxLineBytes, options.decode);
  }

  /** Requests sent and not yet answered. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Sends a request and resolves with its result; rejects with {@link JsonRpcError} on an error answer. */
  request<T = unknown>(method: string, params?: unknown, options: JsonRpcRequestOptions = {}): Promise<T> {
    const unavailable = this.#unavailable();
    if (unavailable) return Promise.reject(unavailable);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(cancelled(method));

    const id = this.#nextId++;
    const key = String(id);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.#pending.delete(key)) return;
        this.#rememberCancelled(key);
        reject(cancelled(method));
      };
      this.#pending.set(key, {
        resolve: resolve as (value: unknown) => void,
        reject,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#send({ id, method, ...(params === undefined ? {} : { params }) }).catch((err: unknown) => {
        const pending = this.#pending.get(key);
        if (pending === undefined) return;
        this.#pending.delete(key);
        pending.cleanup();
        reject(err as Error);
      });
    });
  }

  /** Sends a notification (no answer expected). Resolves once the line is accepted by the stream. */
  async notify(method: string, params?: unknown): Promise<void> {
    const unavailable = this.#unavailable();
    if (unavailable) throw unavailable;
    await this.#send({ method, ...(params === undefined ? {} : { params }) });
  }

  /**
   * Stops the peer: pending requests reject with `request_cancelled`, handlers of incoming
   * requests are aborted, and reading stops (which destroys the input stream). The output stream
   * is left to its owner, who stops the process.
   */
  async close(): Promise<void> {
    if (this.#ended === undefined) {
      this.#ended = "closed";
      this.#rejectAll(() => new ProtocolError("the request was cancelled: the peer is closed", "request_cancelled"));
      this.#stopReading.abort();
    }
    await this.done;
  }

  #unavailable(): ProtocolError | undefined {
    if (this.#ended === "closed") return new ProtocolError("the peer is closed", "request_cancelled");
    if (this.#ended === "exited") return new ProtocolError("the peer exited", "peer_exited");
    return undefined;
  }

  #send(message: Record<string, unknown>): Promise<void> {
    return writeJsonLine(this.#output, { ...this.#header, ...message });
  }

  #rememberCancelled(key: string): void {
    this.#cancelled.add(key);
    if (this.#cancelled.size > CANCELLED_MEMORY) {
      const oldest = this.#cancelled.values().next().value;
      if (oldest !== undefined) this.#cancelled.delete(oldest);
    }
  }

  #rejectAll(makeError: () => Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) {
      p.cleanup();
      p.reject(makeError());
    }
    for (const controller of this.#incoming) controller.abort(makeError());
    this.#incoming.clear();
  }

  #protocolError(error: ProtocolError, excerpt?: string): void {
    try {
      this.#onProtocolError?.(error, excerpt);
    } catch {
      // A failing reporter must not stop the peer.
    }
  }

  async #read(input: AsyncIterable<Uint8Array | string>, maxLineBytes: number | undefined, decode: ((line: string) => unknown) | undefined): Promise<void> {
    try {
      // A chunk's lines at a time: a notification its handler takes synchronously costs no promise.
      for await (const batch of readJsonLineBatches(input, { maxLineBytes, redact: this.#redact, signal: this.#stopReading.signal, decode })) {
        for (const frame of batch) {
          if (frame.kind === "error") {
            this.#protocolError(frame.error, frame.excerpt);
            continue;
          }
          const dispatching = this.#dispatch(frame.value);
          if (dispatching !== undefined) await dispatching;
        }
      }
    } catch (err) {
      if (this.#ended === undefined) this.#protocolError(new ProtocolError("reading from the peer failed", "protocol_error", { cause: err }));
    } finally {
      if (this.#ended === undefined) {
        this.#ended = "exited";
        this.#rejectAll(() => new ProtocolError("the peer exited before answering", "peer_exited"));
      }
    }
  }

  /** Routes one message; a promise only while a notification handler holds the reading back. */
  #dispatch(message: unknown): Promise<void> | undefined {
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.#protocolError(new ProtocolError("a JSON-RPC message must be an object (batches are not supported)"));
      return;
    }
    const m = message as Record<string, unknown>;
    if (typeof m.method === "string") {
      if (m.id !== undefined) this.#answer(m.id, m.method, m.params);
      else return this.#notified(m.method, m.params);
      return;
    }
    if (m.id !== undefined && ("result" in m || "error" in m)) {
      this.#settle(m);
      return;
    }
    this.#protocolError(new ProtocolError("a message is neither a request, a notification nor a response"));
  }

  #notified(method: string, params: unknown): Promise<void> | undefined {
    if (this.#onNotification === undefined) return;
    let handling: void | Promise<void>;
    try {
      handling = this.#onNotification(method, params);
    } catch (err) {
      this.#handlerFailed(method, err);
      return;
    }
    return handling?.then(undefined, (err: unknown) => this.#handlerFailed(method, err));
  }

  #handlerFailed(method: string, err: unknown): void {
    this.#protocolError(new ProtocolError(`the handler of notification ${method} failed`, "protocol_error", { cause: err }));
  }

  #settle(m: Record<string, unknown>): void {
    const key = String(m.id);
    const pending = this.#pending.get(key);
    if (pending === undefined) {
      if (!this.#cancelled.delete(key)) this.#protocolError(new ProtocolError("a response names an unknown request id"));
      return;
    }
    this.#pending.delete(key);
    pending.cleanup();
    if ("error" in m && m.error !== undefined && m.error !== null) pending.reject(this.#toJsonRpcError(m.error));
    else pending.resolve(m.result);
  }

  #toJsonRpcError(error: unknown): JsonRpcError {
    const e = (typeof error === "object" && error !== null ? error : {}) as Record<string, unknown>;
    const rpcCode = typeof e.code === "number" ? e.code : JsonRpcErrorCode.InternalError;
    const message = typeof e.message === "string" && e.message !== "" ? this.#redact(e.message) : "the peer returned an error";
    return new JsonRpcError(rpcCode, message, e.data);
  }

  #answer(id: unknown, method: string, params: unknown): void {
    const controller = new AbortController();
    this.#incoming.add(controller);
    const handler = this.#onRequest;
    void (async () => {
      let reply: Record<string, unknown>;
      try {
        if (handler === undefined) throw JsonRpcError.methodNotFound(method);
        const result = await handler(method, params, controller.signal);
        reply = { id, result: result === undefined ? null : result };
      } catch (err) {
        reply = { id, error: toWireError(err) };
      } finally {
        this.#incoming.delete(controller);
      }
      // Nobody is listening for an answer once the peer is closed or gone.
      if (this.#ended !== undefined || controller.signal.aborted) return;
      try {
        await this.#send(reply);
      } catch (err) {
        // A result JSON cannot carry (a BigInt, a cycle) still gets an answer; a closed pipe does not.
        if (err instanceof ProtocolError) return;
        await this.#send({ id, error: { code: JsonRpcErrorCode.InternalError, message: "the result is not serializable" } }).catch(() => {});
      }
    })();
  }
}

function cancelled(method: string): ProtocolError {
  return new ProtocolError(`request ${method} was cancelled`, "request_cancelled");
}

/** The wire form of a handler failure. Only messages meant for display (typed errors) are sent. */
function toWireError(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof JsonRpcError) {
    return { code: err.rpcCode, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) };
  }
  if (AdaptorError.is(err)) return { code: JsonRpcErrorCode.InternalError, message: err.message };
  return { code: JsonRpcErrorCode.InternalError, message: "internal error" };
}
