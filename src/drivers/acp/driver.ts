/**
 * The ACP driver (`agent-adaptor/drivers/acp`): any Agent Client Protocol agent over stdio,
 * through the `@agentclientprotocol/sdk` 2.x client API. It owns every process it starts:
 * transient ones for `inspect()`, at most one unbound standby per `prepare()` (initialized and
 * authenticated, no session), and one per run, retired when the run ends.
 */
import type { Policy } from "../../driver/vocabulary.js";
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
import { secretEnvValues, type Redactor } from "../../redact/redact.js";
import { driverRedactor } from "../../driver/kit/env.js";
import { ProcessBackedDriver } from "../../driver/kit/driver-base.js";
import type { ConnectionInspection } from "../../driver/kit/inspect.js";
import type { ProcessStats } from "../../driver/kit/processes.js";
import { ClaimableStandby } from "../../driver/kit/standby.js";
import { ACP_CONFIG_SCHEMA, configCompatibility, configFingerprint, configSecrets, resolveAcpConfig, validateAcpPolicy, type AcpConfig, type ResolvedAcpConfig } from "./config.js";
import { AcpConnection } from "./connection.js";
import { inspectConnection, TRANSPORT } from "./inspect.js";
import { agentCaps } from "./capabilities.js";
import { runAcpTurn } from "./run.js";
import { acpResourceSupport, instructionArgs, instructionEnv } from "./resources.js";

/** Media types sent as ACP `image` blocks (when the agent advertises `promptCapabilities.image`). */
export const ACP_IMAGE_MEDIA_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/** Media types sent as ACP `audio` blocks (when the agent advertises `promptCapabilities.audio`). */
export const ACP_AUDIO_MEDIA_TYPES: readonly string[] = ["audio/wav", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/webm", "audio/flac"];

/** Processes the driver owns (live agent pids and starts), for observability and tests. */
export type AcpProcessStats = ProcessStats;

/** The ACP driver: the Driver SPI plus process accounting. */
export interface AcpDriver extends Driver {
  fingerprint(): string;
  compatibility(): Record<string, string>;
  processes(): AcpProcessStats;
}

/** A warm, initialized agent with no session, kept by `prepare()`. */
export interface AcpStandby extends StandbyHandle {
  readonly pid: number;
}

class Standby extends ClaimableStandby<AcpConnection> implements AcpStandby {
  /** Whether this (initialized) agent can bind the run's session: new, or by resume/load/fork as it advertised. */
  serves(owner: object, use: StandbyUse, forkAllowed: boolean): boolean {
    if (!this.ownedBy(owner)) return false;
    const thread = use.thread;
    if (thread?.providerSessionId === undefined) return true;
    const caps = agentCaps(this.connection.init);
    return thread.fork === true ? caps.fork && forkAllowed : caps.resume || caps.loadSession;
  }
}

/** A thread's warm writer (`RunResponse.writer`): an agent process with `session` still open. */
class Writer extends ClaimableStandby<AcpConnection> {
  constructor(connection: AcpConnection, owner: object, readonly session: string) {
    super(connection, owner);
  }
}

/** Whether a standby handle is an ACP standby. */
export function isAcpStandby(handle: unknown): handle is AcpStandby {
  return handle instanceof Standby;
}

class AcpDriverImpl extends ProcessBackedDriver<AcpConnection> implements AcpDriver {
  readonly #config: ResolvedAcpConfig;
  readonly #redactor: Redactor;
  readonly #descriptor: Descriptor;
  readonly #sessionsCreated = new Map<string, number>();

  constructor(config: ResolvedAcpConfig) {
    super("acp", config.preset.install);
    this.#config = config;
    this.#redactor = driverRedactor(config.env, configSecrets(config));
    this.#descriptor = {
      id: config.preset.id,
      name: config.preset.name,
      transport: TRANSPORT,
      inputs: {
        // Declared statically; an agent that did not advertise the capability in `initialize`
        // fails the run with `input_mode_unsupported` before the prompt is sent.
        image: { modes: ["native"], mediaTypes: [...ACP_IMAGE_MEDIA_TYPES] },
        file: { modes: ["workspace_reference"] },
        audio: { modes: ["native"], mediaTypes: [...ACP_AUDIO_MEDIA_TYPES] },
      },
      features: {
        steer: "unsupported",
        resume: "native",
        fork: config.preset.fork === false ? "unsupported" : "native",
        approvals: true,
        userQuestions: false,
        structuredOutput: false,
        // `/compact` when the session's available commands advertise it (commands.ts).
        compact: "advertised",
      },
      resources: acpResourceSupport(config.preset),
      configSchema: ACP_CONFIG_SCHEMA,
    };
  }

  descriptor(): Descriptor {
    return structuredClone(this.#descriptor);
  }

  validateConfig(): void {
    // Validated when the driver was created; nothing it holds can change.
  }

  validatePolicy(policy: Policy): void {
    validateAcpPolicy(this.#config.preset.id, policy);
  }

  fingerprint(): string {
    return configFingerprint(this.#config);
  }

  compatibility(): Record<string, string> {
    return configCompatibility(this.#config);
  }

  secrets(): string[] {
    return [...configSecrets(this.#config), ...secretEnvValues(this.#config.env)];
  }

  /**
   * Starts and initializes an agent. A process that may serve a run (`authenticate`) gets the
   * launch arguments carrying the agent's instructions; an inspection gets the preset's
   * inspection arguments instead.
   */
  async #open(request: InspectRequest, signal: AbortSignal, authenticate: boolean): Promise<AcpConnection> {
    const extra = authenticate ? instructionArgs(request.resources, this.#config.preset) : [...(this.#config.preset.inspectArgs ?? [])];
    const instructions = authenticate ? await instructionEnv(request.resources, this.#config.preset) : undefined;
    let config = extra.length === 0 ? this.#config : { ...this.#config, args: [...this.#config.args, ...extra] };
    if (instructions !== undefined) config = { ...config, env: { ...config.env, ...instructions.env } };
    try {
      const connection = await this.owned.open((onSpawn) => AcpConnection.open({ config, cwd: request.workspace, redactor: this.#redactor, signal, authenticate, onSpawn }));
      if (instructions !== undefined) connection.adoptCleanup(instructions.remove);
      return connection;
    } catch (error) {
      await instructions?.remove();
      throw error;
    }
  }

  /** A standby's process, with the host-tools endpoint its sessions will be offered when the agent has host tools. */
  async #openStandby(request: PrepareRequest, signal: AbortSignal): Promise<AcpConnection> {
    const connection = await this.#open(request, signal, true);
    if (request.hostTools === undefined) return connection;
    try {
      connection.adoptHostTools(await request.hostTools.open());
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  }

  /** Inspection without `authenticate`; `prepare()` authenticates the process it keeps. */
  protected inspection(request: InspectRequest | PrepareRequest, signal: AbortSignal, keep: boolean): ConnectionInspection<AcpConnection> {
    return {
      open: () => (keep && "policy" in request ? this.#openStandby(request, signal) : this.#open(request, signal, keep)),
      inspect: (connection) => inspectConnection(connection, this.#config.command, signal),
      secrets: configSecrets(this.#config),
      redactor: this.#redactor,
      reportedCodes: ["auth_required"],
    };
  }

  /** Every known ACP agent creates no session until asked, so an initialized process is a safe, unbound standby. */
  protected standby(connection: AcpConnection): StandbyHandle {
    return new Standby(connection, this);
  }

  /**
   * Sessions are bound by request (`session/new`, `session/resume`, `session/load`,
   * `session/fork`), so an unbound agent serves a thread run when it advertised what the run needs.
   */
  canUseStandby(use: StandbyUse, standby: StandbyHandle): boolean {
    // A warm writer has its session open: it serves that session's next turn, not a fork.
    if (standby instanceof Writer) return use.thread?.providerSessionId === standby.session && use.thread.fork !== true;
    return standby instanceof Standby && standby.serves(this, use, this.#config.preset.fork !== false);
  }

  run(request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> {
    let loaded: string | undefined;
    return runAcpTurn(request, sink, signal, {
      driverId: this.#config.preset.id,
      traits: this.#config.preset,
      watchdogs: this.#config.watchdogs,
      sessionsCreated: this.#sessionsCreated,
      redact: (text) => this.#redactor.redactText(text),
      acquire: async (req, runSignal) => {
        let standby = req.standby instanceof Standby || req.standby instanceof Writer ? req.standby.claim(this) : undefined;
        // A warm session offered no host-tools server: a run that has host tools resumes it in a fresh process.
        if (standby !== undefined && req.standby instanceof Writer && req.hostTools !== undefined && standby.hostTools === undefined) {
          void standby.close().catch(() => undefined);
          standby = undefined;
        } else if (standby && req.standby instanceof Writer) loaded = req.standby.session;
        return standby ?? this.#open(req, runSignal, true);
      },
      loadedSession: () => loaded,
      keep: (connection, sessionId) => new Writer(connection, this, sessionId),
    });
  }
}

/**
 * Creates a driver for any ACP agent. The config is validated and captured now (a
 * `ConfigError` is thrown for an invalid one).
 *
 * @example
 * ```ts
 * const agent = createAgent(acp({ command: "my-agent", args: ["--acp"] }), { workspace: "/repo" });
 * ```
 */
export function acp(config: AcpConfig): AcpDriver {
  return new AcpDriverImpl(resolveAcpConfig(config));
}
