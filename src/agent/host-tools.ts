/**
 * The agent's side of host tools: its resolved construction tools, its loopback MCP server
 * (started on first use, closed with the agent) and the links core hands drivers — unbound for a
 * standby (`PrepareRequest.hostTools`), bound to one run for `RunRequest.hostTools`. A run's
 * links are released when it settles: its endpoints are unbound and its handlers aborted.
 */
import type { HostToolsEndpoint, HostToolsLink, RunRequest, StandbyHandle } from "../driver/types.js";
import type { ToolDeclaration } from "../driver/vocabulary.js";
import { forgetSecret, type Redactor } from "../redact/redact.js";
import type { Endpoint } from "../resources/host-tools/endpoint.js";
import { LoopbackServer } from "../resources/host-tools/server.js";
import type { ServedTool } from "../resources/host-tools/served-tool.js";
import { HOST_TOOLS_SERVER_NAME } from "../resources/host-tools/server-name.js";
import { resolveHostTools } from "./host-tool-schemas.js";

/** One run's link and how it ends. */
export interface RunHostTools {
  link: NonNullable<RunRequest["hostTools"]>;
  /** Unbinds every endpoint the run holds and aborts the handlers it started. Idempotent. */
  release(): void;
  /** Whether the run's process reached the server (opened or bound an endpoint), even after release. */
  readonly heldEndpoint: boolean;
}

export class HostTools {
  readonly #tools: readonly ServedTool[];
  readonly #names: ReadonlySet<string>;
  readonly #server: LoopbackServer;
  /** Warm writers whose process has an endpoint although the agent has no tools (a run's services opened it). */
  readonly #withEndpoint = new WeakSet<StandbyHandle>();

  /** `tools`: the agent's construction tools, resolved (see {@link resolveHostTools}). */
  constructor(tools: readonly ServedTool[], redactor: Redactor) {
    this.#tools = tools;
    this.#names = new Set(this.#tools.map((tool) => tool.declaration.name));
    this.#server = new LoopbackServer({
      serverName: HOST_TOOLS_SERVER_NAME,
      tools: this.#tools,
      redact: (text) => redactor.redactText(text),
      addSecret: (value) => redactor.addSecret(value),
      forgetSecret: (value) => forgetSecret(redactor, value),
    });
  }

  /** The construction tools as drivers see them (part of the agent's identity). */
  get declarations(): ToolDeclaration[] {
    return this.#tools.map((tool) => structuredClone(tool.declaration));
  }

  get hasTools(): boolean {
    return this.#tools.length > 0;
  }

  /** Whether the loopback server is listening (it starts with the first endpoint). */
  get listening(): boolean {
    return this.#server.listening;
  }

  /** A call's services resolved: names may not repeat the agent's tools. Throws `ConfigError`. */
  services(services: unknown): ServedTool[] {
    return resolveHostTools(services, "services", this.#names);
  }

  /** Records that a kept process (a thread's warm writer) has an endpoint to bind a later run's services to. */
  adopt(process: StandbyHandle): void {
    this.#withEndpoint.add(process);
  }

  /**
   * Whether a prepared or warm process can serve a run with services: it has an endpoint (every
   * process of an agent with tools has one; otherwise one a previous run's services opened).
   */
  servesServices(process: StandbyHandle): boolean {
    return this.hasTools || this.#withEndpoint.has(process);
  }

  /** For `PrepareRequest.hostTools`: endpoints a standby keeps, unbound until a run claims it. */
  standbyLink(): HostToolsLink {
    return { serverName: HOST_TOOLS_SERVER_NAME, open: async () => (await this.#server.open()).view };
  }

  /** For `RunRequest.hostTools`: endpoints opened or bound here serve this run until it settles. */
  runLink(run: { runId: string; threadId?: string; services: readonly ServedTool[]; signal: AbortSignal }): RunHostTools {
    const ended = new AbortController();
    const binding = {
      runId: run.runId,
      ...(run.threadId !== undefined ? { threadId: run.threadId } : {}),
      services: run.services,
      signal: AbortSignal.any([run.signal, ended.signal]),
    };
    const held = new Set<Endpoint>();
    let heldEndpoint = false;
    const hold = (endpoint: Endpoint): Promise<void> => {
      if (ended.signal.aborted) return Promise.resolve();
      const relisted = endpoint.bind(binding);
      held.add(endpoint);
      heldEndpoint = true;
      return relisted;
    };
    const link: RunHostTools["link"] = {
      serverName: HOST_TOOLS_SERVER_NAME,
      open: async () => {
        const { endpoint, view } = await this.#server.open();
        // A new endpoint has no session yet: nothing to wait for.
        void hold(endpoint);
        return view;
      },
      bind: async (view: HostToolsEndpoint) => {
        const endpoint = this.#server.endpointOf(view);
        if (endpoint) await hold(endpoint);
      },
    };
    const release = () => {
      if (ended.signal.aborted) return;
      ended.abort(new Error("the run ended"));
      for (const endpoint of held) endpoint.unbind(run.runId);
      held.clear();
    };
    return {
      link,
      release,
      get heldEndpoint() {
        return heldEndpoint;
      },
    };
  }

  close(): Promise<void> {
    return this.#server.close();
  }
}
