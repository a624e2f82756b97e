/**
 * The Codex driver (`agent-adaptor/drivers/codex`): OpenAI Codex through `codex app-server`,
 * JSON-RPC over stdio. It owns every process it starts: transient ones for `inspect()`, at most
 * one unbound standby per `prepare()` (initialized, no thread), and one per run, retired when the
 * run ends.
 */
import type { McpServerConfig, Policy } from "../../driver/vocabulary.js";
import type {
  Descriptor,
  Driver,
  EventSink,
  InspectRequest,
  InspectResponse,
  PrepareRequest,
  PrepareResponse,
  RunRequest,
  RunResponse,
  StandbyHandle,
  StandbyUse,
} from "../../driver/types.js";
import { AdaptorError, ExecutableNotFoundError, ProviderError } from "../../errors/index.js";
import { createRedactor, secretEnvValues, type Redactor } from "../../redact/redact.js";
import {
  CODEX_CONFIG_SCHEMA,
  configFingerprint,
  configSecrets,
  resolveCodexConfig,
  validateCodexPolicy,
  type CodexConfig,
  type ResolvedCodexConfig,
} from "./config.js";
import { CodexConnection } from "./connection.js";
import { stderrExcerpt } from "./errors.js";
import { CODEX_INSTALL, resolveExecutable, type ResolvedExecutable } from "./executable.js";
import { allUnavailable, inspectConnection, TRANSPORT } from "./inspect.js";
import type { ThreadListResponse } from "./protocol/v2/ThreadListResponse.js";
import type { ThreadLoadedListResponse } from "./protocol/v2/ThreadLoadedListResponse.js";
import { runTurn } from "./run.js";

/** Media types Codex reads as native images (`localImage`). */
export const CODEX_IMAGE_MEDIA_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

const DESCRIPTOR: Descriptor = {
  id: "codex",
  name: "OpenAI Codex",
  transport: TRANSPORT,
  inputs: {
    image: { modes: ["native"], mediaTypes: [...CODEX_IMAGE_MEDIA_TYPES] },
    file: { modes: [] },
    audio: { modes: [] },
  },
  features: { steer: "native", resume: "native", fork: "native", approvals: true, userQuestions: true, structuredOutput: true },
  configSchema: CODEX_CONFIG_SCHEMA,
};

/** Processes the driver owns, for observability and tests. */
export interface CodexProcessStats {
  /** Pids of live `codex app-server` processes (standbys, runs, inspections). */
  live: number[];
  /** How many processes the driver has started since it was created. */
  started: number;
}

/** The Codex driver: the Driver SPI plus process accounting. */
export interface CodexDriver extends Driver {
  steer(runId: string, text: string, signal: AbortSignal): Promise<void>;
  fingerprint(): string;
  processes(): CodexProcessStats;
}

/** The threads a standby's process knows (always empty for an unbound standby). */
export interface CodexStandbyThreads {
  /** `thread/list`: persisted threads in the Codex home. */
  persisted: string[];
  /** `thread/loaded/list`: threads loaded in the standby's process. */
  loaded: string[];
}

/** A warm, initialized `codex app-server` with no thread, kept by `prepare()`. */
export interface CodexStandby extends StandbyHandle {
  readonly pid: number;
  /** Read-only proof that the standby is unbound: `thread/list` and `thread/loaded/list` on its process. */
  threads(signal?: AbortSignal): Promise<CodexStandbyThreads>;
}

/** Whether a standby handle is a Codex standby. */
export function isCodexStandby(handle: unknown): handle is CodexStandby {
  return handle instanceof Standby;
}

class Standby implements CodexStandby {
  readonly #connection: CodexConnection;
  readonly #owner: object;
  #claimed = false;

  constructor(connection: CodexConnection, owner: object) {
    this.#connection = connection;
    this.#owner = owner;
  }

  get pid(): number {
    return this.#connection.pid;
  }

  isAlive(): boolean {
    return this.#connection.alive;
  }

  async threads(signal?: AbortSignal): Promise<CodexStandbyThreads> {
    if (this.#claimed || !this.#connection.alive) throw new ProviderError("codex: the standby is no longer available", { code: "standby_unavailable" });
    const [list, loaded] = await Promise.all([
      this.#connection.request<ThreadListResponse>("thread/list", {}, signal),
      this.#connection.request<ThreadLoadedListResponse>("thread/loaded/list", {}, signal),
    ]);
    return {
      persisted: (Array.isArray(list?.data) ? list.data : []).map((t) => t?.id).filter((id): id is string => typeof id === "string"),
      loaded: (Array.isArray(loaded?.data) ? loaded.data : []).filter((id): id is string => typeof id === "string"),
    };
  }

  /** Hands the connection to one run. */
  claim(owner: object): CodexConnection | undefined {
    if (owner !== this.#owner || this.#claimed || !this.#connection.alive) return undefined;
    this.#claimed = true;
    return this.#connection;
  }

  close(): Promise<void> {
    return this.#connection.close();
  }
}

class CodexDriverImpl implements CodexDriver {
  readonly #config: ResolvedCodexConfig;
  readonly #executable: ResolvedExecutable | undefined;
  readonly #redactor: Redactor;
  readonly #live = new Map<number, CodexConnection>();
  readonly #steers = new Map<string, (text: string, signal: AbortSignal) => Promise<void>>();
  #started = 0;
  #closed = false;

  constructor(config: ResolvedCodexConfig) {
    this.#config = config;
    const path = Object.hasOwn(config.env, "PATH") ? config.env.PATH : process.env.PATH;
    this.#executable = resolveExecutable(config.executable, path);
    this.#redactor = createRedactor({ env: { ...process.env, ...definedOnly(config.env) }, secrets: configSecrets(config) });
  }

  descriptor(): Descriptor {
    return structuredClone(DESCRIPTOR);
  }

  validateConfig(): void {
    // The config was validated when the driver was created; nothing it holds can change.
  }

  validatePolicy(policy: Policy): void {
    validateCodexPolicy(policy);
  }

  fingerprint(): string {
    return configFingerprint(this.#config, this.#executable?.path);
  }

  secrets(): string[] {
    return [...configSecrets(this.#config), ...secretEnvValues(this.#config.env)];
  }

  processes(): CodexProcessStats {
    return { live: [...this.#live.keys()], started: this.#started };
  }

  async #open(cwd: string, mcp: readonly McpServerConfig[], signal: AbortSignal): Promise<CodexConnection> {
    if (this.#closed) throw new ProviderError("codex: the driver is closed", { code: "driver_closed", phase: "before_delivery" });
    const connection = await CodexConnection.open({
      config: this.#config,
      executable: this.#executable,
      cwd,
      mcp,
      redactor: this.#redactor,
      signal,
      onSpawn: (c) => {
        this.#started++;
        this.#live.set(c.pid, c);
        void c.exited.then(() => this.#live.delete(c.pid));
      },
    }).catch((error: unknown) => {
      throw ExecutableNotFoundError.explain(error, CODEX_INSTALL);
    });
    if (this.#closed) {
      await connection.close();
      throw new ProviderError("codex: the driver is closed", { code: "driver_closed", phase: "before_delivery" });
    }
    return connection;
  }

  #executablePath(): string {
    return this.#executable?.path ?? this.#config.executable ?? "codex";
  }

  /** Inspection over a fresh or given connection; failures to start become observations. */
  async #inspectWith(request: InspectRequest, signal: AbortSignal, keep: boolean): Promise<{ inspection: InspectResponse; connection?: CodexConnection }> {
    const secrets = configSecrets(this.#config);
    let connection: CodexConnection;
    try {
      connection = await this.#open(request.workspace, request.resources.mcp, signal);
    } catch (error) {
      signal.throwIfAborted();
      if (error instanceof ExecutableNotFoundError) return { inspection: { ...allUnavailable("executable_not_found", error.summary), secrets } };
      if (AdaptorError.is(error) && error.code === "executable_not_found") {
        return { inspection: { ...allUnavailable("executable_not_found", error.message), secrets } };
      }
      if (AdaptorError.is(error) && (error.code === "config_invalid" || error.code === "driver_closed")) throw error;
      const message = AdaptorError.is(error) ? error.message : `codex app-server could not be started: ${stderrExcerpt(String(error))}`;
      const code = AdaptorError.is(error) && error.code === "timeout" ? "timeout" : "provider_error";
      return { inspection: { ...allUnavailable(code, message), secrets } };
    }
    try {
      const panels = await inspectConnection(connection, request.workspace, this.#executablePath(), signal);
      if (keep && connection.alive) return { inspection: { ...panels, secrets }, connection };
      // Stopping starts now (stdin closed, SIGTERM sent); the reaping finishes in the background
      // and `close()` waits for it, so the caller does not pay for the process's exit.
      void connection.close();
      return { inspection: { ...panels, secrets } };
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  async inspect(request: InspectRequest, signal: AbortSignal): Promise<InspectResponse> {
    return (await this.#inspectWith(request, signal, false)).inspection;
  }

  async prepare(request: PrepareRequest, signal: AbortSignal): Promise<PrepareResponse> {
    const { inspection, connection } = await this.#inspectWith(request, signal, true);
    if (connection === undefined) return { inspection, process: "transient" };
    if (signal.aborted) {
      await connection.close();
      signal.throwIfAborted();
    }
    return { inspection, process: "ready", standby: new Standby(connection, this) };
  }

  /** `codex app-server` starts, resumes or forks a thread by request, so its unbound process serves any run. */
  canUseStandby(_use: StandbyUse, standby: StandbyHandle): boolean {
    return standby instanceof Standby;
  }

  async run(request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> {
    return runTurn(request, sink, signal, {
      acquire: async (req, runSignal) => {
        const standby = req.standby instanceof Standby ? req.standby.claim(this) : undefined;
        return standby ?? this.#open(req.workspace, req.resources.mcp, runSignal);
      },
      registerSteer: (runId, steer) => {
        this.#steers.set(runId, steer);
        return () => {
          if (this.#steers.get(runId) === steer) this.#steers.delete(runId);
        };
      },
      ...(this.#config.effort !== undefined ? { defaultEffort: this.#config.effort } : {}),
    });
  }

  async steer(runId: string, text: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const steer = this.#steers.get(runId);
    if (steer === undefined) throw new ProviderError("codex: no such run in flight", { code: "steer_rejected", phase: "after_delivery" });
    await steer(text, signal);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#live.values()].map((c) => c.close()));
  }
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Creates a Codex driver. The config is validated and captured now (a `ConfigError` is thrown
 * for an invalid one); the executable is resolved once.
 *
 * @example
 * ```ts
 * const agent = createAgent(codex({ model: "gpt-5.4" }), { workspace: "/repo" });
 * ```
 */
export function codex(config: CodexConfig = {}): CodexDriver {
  return new CodexDriverImpl(resolveCodexConfig(config));
}
