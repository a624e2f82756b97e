/**
 * The OpenAI-compatible driver (`agent-adaptor/drivers/openai`): an in-process coding agent over
 * any endpoint speaking Chat Completions or Responses, on the official `openai` client. The loop
 * runs in the host's process — there is no provider process to prepare or keep warm — and the
 * only child processes are the agent's stdio MCP servers (started per run) and the bash tool's
 * commands. A thread's conversation lives in the thread's provider state in the agent's thread
 * store; a run without a thread keeps its conversation in the driver's `stateDir`, keyed by the
 * session id the run returns.
 */
import type { Descriptor, Driver, EventSink, InspectRequest, InspectResponse, ModelDefaults, PrepareRequest, PrepareResponse, ProviderStateHandle, RewindRequest, RunRequest, RunResponse } from "../../driver/types.js";
import { driverRedactor } from "../../driver/kit/env.js";
import type { ProcessStats } from "../../driver/kit/processes.js";
import type { Policy } from "../../driver/vocabulary.js";
import { ProviderError } from "../../errors/index.js";
import type { ProcessHandle } from "../../process/index.js";
import type { Redactor } from "../../redact/redact.js";
import { createClient, type OpenAIClass, type OpenAIClient } from "./client.js";
import type { OpenAIImporter } from "./importer.js";
import {
  configCompatibility,
  configFingerprint,
  configSecrets,
  OPENAI_CONFIG_SCHEMA,
  resolveOpenAIConfig,
  validateOpenAIPolicy,
  type OpenAIConfig,
  type ResolvedOpenAIConfig,
} from "./config.js";
import { withoutRuns, type ConversationFile, type ConversationTurn } from "./conversation.js";
import { ConversationStore, conversationInThreadState, newSessionId, ThreadConversations, type Conversations } from "./conversation-store.js";
import { ContextWindows } from "./context.js";
import { inputCapabilities } from "./inputs.js";
import { inspectEndpoint, TRANSPORT } from "./inspect.js";
import { LinkedAbort } from "./linked-signal.js";
import { RunQueues } from "./loop.js";
import { runOpenAITurn } from "./run.js";

/** The OpenAI-compatible driver: the Driver SPI with steer and follow-up, and its child processes. */
export interface OpenAIDriver extends Driver {
  validatePolicy(policy: Policy): void;
  fingerprint(): string;
  compatibility(): Record<string, string>;
  /** The API key named by `apiKeyEnv` and the configured header values. */
  secrets(): string[];
  /** Adds `text` as a user message before the running turn's next model request. Rejects when the run has ended. */
  steer(runId: string, text: string, signal: AbortSignal): Promise<void>;
  /** Queues `text` as the next user message when the running turn would otherwise end. Rejects when the run has ended. */
  followUp(runId: string, text: string, signal: AbortSignal): Promise<void>;
  /** Child processes the driver owns (the runs' stdio MCP servers). */
  processes(): ProcessStats;
  /**
   * The title generated for a stored conversation (`title: true`), if it has one: one in
   * `stateDir`, a thread's whose run this driver made, or, given `thread`, one in that thread's
   * provider state (a thread another process ran over the same thread store; a thread's title is
   * also in its runs' `Result.raw()`). Rejects with `provider_session_not_found` for an unknown id.
   */
  title(providerSessionId: string, thread?: OpenAIThreadTitleSource): Promise<string | undefined>;
  /** A copy of a stored conversation without the given runs' turns, under a new session id (backs `Thread.rewind`). */
  rewind(request: RewindRequest, signal: AbortSignal): Promise<{ providerSessionId: string }>;
}

/** Where `title()` finds a thread's conversation: the agent's thread store (any `ThreadStore`) and the thread's id. */
export interface OpenAIThreadTitleSource {
  /** The store the thread's runs wrote to; only its provider state is read. */
  threadStore: { loadProviderState?(id: string): Promise<string | undefined> };
  /** The thread whose stored conversation holds the title. */
  threadId: string;
}

/** Internal seams for tests (the package import). */
export interface OpenAIDriverDeps {
  importer?: OpenAIImporter;
}

/** Thread conversation titles `title()` answers from memory. */
const MAX_REMEMBERED_TITLES = 1000;

/** How many compactions a rewind goes back through to find a dropped turn. */
const MAX_COMPACTIONS_BACK = 64;

/** Each driver's conversation store, for the transcript import (not part of the driver's surface). */
const conversationStores = new WeakMap<OpenAIDriver, ConversationStore>();

/** The conversations of a driver made by `openai()`; undefined for any other object. */
export function conversationStoreOf(driver: OpenAIDriver): ConversationStore | undefined {
  return conversationStores.get(driver);
}

class OpenAIDriverImpl implements OpenAIDriver {
  readonly #config: ResolvedOpenAIConfig;
  readonly #deps: OpenAIDriverDeps;
  readonly #descriptor: Descriptor;
  readonly #queues = new Map<string, RunQueues>();
  readonly #allowed = new Map<string, Set<string>>();
  readonly #live = new Map<number, ProcessHandle>();
  readonly #runs = new Set<AbortController>();
  #started = 0;
  #closed = false;
  /** The conversations, and the redactor they are written through (runs add their MCP secrets). */
  readonly #storeRedactor: Redactor;
  readonly #store: ConversationStore;
  readonly #windows: ContextWindows;
  /** Titles of thread conversations this driver generated, newest last (see `title()`). */
  readonly #titles = new Map<string, string>();
  /** One client per API key value: connections are reused across runs. */
  readonly #clients = new Map<string, OpenAIClient>();
  #fingerprint: string | undefined;

  constructor(config: ResolvedOpenAIConfig, deps: OpenAIDriverDeps) {
    this.#config = config;
    this.#deps = deps;
    this.#descriptor = {
      id: "openai",
      name: "OpenAI-compatible",
      transport: TRANSPORT,
      inputs: inputCapabilities(config.audioInput),
      features: { steer: "native", resume: "native", fork: "native", approvals: true, userQuestions: false, structuredOutput: true, compact: "native" },
      resources: { instructions: true, hostTools: true, skills: false, mcp: { stdio: true, http: true } },
      configSchema: OPENAI_CONFIG_SCHEMA,
    };
    this.#storeRedactor = driverRedactor({}, configSecrets(config));
    this.#store = new ConversationStore(config.stateDir, this.#storeRedactor);
    conversationStores.set(this, this.#store);
    this.#windows = new ContextWindows(config.contextWindow);
  }

  descriptor(): Descriptor {
    return structuredClone(this.#descriptor);
  }

  validateConfig(): void {
    // Validated when the driver was created; nothing it holds can change.
  }

  validatePolicy(policy: Policy): void {
    validateOpenAIPolicy(policy);
  }

  fingerprint(): string {
    // Core asks before every run; the config never changes.
    this.#fingerprint ??= configFingerprint(this.#config);
    return this.#fingerprint;
  }

  compatibility(): Record<string, string> {
    return configCompatibility(this.#config);
  }

  defaults(): ModelDefaults {
    const c = this.#config;
    return { ...(c.model !== undefined ? { model: c.model } : {}), ...(c.effort !== undefined ? { effort: c.effort } : {}) };
  }

  secrets(): string[] {
    return configSecrets(this.#config);
  }

  #refuseClosed(): void {
    if (this.#closed) throw new ProviderError("openai: the driver is closed", { code: "driver_closed", phase: "before_delivery" });
  }

  inspect(request: InspectRequest, signal: AbortSignal): Promise<InspectResponse> {
    this.#refuseClosed();
    return inspectEndpoint(request, this.#config, this.#deps.importer, signal);
  }

  /** There is no provider process to keep: the inspection only. */
  async prepare(request: PrepareRequest, signal: AbortSignal): Promise<PrepareResponse> {
    return { inspection: await this.inspect(request, signal), process: "unsupported" };
  }

  async run(request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> {
    this.#refuseClosed();
    const queues = new RunQueues();
    this.#queues.set(request.runId, queues);
    // Aborted by the caller's signal or by close().
    const link = new LinkedAbort(signal);
    this.#runs.add(link.controller);
    const runSignal = link.signal;
    const mcpSecrets = request.resources.mcp.flatMap((s) => Object.values("command" in s ? (s.env ?? {}) : (s.headers ?? {})));
    for (const secret of mcpSecrets) this.#storeRedactor.addSecret(secret);
    let session: string | undefined;
    try {
      const response = await runOpenAITurn(request, sink, runSignal, {
        config: this.#config,
        importer: this.#deps.importer,
        // The driver's secrets and every run's MCP credentials (added above).
        redactor: this.#storeRedactor,
        store: this.#conversations(request.providerState),
        client: (OpenAIClass, apiKey) => this.#client(OpenAIClass, apiKey),
        queues,
        allowedFor: (id) => this.#allowedFor((session = id)),
        onSpawn: (child) => this.#track(child),
        windows: this.#windows,
      });
      if (request.providerState !== undefined) this.#rememberTitle(response);
      return response;
    } finally {
      link.unlink();
      this.#runs.delete(link.controller);
      // Every run without a thread starts a conversation: keep a set only once it holds an "allow always".
      if (session !== undefined && this.#allowed.get(session)?.size === 0) this.#allowed.delete(session);
      if (this.#queues.get(request.runId) === queues) this.#queues.delete(request.runId);
    }
  }

  /** A thread's conversation is in the thread store, out of `title()`'s reach: its title is kept here. */
  #rememberTitle(response: RunResponse): void {
    const title = (response.raw as { title?: unknown } | undefined)?.title;
    if (typeof title !== "string" || response.providerSessionId === undefined) return;
    this.#titles.set(response.providerSessionId, title);
    if (this.#titles.size > MAX_REMEMBERED_TITLES) this.#titles.delete(this.#titles.keys().next().value!);
  }

  /** A thread's conversations are in its provider state; a plain run's in `stateDir`. */
  #conversations(state: ProviderStateHandle | undefined): Conversations {
    return state === undefined ? this.#store : new ThreadConversations(state, this.#storeRedactor, this.#store);
  }

  #client(OpenAIClass: OpenAIClass, apiKey: string | undefined): OpenAIClient {
    const key = apiKey ?? "";
    let client = this.#clients.get(key);
    if (client === undefined) this.#clients.set(key, (client = createClient(OpenAIClass, this.#config, apiKey)));
    return client;
  }

  #allowedFor(sessionId: string): Set<string> {
    let set = this.#allowed.get(sessionId);
    if (set === undefined) this.#allowed.set(sessionId, (set = new Set()));
    return set;
  }

  #track(child: ProcessHandle): void {
    this.#started++;
    this.#live.set(child.pid, child);
    void child.exited.then(() => this.#live.delete(child.pid));
  }

  #queue(kind: "steers" | "followUps", runId: string, text: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const queues = this.#queues.get(runId);
    if (queues === undefined || queues.ended) return Promise.reject(new ProviderError("openai: no such run in flight", { code: "steer_rejected", phase: "after_delivery" }));
    queues[kind].push(text);
    return Promise.resolve();
  }

  steer(runId: string, text: string, signal: AbortSignal): Promise<void> {
    return this.#queue("steers", runId, text, signal);
  }

  followUp(runId: string, text: string, signal: AbortSignal): Promise<void> {
    return this.#queue("followUps", runId, text, signal);
  }

  async title(providerSessionId: string, thread?: OpenAIThreadTitleSource): Promise<string | undefined> {
    const remembered = this.#titles.get(providerSessionId);
    if (remembered !== undefined) return remembered;
    // A thread's conversation made by another process is only in the thread store.
    if (thread?.threadStore.loadProviderState !== undefined) {
      const found = conversationInThreadState(await thread.threadStore.loadProviderState(thread.threadId), providerSessionId);
      if (found !== undefined) return found.title;
    }
    return (await this.#store.load(providerSessionId)).title;
  }

  async rewind(request: RewindRequest, signal: AbortSignal): Promise<{ providerSessionId: string }> {
    this.#refuseClosed();
    signal.throwIfAborted();
    const store = this.#conversations(request.providerState);
    const stored = await store.load(request.providerSessionId);
    const now = new Date().toISOString();
    const turns = await this.#rewoundTurns(store, stored, new Set(request.dropRunIds), signal);
    const copy: ConversationFile = { ...stored, id: newSessionId(), createdAt: now, updatedAt: now, rewoundFrom: stored.id, turns };
    delete copy.transcriptOf;
    await store.save(copy);
    return { providerSessionId: copy.id };
  }

  /**
   * The turns before the first dropped run. A compaction made during a dropped run, or summarizing
   * one, is undone: the rewind goes on from the transcript it replaced.
   */
  async #rewoundTurns(store: Conversations, file: ConversationFile, drop: ReadonlySet<string>, signal: AbortSignal, depth = 0): Promise<ConversationTurn[]> {
    const undo = (t: ConversationTurn) => t.summary !== undefined && (drop.has(t.summary.duringRunId) || t.summary.runIds.some((id) => drop.has(id)));
    const index = file.turns.findIndex((t) => drop.has(t.runId) || undo(t));
    const turn = file.turns[index];
    if (turn?.summary === undefined || drop.has(turn.runId) || depth >= MAX_COMPACTIONS_BACK) return withoutRuns(file.turns, [...drop]);
    signal.throwIfAborted();
    let before: ConversationFile;
    try {
      before = await store.load(turn.summary.transcriptId);
    } catch (error) {
      // A transcript a thread's bounded state no longer holds: the summary stays in its place.
      if ((error as { code?: unknown }).code === "provider_session_not_found") return withoutRuns(file.turns, [...drop]);
      throw error;
    }
    return this.#rewoundTurns(store, before, drop, signal, depth + 1);
  }

  processes(): ProcessStats {
    return { live: [...this.#live.keys()], started: this.#started };
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const controller of this.#runs) controller.abort(new ProviderError("openai: the driver is closed", { code: "driver_closed" }));
    await Promise.all([...this.#live.values()].map((child) => child.stop()));
    // The runs are over: the conversations' journal becomes one file per conversation.
    await this.#store.close();
  }
}

/** Creates the driver with test seams (not part of the public entry). */
export function createOpenAIDriver(config: OpenAIConfig, deps: OpenAIDriverDeps = {}): OpenAIDriver {
  return new OpenAIDriverImpl(resolveOpenAIConfig(config), deps);
}

/**
 * Creates a driver for any OpenAI-compatible endpoint (llama.cpp, vLLM, Ollama, OpenRouter, a
 * gateway, OpenAI): an in-process coding agent with built-in workspace tools, approvals, MCP
 * servers and host tools, threads (resume, fork) and steering. The config is validated and
 * captured now (a `ConfigError` is thrown for an invalid one). Needs the `openai` package
 * (`npm install openai`), loaded on the first inspection or run.
 *
 * @example
 * ```ts
 * const agent = createAgent(
 *   openai({ baseURL: "http://127.0.0.1:8080/v1", model: "qwen3-coder", apiKeyEnv: "LLAMA_API_KEY" }),
 *   { workspace: "/repo", defaults: { onApproval: async () => ({ decision: "allow" }) } },
 * );
 * ```
 */
export function openai(config: OpenAIConfig): OpenAIDriver {
  return createOpenAIDriver(config);
}
