/**
 * One run of the OpenAI-compatible driver: check the key and the model, load the client, open
 * the conversation (new, resumed or forked: from the thread store on a thread, else from the
 * driver's `stateDir`), connect the run's MCP servers (the agent's, and the loopback host-tools
 * server), run the loop, and save what was said whatever the outcome. Every server and endpoint
 * the run opened is closed before it returns.
 */
import { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import type { EventSink, RunRequest, RunResponse, HostToolsEndpoint } from "../../driver/types.js";
import type { McpServerConfig } from "../../driver/vocabulary.js";
import { AuthRequiredError, ConfigError, ProviderError } from "../../errors/index.js";
import type { ProcessHandle } from "../../process/index.js";
import type { Redactor } from "../../redact/redact.js";
import { loadedOpenAI, loadOpenAI, type OpenAIClass, type OpenAIClient, type OpenAIImporter } from "./client.js";
import { readApiKey, type ResolvedOpenAIConfig } from "./config.js";
import { historyOf, type ConversationFile, type ConversationTurn } from "./conversation.js";
import { newSessionId, type Conversations } from "./conversation-store.js";
import { promptContent } from "./inputs.js";
import { systemPrompt } from "./instructions.js";
import { runLoop, type RunQueues } from "./loop.js";
import { ContextGuard } from "./compaction.js";
import { Subagents } from "./subagents.js";
import { generateTitle } from "./title.js";
import type { ContextWindows } from "./context.js";
import { McpServers } from "./mcp/servers.js";
import { toolboxFor, type Toolbox } from "./toolbox.js";
import { TurnUsage } from "./usage.js";
import { chatApi } from "./wire/chat.js";
import { responsesApi } from "./wire/responses.js";
import type { ModelRequest } from "./wire/types.js";

const PROVIDER = "openai";

/** What a run needs from its driver. */
export interface RunContext {
  config: ResolvedOpenAIConfig;
  importer: OpenAIImporter | undefined;
  redactor: Redactor;
  /** The run's conversations: the thread's provider state on a thread, else the driver's stateDir. */
  store: Conversations;
  /** The client for this key (reused across runs). */
  client(OpenAIClass: OpenAIClass, apiKey: string | undefined): OpenAIClient;
  queues: RunQueues;
  /** Approval kinds allowed for a conversation's rest ("allow always"), by session id. */
  allowedFor(sessionId: string): Set<string>;
  /** Counts an MCP server process the run started, until it exits. */
  onSpawn(child: ProcessHandle): void;
  /** The models' context windows (configured, or looked up once per model). */
  windows: ContextWindows;
}

/** A new conversation (a run without a thread, or a thread's first). */
function newConversation(): ConversationFile {
  const now = new Date().toISOString();
  return { version: 1, id: newSessionId(), createdAt: now, updatedAt: now, turns: [] };
}

/** The stored conversation a thread's run continues (or a fork of it), and the id it is saved under. */
async function openConversation(providerSessionId: string, fork: boolean, store: Conversations): Promise<ConversationFile> {
  const now = new Date().toISOString();
  const stored = await store.load(providerSessionId);
  if (!fork) return stored;
  return { ...structuredClone(stored), id: newSessionId(), createdAt: now, updatedAt: now, forkedFrom: stored.id };
}

function newTurn(request: RunRequest, conversation: ConversationFile, model: string): ConversationTurn {
  const turn: ConversationTurn = { runId: request.runId, startedAt: new Date().toISOString(), model, messages: [] };
  if (request.effort !== undefined) turn.effort = request.effort;
  const last = conversation.turns.at(-1);
  if (last !== undefined && last.model !== model) turn.modelSwitch = { ...(last.model !== undefined ? { from: last.model } : {}), to: model };
  return turn;
}

/** The checks that fail a run before anything is sent. */
function preflight(request: RunRequest, config: ResolvedOpenAIConfig): { model: string; apiKey: string | undefined } {
  const model = request.model;
  if (model === undefined || model === "") throw new ConfigError("openai: no model: set `model` in the driver config, the agent's defaults or the call");
  const apiKey = readApiKey(config);
  if (config.apiKeyEnv !== undefined && apiKey === undefined) {
    const state = process.env[config.apiKeyEnv] === undefined ? "is not set" : "is empty";
    throw new AuthRequiredError(`openai: no API key: ${config.apiKeyEnv} ${state}`, { remedy: `set ${config.apiKeyEnv} to the endpoint's key` });
  }
  return { model, apiKey };
}

/** The agent's MCP servers and, when the run has host tools, the loopback endpoint (opened here). */
function openTools(request: RunRequest, ctx: RunContext, signal: AbortSignal): { toolbox: Toolbox; endpoint?: HostToolsEndpoint } | Promise<{ toolbox: Toolbox; endpoint?: HostToolsEndpoint }> {
  // Nothing to open: the driver's shared toolbox, without a promise to wait for.
  if (request.resources.mcp.length === 0 && request.hostTools === undefined) return { toolbox: toolboxFor(ctx.config, request.policy, undefined) };
  return openServers(request, ctx, signal);
}

async function openServers(request: RunRequest, ctx: RunContext, signal: AbortSignal): Promise<{ toolbox: Toolbox; endpoint?: HostToolsEndpoint }> {
  const servers: McpServerConfig[] = [...request.resources.mcp];
  const endpoint = request.hostTools !== undefined ? await request.hostTools.open() : undefined;
  if (endpoint !== undefined) servers.push({ name: endpoint.http.name, url: endpoint.http.url, headers: { ...endpoint.http.headers } });
  try {
    const mcp = servers.length > 0 ? await McpServers.open(servers, { cwd: request.workspace, redactor: ctx.redactor, onSpawn: ctx.onSpawn }, signal) : undefined;
    return { toolbox: toolboxFor(ctx.config, request.policy, mcp), ...(endpoint !== undefined ? { endpoint } : {}) };
  } catch (error) {
    await endpoint?.close().catch(() => {});
    throw error;
  }
}

/**
 * `Thread.compact()`: the conversation's earlier turns summarized now (every one of them), as a
 * turn of its own with no messages, so a rewind past it undoes it.
 */
async function compactNow(c: {
  request: RunRequest;
  ctx: RunContext;
  emitter: OrderedEmitter;
  signal: AbortSignal;
  conversation: ConversationFile;
  turn: ConversationTurn;
  previous: readonly ConversationTurn[];
  client: OpenAIClient;
  model: string;
}): Promise<RunResponse> {
  const { config } = c.ctx;
  const usage = new TurnUsage(c.previous.map((t) => t.usage), config.contextWindow);
  const settings = { ...(config.compaction ?? { threshold: 0.8, toolOutputChars: 2000 }), keepTurns: 0 };
  const wire = config.api === "responses" ? responsesApi : chatApi;
  const guard = new ContextGuard({ settings, windows: c.ctx.windows, client: c.client, wire, conversation: c.conversation, store: c.ctx.store, emitter: c.emitter, usage, signal: c.signal, requestTimeoutMs: config.requestTimeoutMs });
  c.request.markDelivered();
  try {
    const instructions = systemPrompt(c.request, config.tools.builtin);
    await guard.compact({ model: c.model, instructions, messages: historyOf(c.conversation.turns), tools: [], ...(c.request.effort !== undefined ? { effort: c.request.effort } : {}) });
    c.turn.ended = "completed";
    const tokens = usage.tokens;
    if (tokens !== undefined) c.turn.usage = tokens;
    await c.ctx.store.save(c.conversation);
    await c.emitter.drain();
    const totals = usage.current();
    return { text: "", providerSessionId: c.conversation.id, raw: { provider: PROVIDER, api: config.api, model: c.model, operation: "compact" }, ...(totals !== undefined ? { usage: totals } : {}) };
  } catch (error) {
    throw await c.emitter.failure(error, c.signal);
  } finally {
    c.ctx.queues.ended = true;
  }
}

/** What a subagent's requests repeat of the run's: not its output schema (the run's answer is the one with a shape). */
function taskBase(base: Omit<ModelRequest, "messages">): Omit<ModelRequest, "messages" | "tools" | "outputSchema"> {
  const { tools: _tools, outputSchema: _schema, ...rest } = base;
  return rest;
}

// long-function: the run's lifecycle in order (open, deliver, loop, save, close); each step is one call
export async function runOpenAITurn(request: RunRequest, sink: EventSink, signal: AbortSignal, ctx: RunContext): Promise<RunResponse> {
  signal.throwIfAborted();
  const { config } = ctx;
  const emitter = new OrderedEmitter(sink);
  const { model, apiKey } = preflight(request, config);
  const OpenAIClass = loadedOpenAI(ctx.importer) ?? (await loadOpenAI(ctx.importer));
  if (apiKey !== undefined) {
    request.registerSecret(apiKey);
    ctx.redactor.addSecret(apiKey);
  }
  await ctx.store.ready();
  const thread = request.thread;
  const conversation = thread?.providerSessionId === undefined ? newConversation() : await openConversation(thread.providerSessionId, thread.fork === true, ctx.store);
  const turn = newTurn(request, conversation, model);
  const previous = conversation.turns;
  conversation.turns = [...previous, turn];
  if (request.thread !== undefined) await emitter.emit({ type: "thread.bound", providerSessionId: conversation.id, provenance: { provider: PROVIDER } });
  if (request.operation === "compact") return compactNow({ request, ctx, emitter, signal, conversation, turn, previous, client: ctx.client(OpenAIClass, apiKey), model });
  const content = request.inputs.length === 0 ? [{ type: "text" as const, text: request.prompt }] : await promptContent(request.prompt, request.inputs);
  turn.messages.push({ role: "user", content, origin: "prompt" });
  const opened = openTools(request, ctx, signal);
  const { toolbox, endpoint } = opened instanceof Promise ? await opened : opened;
  const usage = new TurnUsage(previous.map((t) => t.usage), config.contextWindow);
  const save = async () => {
    const tokens = usage.tokens;
    if (tokens !== undefined) turn.usage = tokens;
    await ctx.store.save(conversation);
  };
  try {
    // A resource the agent was configured with is part of its identity: never run without it.
    const failure = toolbox.mcp?.failures[0];
    if (failure !== undefined) {
      throw new ProviderError(`the MCP server "${failure.server}" could not be started or listed: ${failure.message}`, { code: "mcp_server_failed", phase: "before_delivery" });
    }
    const base = {
      model,
      instructions: systemPrompt(request, toolbox.specs.some((s) => !s.name.startsWith("mcp__"))),
      tools: toolbox.specs,
      ...(request.effort !== undefined ? { effort: request.effort } : {}),
      ...(request.outputSchema !== undefined ? { outputSchema: request.outputSchema } : {}),
      ...(config.maxOutputTokens !== undefined ? { maxOutputTokens: config.maxOutputTokens } : {}),
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    };
    const client = ctx.client(OpenAIClass, apiKey);
    const allowed = ctx.allowedFor(conversation.id);
    const wire = config.api === "responses" ? responsesApi : chatApi;
    const guard = config.compaction === undefined ? undefined : new ContextGuard({ settings: config.compaction, windows: ctx.windows, client, wire, conversation, store: ctx.store, emitter, usage, signal, requestTimeoutMs: config.requestTimeoutMs });
    const redact = (text: string) => ctx.redactor.redactText(text);
    const result = await runLoop({
      client,
      wire,
      config,
      emitter,
      signal,
      base,
      conversation,
      turn,
      ...(guard !== undefined ? { guard } : {}),
      queues: ctx.queues,
      usage,
      tools: { request, toolbox, allowed, ...(config.subagents !== undefined ? { runTask: new Subagents({ client, wire, config, base: taskBase(base), toolbox, request, allowed, usage, started: { count: 0 }, redact }, emitter.offer).run } : {}) },
      markDelivered: () => request.markDelivered(),
      save,
      redact,
    });
    turn.ended = "completed";
    if (config.title && conversation.title === undefined) await generateTitle({ client, wire, model, conversation, emitter, usage, signal, requestTimeoutMs: config.requestTimeoutMs });
    await save();
    await emitter.drain();
    const raw = { provider: PROVIDER, api: config.api, model, ...(conversation.title !== undefined ? { title: conversation.title } : {}) };
    const response: RunResponse = { text: result.text, providerSessionId: conversation.id, raw };
    const totals = usage.current() ?? result.usage;
    if (totals !== undefined) response.usage = totals;
    return response;
  } catch (error) {
    turn.ended = signal.aborted ? "cancelled" : "failed";
    if (turn.messages.length > 1) await save().catch(() => {});
    throw await emitter.failure(error, signal);
  } finally {
    ctx.queues.ended = true;
    if (toolbox.mcp !== undefined) await toolbox.mcp.close();
    if (endpoint !== undefined) await endpoint.close().catch(() => {});
  }
}
