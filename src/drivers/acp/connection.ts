/**
 * One ACP agent process and its client connection. The process is spawned in its own process
 * group (stopping it kills the whole group: codex-acp's native binary and Gemini's re-spawned
 * wrapper would survive otherwise). The SDK's client app speaks JSON-RPC over a stream this file
 * builds itself, so that every inbound frame is seen first:
 *
 * - lines that are not JSON become `malformed_frame` notices instead of SDK console output;
 * - `session/update` notifications never reach the SDK's schema validation (which drops, e.g.,
 *   `usage_update` with `used: null`): they are handed to the run leniently;
 * - other notifications the SDK has no handler for are reported as notices;
 * - an agent request the SDK refuses as schema-invalid is reported as a notice.
 *
 * Requests and responses go through the SDK client (`client().onRequest(...).connect(stream)`).
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { withinInitializeTimeout } from "../../driver/initialize-timeout.js";
import { MalformedFrameNotices } from "../../driver/malformed-frames.js";
import { AdaptorError, AuthRequiredError, ProviderError } from "../../errors/index.js";
import type { NoticeCode } from "../../events/notice-codes.js";
import type { Redactor } from "../../redact/redact.js";
import { OUTPUT_CLOSED_EXIT_MS, readJsonLines, STOP_ESCALATION, writeJsonLine, type ProcessHandle } from "../../process/index.js";
import { ProcessConnection, spawnLaunch } from "../../driver/kit/connection.js";
import { evidenceClock } from "../../driver/kit/evidence.js";
import type { ResolvedAcpConfig } from "./config.js";
import type { HostToolsEndpoint } from "../../driver/types.js";
import type { SkillsPlugin } from "./skills-plugin.js";
import { errorText, isObject, stderrExcerpt, type Json } from "../../driver/json.js";

/**
 * How long a closed connection waits for the agent's exit before calling it a protocol failure:
 * an agent that closed its output but stays alive is stopped by the process layer
 * (OUTPUT_CLOSED_EXIT_MS, then the same again before SIGKILL), so it reports provider_exited as
 * on every other driver.
 */
const CLOSED_OUTPUT_EXIT_WAIT_MS = 2 * OUTPUT_CLOSED_EXIT_MS + 500;

/** What the run currently bound to the connection handles. */
export interface AcpHandlers {
  /** A `session/update` notification's params, unvalidated. Awaited: a slow consumer pauses reading. */
  onUpdate(params: unknown): Promise<void> | void;
  onPermission(params: Json, signal: AbortSignal): Promise<unknown>;
  onReadTextFile?(params: Json): Promise<unknown>;
  onWriteTextFile?(params: Json): Promise<unknown>;
  /** `count`: how many occurrences the notice stands for, when a flood was coalesced. */
  notice(level: "info" | "warning", code: NoticeCode, message: string, count?: number): Promise<void> | void;
}

export interface OpenOptions {
  config: ResolvedAcpConfig;
  cwd: string;
  redactor: Redactor;
  signal: AbortSignal;
  /** Whether to call the configured `authenticate` method (never for inspection). */
  authenticate: boolean;
  onSpawn?(connection: AcpConnection): void;
}

const PROTOCOL_VERSION = 1;
const CLIENT_NAME = "agent-adaptor";
const CLIENT_VERSION = "0.1.0";

/** A JSON-RPC error from the agent, as a typed error. */
export function rpcFailure(method: string, error: unknown, phase: "before_delivery" | "after_delivery", login?: string): AdaptorError {
  if (AdaptorError.is(error)) return error;
  const code = isObject(error) && typeof error.code === "number" ? error.code : undefined;
  const message = errorText(error);
  if (code === -32000 || /auth(entication)? required|not (logged|signed) in|api key is missing/i.test(message)) {
    return new AuthRequiredError(`the agent requires authentication (${method}: ${message})`, login === undefined ? {} : { remedy: login });
  }
  return new ProviderError(`the agent refused ${method}: ${message}`, {
    code: code === -32601 ? "method_unsupported" : "provider_error",
    phase,
    cause: error,
  });
}

export class AcpConnection extends ProcessConnection {
  readonly config: ResolvedAcpConfig;
  readonly #conn: acp.ClientConnection;
  #handlers: AcpHandlers | undefined;
  /** Notices raised while no run is bound (e.g. during initialize), flushed to the next run. */
  readonly #pendingNotices: { level: "info" | "warning"; code: NoticeCode; message: string; count?: number }[] = [];
  readonly #malformed = new MalformedFrameNotices(
    (event) => (event.type === "notice" ? this.#notice(event.level, event.code, event.message, event.count) : undefined),
    "the agent",
  );
  /** Inbound request ids → method, to report the SDK refusing a schema-invalid one. */
  readonly #inboundRequests = new Map<string | number, string>();
  /**
   * Ids of requests sent and not yet answered. A response to any other id is reported as a
   * malformed frame here: the SDK would print it, id included, to the host's console.
   */
  readonly #outboundRequests = new Set<string | number>();
  /** Woken whenever an answer to an inbound request is written. */
  readonly #answerWritten = new Set<() => void>();
  /** Set by {@link AcpConnection.stopNow}: the shutdown skips the end-of-input wait. */
  #escalated = false;
  #init: Json | undefined;
  #initMs = 0;
  /** Sessions whose prompt was cancelled in this process. */
  readonly cancelledSessions = new Set<string>();
  /** This process's way into the agent's host-tools server, once opened; closed when the process retires. */
  #hostTools: HostToolsEndpoint | undefined;
  /** The skills plugin this process's sessions were offered, once written; removed when the process retires. */
  #skillsPlugin: SkillsPlugin | undefined;
  /** Other things the process owns (an instructions directory), removed when it retires. */
  readonly #cleanups: (() => Promise<void>)[] = [];

  private constructor(proc: ProcessHandle, config: ResolvedAcpConfig, redactor: Redactor) {
    super(proc);
    this.config = config;
    const lines = readJsonLines(proc.stdout, { redact: (t) => redactor.redactText(t) });
    const readable = new ReadableStream<acp.AnyMessage>(
      {
        pull: async (controller) => {
          for (;;) {
            let next: IteratorResult<Awaited<ReturnType<typeof lines.next>>["value"]>;
            try {
              next = await lines.next();
            } catch {
              controller.close();
              return;
            }
            if (next.done === true) {
              controller.close();
              return;
            }
            const line = next.value;
            if (line === undefined) continue;
            if (line.kind === "error") {
              await this.#malformed.report(line.error.code, line.excerpt);
              continue;
            }
            const forward = await this.#inbound(line.value);
            if (forward !== undefined) {
              controller.enqueue(forward);
              return;
            }
          }
        },
        cancel: () => {
          lines.return?.();
        },
      },
      { highWaterMark: 0 },
    );
    const writable = new WritableStream<acp.AnyMessage>({
      write: async (message) => {
        this.#outbound(message);
        try {
          await writeJsonLine(proc.stdin, message);
        } catch {
          // The process is gone; the pending request fails through the exit watch.
        }
      },
    });
    const app = acp
      .client({ name: CLIENT_NAME })
      .onRequest("session/request_permission", async ({ params, signal }) => {
        const handlers = this.#handlers;
        if (handlers === undefined) return { outcome: { outcome: "cancelled" } };
        return (await handlers.onPermission(params as unknown as Json, signal)) as acp.RequestPermissionResponse;
      })
      .onRequest("fs/read_text_file", async ({ params }) => {
        const handler = this.#handlers?.onReadTextFile;
        if (!this.config.clientCapabilities.fs.readTextFile || handler === undefined) throw acp.RequestError.methodNotFound("fs/read_text_file");
        return (await handler(params as unknown as Json)) as acp.ReadTextFileResponse;
      })
      .onRequest("fs/write_text_file", async ({ params }) => {
        const handler = this.#handlers?.onWriteTextFile;
        if (!this.config.clientCapabilities.fs.writeTextFile || handler === undefined) throw acp.RequestError.methodNotFound("fs/write_text_file");
        return (await handler(params as unknown as Json)) as acp.WriteTextFileResponse;
      })
      .onRequest("*", async ({ method }) => {
        await this.#notice("warning", "unsupported_request", `the agent sent a request the driver does not serve (${method}); it was answered "method not found"`);
        throw acp.RequestError.methodNotFound(method);
      })
      .onNotification("*", async ({ method }) => {
        await this.#notice("info", "unmapped_notification", `the agent sent a notification the driver does not map (${method})`);
      });
    this.#conn = app.connect({ readable, writable });
  }

  /** Spawns the agent and runs `initialize` (and `authenticate` when configured and asked). */
  static async open(options: OpenOptions): Promise<AcpConnection> {
    const { config, signal } = options;
    signal.throwIfAborted();
    const proc = await spawnLaunch({
      command: config.command,
      args: config.args,
      cwd: config.cwd ?? options.cwd,
      env: config.env,
      inheritEnv: config.inheritEnv,
      redactor: options.redactor,
    });
    const connection = new AcpConnection(proc, config, options.redactor);
    options.onSpawn?.(connection);
    try {
      const started = evidenceClock();
      const init = await withinInitializeTimeout(config.preset.name, config.initializeTimeoutMs, signal, (bounded) =>
        connection.request("initialize", connection.initializeParams(), bounded, "before_delivery"),
      );
      connection.#initMs = evidenceClock() - started;
      if (!isObject(init)) throw new ProviderError("the agent answered initialize without a result object", { code: "malformed_response", phase: "before_delivery" });
      connection.#init = init;
      if (options.authenticate && config.auth !== undefined) {
        const params: Json = { methodId: config.auth.methodId };
        if (config.auth.meta !== undefined) params._meta = config.auth.meta;
        const authenticate = (bounded: AbortSignal) => connection.request("authenticate", params, bounded, "before_delivery");
        await withinInitializeTimeout(config.preset.name, config.initializeTimeoutMs, signal, authenticate, "authenticate").catch((error: unknown) => {
          if (AdaptorError.is(error) && error.code === "auth_required") throw error;
          throw new AuthRequiredError(`authenticate (${config.auth!.methodId}) failed: ${errorText(error)}`, config.preset.login === undefined ? {} : { remedy: config.preset.login });
        });
      }
      return connection;
    } catch (error) {
      await connection.close();
      signal.throwIfAborted();
      throw error;
    }
  }

  initializeParams(): Json {
    const caps: Json = {
      fs: { ...this.config.clientCapabilities.fs },
      terminal: false,
    };
    if (this.config.clientCapabilities.meta !== undefined) caps._meta = this.config.clientCapabilities.meta;
    return { protocolVersion: PROTOCOL_VERSION, clientCapabilities: caps, clientInfo: { name: CLIENT_NAME, version: CLIENT_VERSION } };
  }

  /** The raw `initialize` result. */
  get init(): Json {
    return this.#init ?? {};
  }

  get initDurationMs(): number {
    return this.#initMs;
  }

  /** The host-tools endpoint this process's sessions were (or will be) offered, if one was opened. */
  get hostTools(): HostToolsEndpoint | undefined {
    return this.#hostTools;
  }

  /** Keeps `endpoint` with this process, to be closed when it retires (at once if it already is retiring). */
  adoptHostTools(endpoint: HostToolsEndpoint): void {
    if (this.#hostTools !== undefined && this.#hostTools !== endpoint) void this.#hostTools.close().catch(() => undefined);
    this.#hostTools = endpoint;
    if (!this.alive) void this.exited.then(() => endpoint.close()).catch(() => undefined);
  }

  /** The skills plugin this process's sessions were (or will be) offered, if one was written. */
  get skillsPlugin(): SkillsPlugin | undefined {
    return this.#skillsPlugin;
  }

  /** Keeps `plugin` with this process, to be removed when it retires (at once if it already is retiring). */
  adoptSkillsPlugin(plugin: SkillsPlugin): void {
    this.#skillsPlugin = plugin;
    if (!this.alive) void this.exited.then(() => plugin.remove());
  }

  /** Runs `cleanup` once the process is gone (at once after its exit if it already is retiring). */
  adoptCleanup(cleanup: () => Promise<void>): void {
    if (!this.alive) void this.exited.then(cleanup);
    else this.#cleanups.push(cleanup);
  }

  /** Binds a run's handlers; returns the unbind function. Pending notices are flushed to it. */
  bind(handlers: AcpHandlers): () => void {
    this.#handlers = handlers;
    const pending = this.#pendingNotices.splice(0);
    for (const n of pending) void Promise.resolve(handlers.notice(n.level, n.code, n.message, n.count)).catch(() => {});
    return () => {
      if (this.#handlers === handlers) this.#handlers = undefined;
    };
  }

  /** Reports the malformed lines still being counted; a run calls it before it ends. */
  flushMalformed(): Promise<void> {
    return this.#malformed.flush();
  }

  async #notice(level: "info" | "warning", code: NoticeCode, message: string, count?: number): Promise<void> {
    const handlers = this.#handlers;
    if (handlers === undefined) {
      if (this.#pendingNotices.length < 50) this.#pendingNotices.push({ level, code, message, ...(count !== undefined ? { count } : {}) });
      return;
    }
    try {
      await handlers.notice(level, code, message, count);
    } catch {
      // The run is ending; the notice has nowhere to go.
    }
  }

  /** Routes one inbound frame; returns what the SDK should see, or undefined when handled here. */
  async #inbound(value: unknown): Promise<acp.AnyMessage | undefined> {
    if (!isObject(value)) {
      await this.#malformed.report("malformed_frame");
      return undefined;
    }
    const message: Json = value.jsonrpc === "2.0" ? value : { ...value, jsonrpc: "2.0" };
    const method = typeof message.method === "string" ? message.method : undefined;
    const hasId = "id" in message && message.id !== undefined;
    if (method !== undefined && !hasId) {
      if (method === "session/update") {
        const handlers = this.#handlers;
        if (handlers === undefined) {
          await this.#notice("info", "unbound_update", "the agent sent a session update while no run was active");
          return undefined;
        }
        try {
          await handlers.onUpdate(message.params);
        } catch (error) {
          await this.#notice("warning", "update_failed", `a session update could not be handled: ${errorText(error)}`);
        }
        return undefined;
      }
      if (method === "$/cancel_request") return message as unknown as acp.AnyMessage;
      await this.#notice("info", "unmapped_notification", `the agent sent a notification the driver does not map (${method})`);
      return undefined;
    }
    if (method !== undefined && hasId) {
      const id = message.id;
      if (typeof id === "string" || typeof id === "number") this.#inboundRequests.set(id, method);
    }
    if (method === undefined && !hasId) {
      await this.#malformed.report("malformed_frame");
      return undefined;
    }
    if (method === undefined && !this.#outboundRequests.delete(message.id as string | number)) {
      await this.#malformed.report("malformed_frame");
      return undefined;
    }
    return message as unknown as acp.AnyMessage;
  }

  #outbound(message: acp.AnyMessage): void {
    const m = message as unknown as Json;
    if ("method" in m) {
      if (typeof m.id === "string" || typeof m.id === "number") this.#outboundRequests.add(m.id);
      return;
    }
    if (!("id" in m)) return;
    const id = m.id;
    if (typeof id !== "string" && typeof id !== "number") return;
    const method = this.#inboundRequests.get(id);
    if (method === undefined) return;
    this.#inboundRequests.delete(id);
    for (const wake of [...this.#answerWritten]) wake();
    const error = isObject(m.error) ? m.error : undefined;
    if (error !== undefined && error.code === -32602) {
      void this.#notice("warning", "invalid_request", `the agent sent a ${method} request that does not match the protocol schema; it was refused`);
    }
  }

  /**
   * Sends a request. Rejects with a typed error when the agent answers an error, when the process
   * exits first, or with the abort reason when `signal` aborts (the request is then abandoned
   * locally; no `$/cancel_request` is sent).
   */
  async request(method: string, params: unknown, signal: AbortSignal | undefined, phase: "before_delivery" | "after_delivery"): Promise<unknown> {
    signal?.throwIfAborted();
    const pending = this.#conn.agent.request<unknown>(method, params);
    pending.catch(() => {});
    const exit = this.process.exited.then((e) => ({ exit: e }));
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<"aborted">((resolve) => {
      if (signal === undefined) return;
      onAbort = () => resolve("aborted");
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const outcome = await Promise.race([pending.then((value) => ({ value }), (error: unknown) => ({ error })), exit, aborted]);
      if (outcome === "aborted") throw signal!.reason;
      if ("exit" in outcome) {
        // A response may still sit in the pipe behind the exit.
        const late = await Promise.race([
          pending.then((value) => ({ value }), (error: unknown) => ({ error })),
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200).unref()),
        ]);
        if (late !== undefined && "value" in late) return late.value;
        await this.process.stop();
        throw this.exitError(`during ${method}`, phase);
      }
      if ("error" in outcome) {
        const rpcCode = isObject(outcome.error) || outcome.error instanceof Error ? (outcome.error as { code?: unknown }).code : undefined;
        if (typeof rpcCode !== "number") {
          // Not an answer from the agent: the connection closed. A dying process explains it.
          const exited = await Promise.race([
            this.process.exited.then(() => true),
            new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSED_OUTPUT_EXIT_WAIT_MS).unref()),
          ]);
          if (exited) {
            await this.process.stop();
            throw this.exitError(`during ${method}`, phase);
          }
        }
        throw rpcFailure(method, outcome.error, phase, this.config.preset.login);
      }
      return outcome.value;
    } finally {
      if (onAbort && signal) signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Resolves once no inbound `method` request waits for its answer to be written (answers are
   * written in order, so whatever is sent next follows them), or when the connection closes.
   */
  async answersWritten(method: string): Promise<void> {
    while (this.alive && [...this.#inboundRequests.values()].includes(method)) {
      let wake!: () => void;
      const written = new Promise<void>((resolve) => (wake = resolve));
      this.#answerWritten.add(wake);
      try {
        await Promise.race([written, this.process.exited]);
      } finally {
        this.#answerWritten.delete(wake);
      }
    }
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.#conn.agent.notify(method, params).catch(() => {});
  }

  exitError(when: string, phase: "before_delivery" | "after_delivery"): ProviderError {
    const exit = this.exitStatus;
    const status = exit === undefined ? "" : exit.signal ? ` (signal ${exit.signal})` : ` (exit code ${String(exit.code)})`;
    const tail = stderrExcerpt(this.process.stderrTail());
    return new ProviderError(`the agent process exited ${when}${status}${tail ? `: ${tail}` : ""}`, {
      code: "provider_exited",
      retryable: phase === "before_delivery",
      phase,
    });
  }

  /**
   * Stops an agent that ignored its cancel the kit's way ({@link STOP_ESCALATION}): stdin end and
   * SIGTERM to the group at once, SIGKILL `termGraceMs` later. Joins a close already under way.
   */
  stopNow(): Promise<void> {
    this.#escalated = true;
    return this.close();
  }

  /** Closes the connection and stops the process group; `close()` runs it once. */
  protected async shutdown(): Promise<void> {
    this.#handlers = undefined;
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
    // Most agents exit on end of input and persist their session on the way out (Gemini's
    // session/load finds nothing after a SIGTERM); give them a moment before the group is signalled.
    const eofWait = this.#escalated ? 0 : (this.config.preset.eofExitMs ?? 1000);
    if (eofWait > 0 && this.exitStatus === undefined) {
      try {
        this.process.stdin.end();
      } catch {
        // Already closed.
      }
      await Promise.race([this.process.exited, new Promise((resolve) => setTimeout(resolve, eofWait).unref())]);
    }
    await this.process.stop({ graceMs: this.#escalated ? STOP_ESCALATION.termGraceMs : 1500 });
    // Revoked only once the agent (and its MCP clients) are gone.
    await this.#release();
  }

  /** An agent that exits by itself (a crashed standby or warm writer) releases what it owned at once, not at a `close()` that may never come. */
  protected override onExit(): void {
    void this.#release();
  }

  /** Closes the endpoint, removes the skills plugin and runs the other cleanups; each runs once. */
  #release(): Promise<void> {
    const endpoint = this.#hostTools;
    this.#hostTools = undefined;
    return Promise.all([endpoint?.close().catch(() => undefined), this.#skillsPlugin?.remove(), ...this.#cleanups.splice(0).map((cleanup) => cleanup().catch(() => undefined))]).then(() => undefined);
  }
}

