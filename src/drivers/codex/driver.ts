/**
 * The Codex driver (`agent-adaptor/drivers/codex`): OpenAI Codex through `codex app-server`,
 * JSON-RPC over stdio. It owns every process it starts: transient ones for `inspect()`, at most
 * one unbound standby per `prepare()` (initialized, no thread), and one per run, retired when the
 * run ends.
 */
import type { Policy, SkillRef } from "../../driver/vocabulary.js";
import type {
  Descriptor,
  Driver,
  EventSink,
  GoalRequest,
  HostToolsLink,
  InspectRequest,
  InspectResponse,
  ModelDefaults,
  PrepareRequest,
  PrepareResponse,
  RunRequest,
  RunResponse,
  StandbyHandle,
  StandbyUse,
  TraceContext,
} from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import { secretEnvValues, type Redactor } from "../../redact/redact.js";
import { stderrExcerpt } from "../../driver/json.js";
import { driverRedactor } from "../../driver/kit/env.js";
import { ProcessBackedDriver } from "../../driver/kit/driver-base.js";
import type { ConnectionInspection } from "../../driver/kit/inspect.js";
import type { ProcessStats } from "../../driver/kit/processes.js";
import { ClaimableStandby } from "../../driver/kit/standby.js";
import {
  CODEX_CONFIG_SCHEMA,
  configCompatibility,
  configFingerprint,
  configSecrets,
  resolveCodexConfig,
  validateCodexPolicy,
  type CodexConfig,
  type ResolvedCodexConfig,
} from "./config.js";
import { CodexConnection } from "./connection.js";
import { CODEX_INSTALL, resolveExecutable, type ResolvedExecutable } from "./executable.js";
import { inspectConnection, TRANSPORT } from "./inspect.js";
import { installSkills } from "./skills.js";
import { writerOffersTools } from "./writer-tools.js";
import type { ThreadListResponse } from "./protocol/v2/ThreadListResponse.js";
import type { ThreadLoadedListResponse } from "./protocol/v2/ThreadLoadedListResponse.js";
import { runTurn } from "./run.js";
import { goalOperation } from "./goals.js";
import type { GoalResponse } from "../../driver/goals.js";

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
  features: { steer: "native", resume: "native", fork: "native", approvals: true, userQuestions: true, structuredOutput: true, compact: "native" },
  resources: { instructions: true, hostTools: true, skills: true, mcp: { stdio: true, http: true } },
  configSchema: CODEX_CONFIG_SCHEMA,
};

/** Processes the driver owns (live `codex app-server` pids and starts), for observability and tests. */
export type CodexProcessStats = ProcessStats;

/** The Codex driver: the Driver SPI plus process accounting. */
export interface CodexDriver extends Driver {
  steer(runId: string, text: string, signal: AbortSignal): Promise<void>;
  goals(request: GoalRequest, signal: AbortSignal): Promise<GoalResponse>;
  fingerprint(): string;
  compatibility(): Record<string, string>;
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

class Standby extends ClaimableStandby<CodexConnection> implements CodexStandby {
  async threads(signal?: AbortSignal): Promise<CodexStandbyThreads> {
    if (this.claimed || !this.connection.alive) throw new ProviderError("codex: the standby is no longer available", { code: "standby_unavailable" });
    const [list, loaded] = await Promise.all([
      this.connection.request<ThreadListResponse>("thread/list", {}, signal),
      this.connection.request<ThreadLoadedListResponse>("thread/loaded/list", {}, signal),
    ]);
    return {
      persisted: (Array.isArray(list?.data) ? list.data : []).map((t) => t?.id).filter((id): id is string => typeof id === "string"),
      loaded: (Array.isArray(loaded?.data) ? loaded.data : []).filter((id): id is string => typeof id === "string"),
    };
  }
}

/** A thread's warm writer: an app-server whose completed turn left `session` loaded (see `RunResponse.writer`). */
class Writer extends ClaimableStandby<CodexConnection> {
  constructor(connection: CodexConnection, owner: object, readonly session: string) {
    super(connection, owner);
  }
}

class CodexDriverImpl extends ProcessBackedDriver<CodexConnection> implements CodexDriver {
  readonly #config: ResolvedCodexConfig;
  readonly #executable: ResolvedExecutable | undefined;
  readonly #redactor: Redactor;
  readonly #steers = new Map<string, (text: string, signal: AbortSignal) => Promise<void>>();

  constructor(config: ResolvedCodexConfig) {
    super("codex", CODEX_INSTALL);
    this.#config = config;
    const path = Object.hasOwn(config.env, "PATH") ? config.env.PATH : process.env.PATH;
    this.#executable = resolveExecutable(config.executable, path);
    this.#redactor = driverRedactor(config.env, configSecrets(config));
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

  compatibility(): Record<string, string> {
    return configCompatibility(this.#config);
  }

  /** The config's model and effort; core folds them under the call's (see `Driver.defaults`). */
  defaults(): ModelDefaults {
    return { ...(this.#config.model !== undefined ? { model: this.#config.model } : {}), ...(this.#config.effort !== undefined ? { effort: this.#config.effort } : {}) };
  }

  secrets(): string[] {
    return [...configSecrets(this.#config), ...secretEnvValues(this.#config.env)];
  }

  /**
   * A fresh app-server with what the process holds: the agent's skills (materialized and added as
   * an extra skills root) and, when `hostTools` is given, its own host-tools endpoint. MCP servers
   * are not per process: each thread request declares them (mcp.ts).
   */
  async #open(cwd: string, skills: readonly SkillRef[], hostTools: HostToolsLink | undefined, signal: AbortSignal, traceContext?: TraceContext): Promise<CodexConnection> {
    const connection = await this.owned.open((onSpawn) =>
      CodexConnection.open({ config: this.#config, executable: this.#executable, cwd, redactor: this.#redactor, signal, onSpawn, ...(traceContext ? { traceContext } : {}) }),
    );
    try {
      await installSkills(connection, skills, signal);
      if (hostTools !== undefined) connection.resources.adoptHostTools(await hostTools.open());
      return connection;
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  #executablePath(): string {
    return this.#executable?.path ?? this.#config.executable ?? "codex";
  }

  /** Inspection over a fresh connection; failures to start become observations. */
  protected inspection(request: InspectRequest, signal: AbortSignal, keep: boolean): ConnectionInspection<CodexConnection> {
    // A standby registers its own endpoint; a transient inspection starts no MCP server at all.
    const hostTools = keep && "hostTools" in request ? (request as PrepareRequest).hostTools : undefined;
    return {
      open: () => this.#open(request.workspace, request.resources.skills, hostTools, signal),
      inspect: (connection) => inspectConnection(connection, request, this.#executablePath(), signal),
      secrets: configSecrets(this.#config),
      redactor: this.#redactor,
      describeUntyped: (error) => `codex app-server could not be started: ${stderrExcerpt(String(error))}`,
    };
  }

  protected standby(connection: CodexConnection): StandbyHandle {
    return new Standby(connection, this);
  }

  /**
   * `codex app-server` starts, resumes or forks a thread by request, so its unbound process serves
   * any run; a warm writer serves only the next turn of the session it has loaded.
   */
  canUseStandby(use: StandbyUse, standby: StandbyHandle): boolean {
    if (standby instanceof Writer) return use.thread?.providerSessionId === standby.session && use.thread.fork !== true;
    return standby instanceof Standby;
  }

  async run(request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> {
    let loaded: string | undefined;
    return runTurn(request, sink, signal, {
      acquire: async (req, runSignal) => {
        const claimed = await this.#claim(req, runSignal);
        if (claimed !== undefined && req.standby instanceof Writer) loaded = req.standby.session;
        return claimed ?? this.#open(req.workspace, req.resources.skills, req.hostTools, runSignal, req.traceContext);
      },
      loadedThread: () => loaded,
      keep: (connection, threadId) => new Writer(connection, this, threadId),
      registerSteer: (runId, steer) => {
        this.#steers.set(runId, steer);
        return () => {
          if (this.#steers.get(runId) === steer) this.#steers.delete(runId);
        };
      },
    });
  }

  /**
   * The claimed standby or warm writer, its host-tools endpoint bound to this run. A standby
   * prepared without an endpoint gets one now (its threads are not started yet); a warm writer
   * whose loaded thread has no endpoint, or lacks a tool the run binds (writer-tools.ts), cannot
   * offer the run's tools, so it is closed and the run starts a fresh process.
   */
  async #claim(request: RunRequest, signal: AbortSignal): Promise<CodexConnection | undefined> {
    const standby = request.standby;
    const connection = standby instanceof Standby || standby instanceof Writer ? standby.claim(this) : undefined;
    if (connection === undefined || request.hostTools === undefined) return connection;
    const endpoint = connection.resources.hostTools;
    if (endpoint !== undefined) {
      // Not awaited: Codex does not re-list on the announcement (a writer's tools are checked below).
      void request.hostTools.bind(endpoint);
      if (!(standby instanceof Writer) || (await writerOffersTools(connection, standby.session, endpoint, signal))) return connection;
    }
    if (standby instanceof Writer) {
      await connection.close();
      return undefined;
    }
    try {
      connection.resources.adoptHostTools(await request.hostTools.open());
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  }

  /**
   * The thread's native goal (goals.ts), on a short-lived app-server of its own that never loads
   * the thread; it is stopped and reaped before this resolves.
   */
  async goals(request: GoalRequest, signal: AbortSignal): Promise<GoalResponse> {
    signal.throwIfAborted();
    const connection = await this.#open(request.workspace, [], undefined, signal);
    try {
      return await goalOperation(connection, request, signal);
    } finally {
      await connection.close();
    }
  }

  async steer(runId: string, text: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const steer = this.#steers.get(runId);
    if (steer === undefined) throw new ProviderError("codex: no such run in flight", { code: "steer_rejected", phase: "after_delivery" });
    await steer(text, signal);
  }

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
