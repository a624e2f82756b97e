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
import { AdaptorError, ExecutableNotFoundError, ProviderError } from "../../errors/index.js";
import { createRedactor, secretEnvValues, type Redactor } from "../../redact/redact.js";
import { ACP_CONFIG_SCHEMA, configFingerprint, configSecrets, resolveAcpConfig, validateAcpPolicy, type AcpConfig, type ResolvedAcpConfig } from "./config.js";
import { AcpConnection } from "./connection.js";
import { allUnavailable, inspectConnection, TRANSPORT } from "./inspect.js";
import { errorText } from "../../driver/json.js";
import { agentCaps, runAcpTurn } from "./run.js";

/** Media types sent as ACP `image` blocks (when the agent advertises `promptCapabilities.image`). */
export const ACP_IMAGE_MEDIA_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/** Media types sent as ACP `audio` blocks (when the agent advertises `promptCapabilities.audio`). */
export const ACP_AUDIO_MEDIA_TYPES: readonly string[] = ["audio/wav", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/webm", "audio/flac"];

/** Processes the driver owns, for observability and tests. */
export interface AcpProcessStats {
  live: number[];
  started: number;
}

/** The ACP driver: the Driver SPI plus process accounting. */
export interface AcpDriver extends Driver {
  fingerprint(): string;
  processes(): AcpProcessStats;
}

/** A warm, initialized agent with no session, kept by `prepare()`. */
export interface AcpStandby extends StandbyHandle {
  readonly pid: number;
}

class Standby implements AcpStandby {
  readonly #connection: AcpConnection;
  readonly #owner: object;
  #claimed = false;

  constructor(connection: AcpConnection, owner: object) {
    this.#connection = connection;
    this.#owner = owner;
  }

  get pid(): number {
    return this.#connection.pid;
  }

  isAlive(): boolean {
    return this.#connection.alive;
  }

  /** Whether this (initialized) agent can bind the run's session: new, or by resume/load/fork as it advertised. */
  serves(owner: object, use: StandbyUse, forkAllowed: boolean): boolean {
    if (owner !== this.#owner) return false;
    const thread = use.thread;
    if (thread?.providerSessionId === undefined) return true;
    const caps = agentCaps(this.#connection.init);
    return thread.fork === true ? caps.fork && forkAllowed : caps.resume || caps.loadSession;
  }

  claim(owner: object): AcpConnection | undefined {
    if (owner !== this.#owner || this.#claimed || !this.#connection.alive) return undefined;
    this.#claimed = true;
    return this.#connection;
  }

  close(): Promise<void> {
    return this.#connection.close();
  }
}

/** Whether a standby handle is an ACP standby. */
export function isAcpStandby(handle: unknown): handle is AcpStandby {
  return handle instanceof Standby;
}

class AcpDriverImpl implements AcpDriver {
  readonly #config: ResolvedAcpConfig;
  readonly #redactor: Redactor;
  readonly #live = new Map<number, AcpConnection>();
  readonly #descriptor: Descriptor;
  #started = 0;
  #closed = false;
  readonly #sessionsCreated = new Map<string, number>();

  constructor(config: ResolvedAcpConfig) {
    this.#config = config;
    this.#redactor = createRedactor({ env: { ...process.env, ...definedOnly(config.env) }, secrets: configSecrets(config) });
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
      },
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

  secrets(): string[] {
    return [...configSecrets(this.#config), ...secretEnvValues(this.#config.env)];
  }

  processes(): AcpProcessStats {
    return { live: [...this.#live.keys()], started: this.#started };
  }

  async #open(cwd: string, signal: AbortSignal, authenticate: boolean): Promise<AcpConnection> {
    if (this.#closed) throw new ProviderError("acp: the driver is closed", { code: "driver_closed", phase: "before_delivery" });
    const inspectArgs = this.#config.preset.inspectArgs;
    const config = authenticate || inspectArgs === undefined ? this.#config : { ...this.#config, args: [...(this.#config.args ?? []), ...inspectArgs] };
    const connection = await AcpConnection.open({
      config,
      cwd,
      redactor: this.#redactor,
      signal,
      authenticate,
      onSpawn: (c) => {
        this.#started++;
        this.#live.set(c.pid, c);
        void c.exited.then(() => this.#live.delete(c.pid));
      },
    }).catch((error: unknown) => {
      const install = this.#config.preset.install;
      throw install === undefined ? error : ExecutableNotFoundError.explain(error, install);
    });
    if (this.#closed) {
      await connection.close();
      throw new ProviderError("acp: the driver is closed", { code: "driver_closed", phase: "before_delivery" });
    }
    return connection;
  }

  async #inspectWith(request: InspectRequest, signal: AbortSignal, keep: boolean): Promise<{ inspection: InspectResponse; connection?: AcpConnection }> {
    const secrets = configSecrets(this.#config);
    let connection: AcpConnection;
    try {
      connection = await this.#open(request.workspace, signal, keep);
    } catch (error) {
      signal.throwIfAborted();
      if (AdaptorError.is(error) && (error.code === "config_invalid" || error.code === "driver_closed")) throw error;
      const code = AdaptorError.is(error) && ["executable_not_found", "auth_required", "timeout"].includes(error.code) ? error.code : "provider_error";
      // Without the path tried: a snapshot may be shown beyond the operator.
      const message = error instanceof ExecutableNotFoundError ? error.summary : errorText(error);
      return { inspection: { ...allUnavailable(code, this.#redactor.redactText(message)), secrets } };
    }
    try {
      const panels = await inspectConnection(connection, this.#config.command, signal);
      if (keep && connection.alive) return { inspection: { ...panels, secrets }, connection };
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
    // Every known ACP agent creates no session until asked, so an initialized process is a safe,
    // unbound standby.
    const { inspection, connection } = await this.#inspectWith(request, signal, true);
    if (connection === undefined) return { inspection, process: "transient" };
    if (signal.aborted) {
      await connection.close();
      signal.throwIfAborted();
    }
    return { inspection, process: "ready", standby: new Standby(connection, this) };
  }

  /**
   * Sessions are bound by request (`session/new`, `session/resume`, `session/load`,
   * `session/fork`), so an unbound agent serves a thread run when it advertised what the run needs.
   */
  canUseStandby(use: StandbyUse, standby: StandbyHandle): boolean {
    return standby instanceof Standby && standby.serves(this, use, this.#config.preset.fork !== false);
  }

  run(request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> {
    return runAcpTurn(request, sink, signal, {
      driverId: this.#config.preset.id,
      traits: this.#config.preset,
      watchdogs: this.#config.watchdogs,
      sessionsCreated: this.#sessionsCreated,
      acquire: async (req, runSignal) => {
        const standby = req.standby instanceof Standby ? req.standby.claim(this) : undefined;
        return standby ?? this.#open(req.workspace, runSignal, true);
      },
    });
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
