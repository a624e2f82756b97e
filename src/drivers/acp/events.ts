/**
 * `session/update` → canonical events, parsed leniently: a field of the wrong type is ignored,
 * never guessed, and an update kind the driver cannot map becomes a `notice`, never silence.
 */
import type { AcpDriverNoticeCode } from "./codes.js";
import type { ContentChunk, SessionNotification, SessionUpdate, ToolCallUpdate, Usage as AcpUsage } from "@agentclientprotocol/sdk/unstable";
import type { DriverEvent, FileChange, NativeCommandInfo, PlanEntry, Provenance } from "../../events/types.js";
import type { Usage } from "../../events/usage.js";
import type { AcpPresetTraits, AcpUsageSource } from "./config.js";
import { ALL_USAGE_SOURCES } from "./config.js";
import { arr } from "../../driver/json.js";
import { isObject, num, open, openEach, readFrame, str, type Lenient } from "../../driver/lens.js";
import { redactThenClip } from "../../redact/clip.js";
import { agentToolName, mcpToolOf, commandOf, commandOutputOf, exitCodeOf, filesOf, outputDelta, textOf, toolKind } from "./tools.js";

export { toolKind } from "./tools.js";

export type Emit = (event: DriverEvent) => Promise<void>;

const PROVIDER = "acp";

type UpdateKind = SessionUpdate["sessionUpdate"];
/** One kind of session update, as the schema types it. */
type UpdateOf<K extends UpdateKind> = Extract<SessionUpdate, { sessionUpdate: K }>;
type ToolUpdate = UpdateOf<"tool_call" | "tool_call_update">;

/**
 * Token counts as agents report them: the schema's `Usage` (camelCase), or snake_case inside
 * `_meta` (Gemini CLI's `PromptResponse._meta.quota.token_count`, Qwen Code's chunk `_meta.usage`).
 */
type ReportedUsage = AcpUsage & { input_tokens?: number; output_tokens?: number; total_tokens?: number };

/** Gemini CLI's `PromptResponse._meta`: `{quota: {token_count: {input_tokens, output_tokens}, model_usage}}`. */
interface GeminiPromptMeta {
  quota?: { token_count?: ReportedUsage };
}

/** Qwen Code's `agent_message_chunk._meta`: `{usage: …}` on an empty chunk. */
interface QwenChunkMeta {
  usage?: ReportedUsage;
}

/** `PromptResponse.usage` / `_meta.usage` token counts → canonical usage. */
export function tokenUsage(reported: unknown): Usage | undefined {
  const u = readFrame<ReportedUsage>(reported);
  if (u === undefined) return undefined;
  const out: Usage = {};
  const set = (key: keyof Usage, value: unknown) => {
    const n = num(value);
    if (n !== undefined) out[key] = n;
  };
  set("input_tokens", u.inputTokens ?? u.input_tokens);
  set("output_tokens", u.outputTokens ?? u.output_tokens);
  set("total_tokens", u.totalTokens ?? u.total_tokens);
  set("reasoning_output_tokens", u.thoughtTokens);
  set("cached_input_tokens", u.cachedReadTokens);
  set("cache_creation_input_tokens", u.cachedWriteTokens);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Gemini CLI's token counts in `PromptResponse._meta.quota.token_count`. */
export function quotaUsage(meta: unknown): Usage | undefined {
  const quota = open(readFrame<GeminiPromptMeta>(meta)?.quota);
  return quota === undefined ? undefined : tokenUsage(quota.token_count);
}

/**
 * A `tool_call` announced before its input: `rawInput` an empty object and still pending.
 * claude-agent-acp sends the input in the next update; `tool.started` waits for it so that its
 * command, files and name are known at the start.
 */
function inputStillStreaming(update: Lenient<ToolUpdate>): boolean {
  const input: unknown = update.rawInput;
  const status = str(update.status);
  return update.sessionUpdate === "tool_call" && isObject(input) && Object.keys(input).length === 0 && status !== "completed" && status !== "failed";
}

/** `update` without its undefined entries, to lay over a held start. */
function presentEntries<T extends object>(update: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(update) as (keyof T)[]) if (update[key] !== undefined) out[key] = update[key];
  return out;
}

interface ToolState {
  kind: string | undefined;
  title: string;
  input: unknown;
  completed: boolean;
  counted: boolean;
  /** The content text already sent as `tool.updated.output` deltas (ACP replaces content whole). */
  outputSent: string;
  /** The files as last sent, and their JSON, so an unchanged list is not sent again. */
  files: FileChange[] | undefined;
  filesSent: string;
}

interface Segment {
  type: "message" | "reasoning";
  itemId: string;
  acpId: string | undefined;
  text: string;
}

export interface MapperHooks {
  /** Called for every config option list the agent reports (`config_option_update`). */
  onConfigOptions?(options: unknown[]): void;
  /** A tool call reached its final input (completed, failed, or asked for permission); returns whether the loop limit tripped. */
  onToolSignature?(signature: string): void;
  /** The driver's redaction, for agent text the mapper cuts before emitting it. */
  redact?(text: string): string;
}

/** Maps the updates of one run. Not re-entrant: callers feed updates in order. */
export class UpdateMapper {
  readonly #emit: Emit;
  readonly #traits: AcpPresetTraits;
  readonly #usageSources: ReadonlySet<AcpUsageSource>;
  readonly #hooks: MapperHooks;
  readonly #tools = new Map<string, ToolState>();
  /** Calls announced with an empty input the agent is still streaming (claude-agent-acp): started with their next update. */
  readonly #heldStarts = new Map<string, Lenient<ToolUpdate>>();
  #segment: Segment | undefined;
  #segments = 0;
  #lastMessageText = "";
  #usage: Usage = {};
  /** Updates seen while replaying history (`session/load`); they are not events of this run. */
  replaying = false;
  replayed = 0;
  /** Updates of this run's turn. */
  updates = 0;
  /** The MCP servers the run's session was offered: calls to their tools are `kind: "mcp"`. */
  mcpServers: readonly string[] = [];
  /** The turn is over for the run: later updates are not mapped. */
  #finished = false;
  readonly #prefix: string;

  constructor(emit: Emit, traits: AcpPresetTraits, runId: string, hooks: MapperHooks = {}) {
    this.#emit = emit;
    this.#traits = traits;
    this.#usageSources = new Set(traits.usage ?? ALL_USAGE_SOURCES);
    this.#hooks = hooks;
    this.#prefix = runId;
  }

  get usage(): Usage | undefined {
    return Object.keys(this.#usage).length > 0 ? { ...this.#usage } : undefined;
  }

  /** Tool calls started and not yet finished. */
  get activeTools(): number {
    let n = 0;
    for (const t of this.#tools.values()) if (!t.completed) n++;
    return n;
  }

  /** The final assistant message: the last message segment of the turn. */
  finalText(): string {
    return this.#segment?.type === "message" ? this.#segment.text : this.#lastMessageText;
  }

  mergeUsage(usage: Usage | undefined): void {
    if (usage !== undefined) this.#usage = { ...this.#usage, ...usage };
  }

  usesSource(source: AcpUsageSource): boolean {
    return this.#usageSources.has(source);
  }

  notice(level: "info" | "warning", code: AcpDriverNoticeCode, message: string): Promise<void> {
    return this.#emit({ type: "notice", level, code, message, provenance: { provider: PROVIDER } });
  }

  async #closeSegment(): Promise<void> {
    const s = this.#segment;
    if (s === undefined) return;
    this.#segment = undefined;
    if (s.type === "message") {
      this.#lastMessageText = s.text;
      await this.#emit({ type: "message.completed", itemId: s.itemId, text: s.text, provenance: { provider: PROVIDER, itemId: s.itemId, ...(s.acpId ? { messageId: s.acpId } : {}) } });
    } else {
      await this.#emit({ type: "reasoning.completed", itemId: s.itemId, text: s.text, provenance: { provider: PROVIDER, itemId: s.itemId } });
    }
  }

  async #chunk(type: "message" | "reasoning", update: Lenient<ContentChunk>): Promise<void> {
    const content = open(update.content);
    const acpId = str(update.messageId);
    if (content === undefined) {
      await this.notice("warning", "malformed_update", `an ${type === "message" ? "agent message" : "agent thought"} chunk carried no content block`);
      return;
    }
    if (content.type !== "text") {
      await this.notice("info", "unmapped_content", `the agent sent a ${String(content.type)} content block in its ${type}; it is not part of the text`);
      return;
    }
    const text = str(content.text) ?? "";
    if (text === "") return;
    if (type === "message" && this.#traits.diagnosticText?.some((re) => re.test(text))) {
      // Redacted before the cut: a secret across it would leave its front past core's redaction.
      await this.notice("warning", "agent_diagnostic", redactThenClip(text, this.#hooks.redact ?? ((t) => t), 500, ""));
      return;
    }
    let s = this.#segment;
    if (s === undefined || s.type !== type || (acpId !== undefined && s.acpId !== undefined && acpId !== s.acpId)) {
      await this.#closeSegment();
      const itemId = `${this.#prefix}:${type === "message" ? "msg" : "reasoning"}:${this.#segments++}`;
      s = { type, itemId, acpId, text: "" };
      this.#segment = s;
    }
    s.text += text;
    const provenance = { provider: PROVIDER, itemId: s.itemId, ...(acpId ? { messageId: acpId } : {}) };
    await this.#emit(type === "message" ? { type: "message.delta", itemId: s.itemId, text, provenance } : { type: "reasoning.delta", itemId: s.itemId, text, provenance });
  }

  /** Announces a tool call first seen in a permission request (Gemini asks before any `tool_call`). */
  async ensureTool(toolCall: Lenient<ToolCallUpdate>): Promise<string | undefined> {
    const id = str(toolCall.toolCallId);
    if (id === undefined) return undefined;
    // The permission request's ToolCallUpdate announced as the tool_call the agent never sent.
    if (!this.#tools.has(id)) await this.#toolUpdate({ ...toolCall, sessionUpdate: "tool_call" } as Lenient<ToolUpdate>, true);
    const state = this.#tools.get(id);
    if (state !== undefined && !state.counted) {
      if (toolCall.rawInput !== undefined) state.input = toolCall.rawInput;
      state.counted = true;
      this.#hooks.onToolSignature?.(JSON.stringify([state.kind ?? "", state.title, state.input ?? null]));
    }
    return id;
  }

  async #toolUpdate(update: Lenient<ToolUpdate>, fromPermission = false): Promise<void> {
    const id = str(update.toolCallId);
    if (id === undefined) {
      await this.notice("warning", "malformed_update", "a tool call update carried no toolCallId");
      return;
    }
    await this.#closeSegment();
    let state = this.#tools.get(id);
    const provenance: Provenance = { provider: PROVIDER, itemId: id, event: String(update.sessionUpdate) };
    if (state === undefined) {
      if (!fromPermission && inputStillStreaming(update)) {
        this.#heldStarts.set(id, update);
        return;
      }
      const held = this.#heldStarts.get(id);
      this.#heldStarts.delete(id);
      // The held announcement with what the update adds laid over it (same call, same variant of fields).
      const merged = held === undefined ? update : ({ ...held, ...presentEntries(update) } as Lenient<ToolUpdate>);
      state = await this.#startTool(id, merged, provenance);
      if (fromPermission) return;
    } else {
      if (str(update.kind) !== undefined) state.kind = str(update.kind);
      if (str(update.title) !== undefined) state.title = str(update.title)!;
      if (update.rawInput !== undefined) state.input = update.rawInput;
    }
    const files = filesOf(update, state.kind);
    const text = textOf(update);
    const status = str(update.status);
    if ((status === "completed" || status === "failed") && !state.completed) {
      return this.#completeTool(id, state, update, status, { files, text, provenance });
    }
    const updated: DriverEvent = { type: "tool.updated", callId: id, provenance };
    const delta = text === undefined ? "" : outputDelta(state.outputSent, text);
    if (text !== undefined) state.outputSent = text;
    if (delta !== "") updated.output = delta;
    if (files !== undefined && JSON.stringify(files) !== state.filesSent) {
      state.files = files;
      state.filesSent = JSON.stringify(files);
      updated.files = files;
    }
    if (updated.output !== undefined || updated.files !== undefined) await this.#emit(updated);
  }

  /** The call's `tool.started`, with the normalized fields the agent gave in its first update. */
  async #startTool(id: string, update: Lenient<ToolUpdate>, provenance: Provenance): Promise<ToolState> {
    const kind = str(update.kind);
    const title = str(update.title) ?? kind ?? "tool call";
    const files = filesOf(update, kind);
    const state: ToolState = { kind, title, input: update.rawInput, completed: false, counted: false, outputSent: "", files, filesSent: files === undefined ? "" : JSON.stringify(files) };
    this.#tools.set(id, state);
    const started: DriverEvent = { type: "tool.started", callId: id, kind: toolKind(update.kind), title, provenance };
    const name = agentToolName(update.name, update._meta);
    if (name !== undefined) started.name = name;
    const mcp = mcpToolOf({ ...(name !== undefined ? { name } : {}), title, callId: id, input: update.rawInput }, this.mcpServers);
    if (mcp !== undefined) Object.assign(started, { kind: "mcp", mcp });
    if (started.kind === "command") Object.assign(started, commandOf(update.rawInput));
    if (files !== undefined) started.files = files;
    if (update.rawInput !== undefined) started.rawInput = update.rawInput;
    await this.#emit(started);
    return state;
  }

  async #completeTool(
    id: string,
    state: ToolState,
    update: Lenient<ToolUpdate>,
    status: "completed" | "failed",
    seen: { files: FileChange[] | undefined; text: string | undefined; provenance: Provenance },
  ): Promise<void> {
    state.completed = true;
    if (!state.counted) {
      state.counted = true;
      this.#hooks.onToolSignature?.(JSON.stringify([state.kind ?? "", state.title, state.input ?? null]));
    }
    const done: DriverEvent = { type: "tool.completed", callId: id, status, provenance: seen.provenance };
    const rawOutput = update.rawOutput;
    // The whole output: the final content, else rawOutput's text, else what the deltas carried.
    const output = seen.text ?? (typeof rawOutput === "string" ? rawOutput : commandOutputOf(rawOutput)) ?? (state.outputSent !== "" ? state.outputSent : undefined);
    if (output !== undefined) done.output = output;
    const exitCode = exitCodeOf(rawOutput);
    if (exitCode !== undefined) done.exitCode = exitCode;
    const files = seen.files ?? state.files;
    if (status === "completed" && files !== undefined) done.files = files;
    await this.#emit(done);
  }

  /**
   * What each kind of session update becomes, keyed by the schema's `sessionUpdate` union so that
   * a kind the SDK adds stops this compiling until it is mapped or declared unmapped (`undefined`:
   * an `unmapped_update` notice, as for a kind outside the schema).
   */
  static readonly #handlers: { readonly [K in UpdateKind]: ((mapper: UpdateMapper, update: Lenient<UpdateOf<K>>) => Promise<void> | void) | undefined } = {
    agent_message_chunk: (m, update) => m.#messageChunk(update),
    agent_thought_chunk: (m, update) => m.#chunk("reasoning", update),
    // The agent echoing the prompt: not an event of the run.
    user_message_chunk: () => undefined,
    tool_call: (m, update) => m.#toolUpdate(update),
    tool_call_update: (m, update) => m.#toolUpdate(update),
    plan: (m, update) => m.#plan(update),
    available_commands_update: (m, update) => m.#availableCommands(update),
    usage_update: (m, update) => m.#usageUpdate(update),
    config_option_update: (m, update) => m.#hooks.onConfigOptions?.(arr(update.configOptions)),
    current_mode_update: (m, update) => m.notice("info", "mode_changed", `the session mode is now ${String(str(update.currentModeId) ?? "unknown")}`),
    // Title/timestamps of the session: nothing the run reports.
    session_info_update: () => undefined,
    notice: (m, update) => m.#agentNotice(update),
    plan_update: undefined,
    plan_removed: undefined,
    compaction_update: undefined,
    compaction_summary_chunk: undefined,
    subagent_update: undefined,
    session_message: undefined,
    session_message_chunk: undefined,
  };

  /** Handles one `session/update` params object. */
  async handle(params: unknown): Promise<void> {
    const update = open(readFrame<SessionNotification>(params)?.update);
    if (update === undefined) {
      await this.notice("warning", "malformed_update", "the agent sent a session/update without an update object");
      return;
    }
    if (this.replaying) {
      this.replayed++;
      return;
    }
    if (this.#finished) return;
    this.updates++;
    const kind = str(update.sessionUpdate);
    const handler = kind !== undefined && Object.hasOwn(UpdateMapper.#handlers, kind) ? UpdateMapper.#handlers[kind as UpdateKind] : undefined;
    if (handler === undefined) {
      return this.notice("warning", "unmapped_update", `the agent sent a session update the driver does not map (${String(kind)})`);
    }
    // The table pairs each kind with its handler; the tag was just checked.
    await (handler as (mapper: UpdateMapper, update: Lenient<SessionUpdate>) => Promise<void> | void)(this, update);
  }

  async #messageChunk(update: Lenient<UpdateOf<"agent_message_chunk">>): Promise<void> {
    const meta = readFrame<QwenChunkMeta>(update._meta);
    if (meta !== undefined && this.usesSource("chunk_meta")) {
      const usage = tokenUsage(meta.usage);
      if (usage !== undefined) {
        this.mergeUsage(usage);
        await this.#emit({ type: "usage.observed", usage, provenance: { provider: PROVIDER, event: "agent_message_chunk._meta.usage" } });
      }
    }
    return this.#chunk("message", update);
  }

  async #plan(update: Lenient<UpdateOf<"plan">>): Promise<void> {
    const entries: PlanEntry[] = [];
    for (const e of openEach(update.entries)) {
      const text = str(e.content);
      const status = e.status === "in_progress" || e.status === "completed" ? e.status : "pending";
      if (text !== undefined) entries.push({ text, status });
    }
    await this.#closeSegment();
    return this.#emit({ type: "plan.updated", entries, provenance: { provider: PROVIDER, event: "plan" } });
  }

  #availableCommands(update: Lenient<UpdateOf<"available_commands_update">>): Promise<void> {
    const commands: NativeCommandInfo[] = [];
    for (const c of openEach(update.availableCommands)) {
      const name = str(c.name)?.replace(/^\//, "");
      if (!name) continue;
      const command: NativeCommandInfo = { name };
      const description = str(c.description);
      if (description) command.description = description;
      const hint = isObject(c.input) ? str(c.input.hint) : undefined;
      if (hint) command.argumentHint = hint;
      commands.push(command);
    }
    const listed = commands.map((c) => (c.description ? `/${c.name} — ${c.description}` : `/${c.name}`)).join("; ");
    return this.#emit({
      type: "notice",
      level: "info",
      code: "available_commands",
      message: `the session offers ${commands.length} native commands: ${listed}`,
      commands,
      provenance: { provider: PROVIDER, event: "available_commands_update" },
    });
  }

  async #usageUpdate(update: Lenient<UpdateOf<"usage_update">>): Promise<void> {
    if (!this.usesSource("usage_update")) return;
    const usage: Usage = {};
    const used = num(update.used);
    const size = num(update.size);
    if (used !== undefined) usage.context_used = used;
    if (size !== undefined) usage.context_size = size;
    const cost = open(update.cost);
    const amount = cost === undefined ? undefined : num(cost.amount);
    if (cost !== undefined && amount !== undefined && str(cost.currency)?.toUpperCase() === "USD") usage.cumulative_cost_usd = amount;
    if (update.used === null) {
      await this.notice("info", "usage_partial", "the agent reported context usage with used: null (kept: size and cost only)");
    }
    if (Object.keys(usage).length === 0) return;
    this.mergeUsage(usage);
    return this.#emit({ type: "usage.observed", usage, provenance: { provider: PROVIDER, event: "usage_update" } });
  }

  #agentNotice(update: Lenient<UpdateOf<"notice">>): Promise<void> {
    const title = str(update.title) ?? "notice";
    const description = str(update.description);
    const severity = str(update.severity);
    const level = severity === "warning" || severity === "error" ? "warning" : "info";
    return this.notice(level, "agent_notice", description ? `${title}: ${description}` : title);
  }

  /**
   * Ends the turn for the run: the open message or reasoning segment is closed with its text, and
   * every tool call the agent never finished (a cancel cut it short) as `cancelled`. Updates after
   * this are not mapped.
   */
  async finish(): Promise<void> {
    this.#finished = true;
    await this.#closeSegment();
    for (const [id, held] of this.#heldStarts) await this.#startTool(id, held, { provider: PROVIDER, itemId: id, event: "tool_call" });
    this.#heldStarts.clear();
    for (const [id, state] of this.#tools) {
      if (state.completed) continue;
      state.completed = true;
      await this.#emit({ type: "tool.completed", callId: id, status: "cancelled", provenance: { provider: PROVIDER, itemId: id } });
    }
  }
}
