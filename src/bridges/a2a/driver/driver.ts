/**
 * The `a2a()` driver: any remote A2A agent as an agent of this library. No process is owned —
 * every call is HTTP to the agent — so `prepare()` inspects only. A thread's provider session is
 * the A2A context id: a thread's next turn sends its message on the same context.
 */
import type { Descriptor, Driver, EventSink, InspectRequest, InspectResponse, PrepareRequest, PrepareResponse, RunRequest, RunResponse } from "../../../driver/types.js";
import type { Policy } from "../../../driver/vocabulary.js";
import { ConfigError, ProviderError } from "../../../errors/index.js";
import type { A2ASdkImporter } from "../importer.js";
import { A2A_CONFIG_SCHEMA, configSecrets, resolveA2AConfig, type A2AConfig } from "./config.js";
import { inspectRemote, TRANSPORT } from "./inspect.js";
import { runRemote } from "./run.js";

/** The A2A client driver. */
export interface A2ADriver extends Driver {
  validatePolicy(policy: Policy): void;
  fingerprint(): string;
  compatibility(): Record<string, string>;
  /** The bearer token and the configured header values. */
  secrets(): string[];
}

/** Internal seams for tests (the SDK import). */
export interface A2ADriverDeps {
  importer?: A2ASdkImporter;
}

class A2ADriverImpl implements A2ADriver {
  readonly #config: A2AConfig;
  readonly #deps: A2ADriverDeps;
  readonly #runs = new Set<AbortController>();
  #closed = false;

  constructor(config: A2AConfig, deps: A2ADriverDeps) {
    this.#config = config;
    this.#deps = deps;
  }

  descriptor(): Descriptor {
    return {
      id: "a2a",
      name: "A2A agent",
      transport: TRANSPORT,
      inputs: { image: { modes: [] }, file: { modes: [] }, audio: { modes: [] } },
      features: { steer: "unsupported", resume: "native", fork: "unsupported", approvals: true, userQuestions: true, structuredOutput: false },
      resources: { instructions: false, hostTools: false, skills: false, mcp: { stdio: false, http: false } },
      configSchema: structuredClone(A2A_CONFIG_SCHEMA) as unknown as Descriptor["configSchema"],
    };
  }

  validateConfig(): void {
    // Validated when the driver was created; nothing it holds can change.
  }

  /** The remote agent applies its own sandbox and network rules: a policy asking for them cannot be honoured. */
  validatePolicy(policy: Policy): void {
    for (const field of ["sandbox", "network"] as const) {
      if (policy[field] !== undefined) throw new ConfigError(`a2a: policy.${field} cannot be enforced on a remote A2A agent; leave it unset`);
    }
    if (policy.approval !== undefined && policy.approval !== "on-request") {
      throw new ConfigError(`a2a: policy.approval: a remote A2A agent asks when it decides to; only "on-request" (or none) is honoured`);
    }
  }

  fingerprint(): string {
    return JSON.stringify({ url: this.#config.url, cardPath: this.#config.cardPath ?? null });
  }

  /** The agent's URL is an endpoint (it may move while the conversations stay): nothing else names the conversation. */
  compatibility(): Record<string, string> {
    return {};
  }

  secrets(): string[] {
    return configSecrets(this.#config);
  }

  #refuseClosed(): void {
    if (this.#closed) throw new ProviderError("a2a: the driver is closed", { code: "driver_closed", phase: "before_delivery" });
  }

  inspect(_request: InspectRequest, signal: AbortSignal): Promise<InspectResponse> {
    this.#refuseClosed();
    return inspectRemote(this.#config, this.#deps.importer, signal);
  }

  /** There is no process to keep: the inspection only. */
  async prepare(request: PrepareRequest, signal: AbortSignal): Promise<PrepareResponse> {
    return { inspection: await this.inspect(request, signal), process: "unsupported" };
  }

  async run(request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> {
    this.#refuseClosed();
    const controller = new AbortController();
    this.#runs.add(controller);
    try {
      return await runRemote(request, sink, AbortSignal.any([signal, controller.signal]), { config: this.#config, importer: this.#deps.importer });
    } finally {
      this.#runs.delete(controller);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const controller of this.#runs) controller.abort(new ProviderError("a2a: the driver is closed", { code: "driver_closed" }));
  }
}

/** Creates the driver with test seams (not part of the public entry). */
export function createA2ADriver(config: A2AConfig, deps: A2ADriverDeps = {}): A2ADriver {
  return new A2ADriverImpl(resolveA2AConfig(config), deps);
}

/**
 * A driver for a remote A2A agent (`agent-adaptor/bridges/a2a`): inspection from its agent card,
 * runs over `SendStreamingMessage` (or `SendMessage` and `GetTask` for an agent that does not
 * stream), cancel through `CancelTask`, threads on the agent's context ids, and the agent's input
 * requests as approvals and questions. Needs `@a2a-js/sdk` (`npm install @a2a-js/sdk`).
 *
 * @example
 * ```ts
 * const agent = createAgent(a2a({ url: "https://agents.example.com/a2a", auth: { tokenEnv: "AGENT_TOKEN" } }), {
 *   defaults: { onApproval: "stream" },
 * });
 * ```
 */
export function a2a(config: A2AConfig): A2ADriver {
  return createA2ADriver(config);
}
