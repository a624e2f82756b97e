/**
 * One `codex app-server` process and its JSON-RPC connection: spawn (native binary, scrubbed
 * environment, own process group), the `initialize` → `initialized` handshake, and routing of the
 * server's notifications and requests to whoever currently owns the connection (nobody for an
 * unbound standby, then exactly one run).
 */
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";

import { withinInitializeTimeout } from "../../driver/initialize-timeout.js";
import { AdaptorError, ProviderError, type ProtocolError } from "../../errors/index.js";
import type { Redactor } from "../../redact/redact.js";
import { JsonRpcError, JsonRpcPeer, type ProcessHandle } from "../../process/index.js";
import { ProcessConnection, spawnLaunch } from "../../driver/kit/connection.js";
import { evidenceClock } from "../../driver/kit/evidence.js";
import { traceEnv } from "../../driver/kit/env.js";
import type { TraceContext } from "../../driver/types.js";
import { appServerArgs, childEnv, inheritedEnv, type ResolvedCodexConfig } from "./config.js";
import { decodeDeltaLine } from "./delta-line.js";
import { exitFailure } from "./errors.js";
import type { ResolvedExecutable } from "./executable.js";
import type { ClientRequest } from "./protocol/ClientRequest.js";
import type { InitializeParams } from "./protocol/InitializeParams.js";
import type { InitializeResponse } from "./protocol/InitializeResponse.js";
import { ProcessResources } from "./process-resources.js";

/** Methods of the generated client→server request union. */
export type ClientMethod = ClientRequest["method"];
/** The params type of one client request (`undefined` allowed where the protocol makes them optional). */
export type ClientParams<M extends ClientMethod> = Extract<ClientRequest, { method: M }>["params"];

/** What Codex reports as the client (`originator` header and User-Agent prefix). */
export const CLIENT_NAME = "agent_adaptor";

function packageVersion(): string {
  try {
    // Three levels up from both src/drivers/codex and dist/drivers/codex.
    const pkg = createRequire(import.meta.url)("../../../package.json") as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
const CLIENT_VERSION = packageVersion();

/** `agent_adaptor/0.171.0 (Debian 12; x86_64) …` → `0.171.0`. */
export function versionFromUserAgent(userAgent: unknown): string | undefined {
  if (typeof userAgent !== "string") return undefined;
  const match = /^[^/\s]+\/([0-9][^\s(]*)/.exec(userAgent);
  return match?.[1];
}

/** Handlers of the run that owns the connection. */
export interface ConnectionHandlers {
  onNotification(method: string, params: unknown): void | Promise<void>;
  onRequest(method: string, params: unknown, id: string, signal: AbortSignal): unknown;
  onProtocolError(error: ProtocolError, excerpt?: string): void;
}

export interface OpenOptions {
  config: ResolvedCodexConfig;
  executable: ResolvedExecutable | undefined;
  cwd: string;
  redactor: Redactor;
  signal: AbortSignal;
  /** Called right after the process started, before the handshake (for process accounting). */
  onSpawn(connection: CodexConnection): void;
  /** The run's trace context, passed as `TRACEPARENT` / `TRACESTATE` (Codex continues the trace). */
  traceContext?: TraceContext;
}

export class CodexConnection extends ProcessConnection {
  readonly peer: JsonRpcPeer;
  /** The `initialize` answer, once the handshake completed. */
  initialize: InitializeResponse | undefined;
  /** Spawn → `initialize` answer, in ms. */
  handshakeMs = 0;
  /** The host-tools endpoint and skills directory this process holds; released when it retires or exits. */
  readonly resources = new ProcessResources();
  /** The `account/read` answer an inspection of this process read (a standby's), reused by its run. */
  account: unknown;
  #handlers: ConnectionHandlers | undefined;
  #requestIds = 0;

  private constructor(process: ProcessHandle, redact: (text: string) => string) {
    super(process);
    this.peer = new JsonRpcPeer({
      input: process.stdout,
      output: process.stdin,
      jsonrpcField: false,
      redact,
      decode: decodeDeltaLine,
      onNotification: (method, params) => this.#handlers?.onNotification(method, params),
      onRequest: (method, params, signal) => {
        const handlers = this.#handlers;
        if (handlers === undefined) throw new JsonRpcError(-32601, `no run owns this connection: ${method}`);
        return handlers.onRequest(method, params, String(this.#requestIds++), signal);
      },
      onProtocolError: (error, excerpt) => this.#handlers?.onProtocolError(error, excerpt),
    });
  }

  /** The provider version from the `initialize` user agent. */
  get providerVersion(): string | undefined {
    return versionFromUserAgent(this.initialize?.userAgent);
  }

  /** Spawns `codex app-server` and completes the handshake. */
  static async open(options: OpenOptions): Promise<CodexConnection> {
    const { config, executable, signal } = options;
    signal.throwIfAborted();
    const { env, tmpDirToCreate } = childEnv(config, executable?.pathDirs ?? []);
    if (tmpDirToCreate !== undefined) await mkdir(tmpDirToCreate, { recursive: true });
    const started = evidenceClock();
    const process = await spawnLaunch({
      command: executable?.path ?? config.executable ?? "codex",
      args: appServerArgs(config),
      cwd: options.cwd,
      env: { ...env, ...traceEnv(options.traceContext) },
      inheritEnv: inheritedEnv(config),
      redactor: options.redactor,
    });
    const connection = new CodexConnection(process, (text) => options.redactor.redactText(text));
    options.onSpawn(connection);
    try {
      await connection.#handshake(config, signal);
      connection.handshakeMs = evidenceClock() - started;
      return connection;
    } catch (error) {
      await connection.close();
      if (signal.aborted) throw signal.reason;
      throw error;
    }
  }

  async #handshake(config: ResolvedCodexConfig, signal: AbortSignal): Promise<void> {
    const params: InitializeParams = {
      clientInfo: { name: CLIENT_NAME, title: "agent-adaptor", version: CLIENT_VERSION },
      capabilities: { experimentalApi: config.experimental, requestAttestation: false },
    };
    try {
      const answer = await withinInitializeTimeout("codex app-server", config.initializeTimeoutMs, signal, (bounded) =>
        this.peer.request<InitializeResponse>("initialize", params, { signal: bounded }),
      );
      if (typeof answer !== "object" || answer === null) {
        throw new ProviderError("codex app-server answered initialize with no result", { code: "malformed_response", phase: "before_delivery" });
      }
      this.initialize = answer;
      await this.peer.notify("initialized");
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (AdaptorError.is(error) && (error.code === "peer_exited" || error.code === "request_cancelled")) {
        await this.process.stop();
        throw exitFailure("before answering initialize", this.process.exitStatus, this.process.stderrTail(), "before_delivery");
      }
      if (error instanceof JsonRpcError) {
        throw new ProviderError(`codex app-server refused initialize: ${error.message}`, { code: "provider_error", phase: "before_delivery" });
      }
      throw error;
    }
  }

  /** Makes `handlers` the owner of notifications and server requests. Returns a detach function. */
  attach(handlers: ConnectionHandlers): () => void {
    this.#handlers = handlers;
    return () => {
      if (this.#handlers === handlers) this.#handlers = undefined;
    };
  }

  /** A client request, its method name and params checked against the generated protocol. */
  request<T, M extends ClientMethod = ClientMethod>(method: M, params: ClientParams<M>, signal?: AbortSignal): Promise<T> {
    return this.peer.request<T>(method, params, signal ? { signal } : {});
  }

  /** Stops the process group, then the peer, then releases what the process held; `close()` runs it once. */
  protected async shutdown(): Promise<void> {
    this.#handlers = undefined;
    try {
      await this.process.stop();
      await this.peer.close();
    } finally {
      await this.resources.release();
    }
  }

  /** A process that exited on its own releases what it held too. */
  protected override onExit(): void {
    void this.resources.release();
  }
}
