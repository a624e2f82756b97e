/**
 * The Pi driver (`agent-adaptor/drivers/pi`): Pi over `pi --mode rpc`. It owns every process it
 * starts: transient ones for `inspect()`, at most one unbound standby per `prepare()` (Pi writes
 * no session file before the first answer, so a ready process holds no session), and one per
 * run, retired when the run ends. A thread resumes (`--session`) or forks (`--fork`) a session
 * chosen at spawn, from the configured session directory.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type {
  Descriptor,
  Driver,
  EventSink,
  HostToolsEndpoint,
  InspectRequest,
  InspectResponse,
  ModelDefaults,
  PrepareRequest,
  PrepareResponse,
  RunRequest,
  RunResponse,
  StandbyHandle,
  StandbyUse,
} from "../../driver/types.js";
import type { Policy } from "../../driver/vocabulary.js";
import { ProviderError } from "../../errors/index.js";
import type { Redactor } from "../../redact/redact.js";
import { driverRedactor } from "../../driver/kit/env.js";
import { ProcessBackedDriver } from "../../driver/kit/driver-base.js";
import type { ConnectionInspection } from "../../driver/kit/inspect.js";
import type { ProcessStats } from "../../driver/kit/processes.js";
import { ClaimableStandby } from "../../driver/kit/standby.js";
import {
  BOUND_KEY_ENV,
  BOUND_PROVIDER,
  boundModelsJson,
  configCompatibility,
  configFingerprint,
  configSecrets,
  PI_CONFIG_SCHEMA,
  resolvePiConfig,
  validatePiPolicy,
  type PiConfig,
  type ResolvedPiConfig,
} from "./config.js";
import { inspectConnection, TRANSPORT } from "./inspect.js";
import { PiConnection } from "./rpc.js";
import { needsExtension, openProcessResources, type ProcessResources, type ResourceRequest } from "./resources.js";
import { PI_IMAGE_MEDIA_TYPES, runPiTurn } from "./run.js";

const INSTALL = "npm install -g @mariozechner/pi-coding-agent";

/** Processes the driver owns (live Pi pids and starts), for observability and tests. */
export type PiProcessStats = ProcessStats;

/** The Pi driver: the Driver SPI, Pi's follow-up queue, and process accounting. */
export interface PiDriver extends Driver {
  /** Throws `ConfigError` for a policy that needs approvals or a sandbox (Pi has neither). */
  validatePolicy(policy: Policy): void;
  fingerprint(): string;
  compatibility(): Record<string, string>;
  /** The bound API key (and secret-looking `env` values). */
  secrets(): string[];
  /** Pi's `steer`: delivered after the current tool calls, before the next model call. */
  steer(runId: string, text: string, signal: AbortSignal): Promise<void>;
  /**
   * Queue `text` for the run in flight, delivered when the agent would otherwise stop (Pi's
   * `follow_up`): the run goes on with it as the next user message. Rejects when the run has ended.
   */
  followUp(runId: string, text: string, signal: AbortSignal): Promise<void>;
  /** Processes the driver owns now and has started. */
  processes(): PiProcessStats;
}

/** A ready Pi process with no session file, kept by `prepare()`. */
class Standby extends ClaimableStandby<PiConnection> {
  /** A session to resume or fork is chosen at spawn: the standby serves new sessions only. */
  serves(owner: object, use: StandbyUse): boolean {
    return this.ownedBy(owner) && use.thread?.providerSessionId === undefined;
  }
}

type QueueSender = (kind: "steer" | "follow_up", text: string, signal: AbortSignal) => Promise<void>;

class PiDriverImpl extends ProcessBackedDriver<PiConnection> implements PiDriver {
  readonly #config: ResolvedPiConfig;
  readonly #redactor: Redactor;
  readonly #queues = new Map<string, QueueSender>();
  readonly #descriptor: Descriptor;
  /** The host-tools endpoint each process registered (a standby's is bound to the run claiming it). */
  readonly #endpoints = new WeakMap<PiConnection, HostToolsEndpoint>();
  /** The isolated agent directory holding a bound provider's `models.json`. */
  #agentDir: Promise<string> | undefined;

  constructor(config: ResolvedPiConfig) {
    super("pi", INSTALL);
    this.#config = config;
    this.#redactor = driverRedactor(config.env, configSecrets(config));
    this.#descriptor = {
      id: "pi",
      name: "Pi",
      transport: TRANSPORT,
      inputs: {
        // Declared statically; an image for a model without image input fails before the prompt.
        image: { modes: ["native"], mediaTypes: [...PI_IMAGE_MEDIA_TYPES] },
        file: { modes: [] },
        audio: { modes: [] },
      },
      features: { steer: "native", resume: "native", fork: "native", approvals: false, userQuestions: false, structuredOutput: false },
      // Skills natively (--skill); instructions, host tools and MCP servers through the driver's extension.
      resources: { instructions: true, hostTools: true, skills: true, mcp: { stdio: true, http: true } },
      configSchema: PI_CONFIG_SCHEMA,
    };
  }

  descriptor(): Descriptor {
    return structuredClone(this.#descriptor);
  }

  validateConfig(): void {
    // Validated when the driver was created; nothing it holds can change.
  }

  validatePolicy(policy: Policy): void {
    validatePiPolicy(policy);
  }

  fingerprint(): string {
    return configFingerprint(this.#config);
  }

  compatibility(): Record<string, string> {
    return configCompatibility(this.#config);
  }

  /**
   * A bound provider's `model`, the one every process starts on (`--model`); core folds it under
   * the call's (see `Driver.defaults`). The config names no thinking level, so no effort.
   */
  defaults(): ModelDefaults {
    return this.#config.provider !== undefined ? { model: this.#config.provider.model } : {};
  }

  secrets(): string[] {
    return configSecrets(this.#config);
  }

  #boundAgentDir(): Promise<string> {
    const provider = this.#config.provider!;
    this.#agentDir ??= (async () => {
      const dir = await mkdtemp(join(tmpdir(), "agent-adaptor-pi-"));
      const file = join(dir, "models.json");
      await writeFile(file, `${JSON.stringify(boundModelsJson(provider, this.#config.apiKey !== undefined), null, 2)}\n`, { mode: 0o600 });
      await chmod(dir, 0o700);
      return dir;
    })();
    return this.#agentDir;
  }

  async #spawnArgs(session: string[], given: ProcessResources, extension: boolean): Promise<{ args: string[]; env: Record<string, string | undefined> }> {
    const c = this.#config;
    const args = [...c.args, "--mode", "rpc"];
    const env: Record<string, string | undefined> = { ...c.env, ...given.env };
    if (c.sessionDir !== undefined) args.push("--session-dir", c.sessionDir);
    if (c.provider !== undefined) {
      args.push("--provider", BOUND_PROVIDER, "--model", c.provider.model);
      env.PI_CODING_AGENT_DIR = await this.#boundAgentDir();
      if (c.apiKey !== undefined) env[BOUND_KEY_ENV] = c.apiKey;
    } else if (c.agentDir !== undefined) {
      env.PI_CODING_AGENT_DIR = c.agentDir;
    }
    // Pi's --tools allowlist would also drop the extension's tools: the extension activates the allowed built-ins beside its own.
    if (c.tools !== undefined && extension) args.push("--no-builtin-tools");
    else if (c.tools !== undefined) args.push(...(c.tools.length === 0 ? ["--no-tools"] : ["--tools", c.tools.join(",")]));
    args.push(...given.args, ...session);
    return { args, env };
  }

  /** What a process is given of the agent's resources. */
  #resources(resources: RunRequest["resources"], hostTools: ResourceRequest["hostTools"], inspectOnly = false): ResourceRequest {
    const request: ResourceRequest = { resources, inspectOnly };
    if (hostTools !== undefined) request.hostTools = hostTools;
    if (this.#config.tools !== undefined) request.builtinTools = this.#config.tools;
    return request;
  }

  /** Starts Pi with its resources; they are released when the process exits (or fails to start). */
  #open(cwd: string, signal: AbortSignal, resources: ResourceRequest, session: string[] = []): Promise<PiConnection> {
    return this.owned.open(async (onSpawn) => {
      signal.throwIfAborted();
      const given = await openProcessResources(resources);
      try {
        const { args, env } = await this.#spawnArgs(session, given, needsExtension(resources));
        const c = this.#config;
        const connection = await PiConnection.open({
          command: c.executable,
          args,
          cwd,
          env,
          inheritEnv: c.inheritEnv,
          redactor: this.#redactor,
          initializeTimeoutMs: c.initializeTimeoutMs,
          signal,
          onSpawn,
        });
        if (given.endpoint !== undefined) this.#endpoints.set(connection, given.endpoint);
        connection.retireWith(given.close);
        return connection;
      } catch (error) {
        await given.close();
        throw error;
      }
    });
  }

  protected inspection(request: InspectRequest, signal: AbortSignal, keep: boolean): ConnectionInspection<PiConnection> {
    // prepare() keeps the process as a standby: it gets everything a run would (its endpoint unbound until a run claims it).
    const hostTools = keep ? (request as PrepareRequest).hostTools : undefined;
    return {
      open: () => this.#open(request.workspace, signal, this.#resources(request.resources, hostTools, !keep)),
      inspect: (connection) => inspectConnection(connection, this.#config.executable, signal, request.resources, keep),
      secrets: configSecrets(this.#config),
      redactor: this.#redactor,
    };
  }

  protected standby(connection: PiConnection): StandbyHandle {
    return new Standby(connection, this);
  }

  canUseStandby(use: StandbyUse, standby: StandbyHandle): boolean {
    return standby instanceof Standby && standby.serves(this, use);
  }

  run(request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> {
    return runPiTurn(request, sink, signal, {
      acquire: async (req, runSignal) => {
        const thread = req.thread;
        const resources = this.#resources(req.resources, req.hostTools);
        if (thread?.providerSessionId !== undefined) {
          return this.#open(req.workspace, runSignal, resources, [thread.fork === true ? "--fork" : "--session", thread.providerSessionId]);
        }
        const standby = await this.#claim(req);
        return standby ?? this.#open(req.workspace, runSignal, resources);
      },
      registerQueue: (runId, send) => {
        this.#queues.set(runId, send);
        return () => {
          if (this.#queues.get(runId) === send) this.#queues.delete(runId);
        };
      },
      redact: (text) => this.#redactor.redactText(text),
    });
  }

  /**
   * The run's standby, its endpoint bound to the run. A standby without an endpoint cannot offer
   * a run's host tools (its Pi has no extension connected): it is closed and a process started.
   */
  async #claim(request: RunRequest): Promise<PiConnection | undefined> {
    if (!(request.standby instanceof Standby)) return undefined;
    const connection = request.standby.claim(this);
    if (connection === undefined) return undefined;
    const endpoint = this.#endpoints.get(connection);
    if (request.hostTools === undefined) return connection;
    if (endpoint === undefined) {
      await connection.close();
      return undefined;
    }
    // Not awaited: the extension lists the tools again before every prompt, not on the announcement.
    void request.hostTools.bind(endpoint);
    return connection;
  }

  #queue(kind: "steer" | "follow_up", runId: string, text: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const send = this.#queues.get(runId);
    if (send === undefined) return Promise.reject(new ProviderError("pi: no such run in flight", { code: "steer_rejected", phase: "after_delivery" }));
    return send(kind, text, signal);
  }

  steer(runId: string, text: string, signal: AbortSignal): Promise<void> {
    return this.#queue("steer", runId, text, signal);
  }

  followUp(runId: string, text: string, signal: AbortSignal): Promise<void> {
    return this.#queue("follow_up", runId, text, signal);
  }

  override async close(): Promise<void> {
    await super.close();
    const dir = this.#agentDir;
    this.#agentDir = undefined;
    if (dir !== undefined) await rm(await dir.catch(() => ""), { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Creates a driver for Pi (`pi --mode rpc`). The config is validated and captured now (a
 * `ConfigError` is thrown for an invalid one).
 *
 * @example
 * ```ts
 * const agent = createAgent(
 *   pi({ provider: { baseUrl: "http://127.0.0.1:8080/v1", apiKeyEnv: "MY_KEY", model: "my-model" } }),
 *   { workspace: "/repo" },
 * );
 * ```
 */
export function pi(config: PiConfig = {}): PiDriver {
  return new PiDriverImpl(resolvePiConfig(config));
}
