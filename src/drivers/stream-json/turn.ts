/**
 * Maps one turn's stream-json messages to canonical events: partial `stream_event` deltas →
 * `message.delta`/`reasoning.delta`; complete `assistant` blocks → `message.completed`,
 * `reasoning.completed`, `tool.started` (or `plan.updated` for TodoWrite); `user` tool results →
 * `tool.completed`; `system/init` → `thread.bound`; the `result` line ends the turn.
 *
 * Item ids: the CLI emits one assistant message per finished content block, so a streamed text
 * block and the complete block that follows it are paired per API message id in order of arrival.
 */
import type { EventSink } from "../../driver/types.js";
import type { DriverEvent, Provenance } from "../../events/types.js";
import { TextAccumulator } from "../../events/text-accumulator.js";
import { toolCompleted, toolStarted, type ToolCall, type Workspace } from "./tool-calls.js";
import { PLAN_TOOL, QUESTION_TOOL, planEntries } from "./tools.js";
import { isObject, str, type Json, type ResultLine } from "./wire.js";

export { MAX_TOOL_OUTPUT_CHARS } from "./tool-calls.js";

/**
 * Message types the CLIs send that carry nothing a run reports (control lines are the run loop's).
 * Claude Code's are its SDK's `SDKMessage` types; `file-history-snapshot` is CodeBuddy's.
 */
const KNOWN_UNMAPPED: ReadonlySet<string> = new Set([
  "control_request",
  "control_response",
  "control_cancel_request",
  "keep_alive",
  "tool_progress",
  "tool_use_summary",
  "auth_status",
  "rate_limit_event",
  "prompt_suggestion",
  "conversation_reset",
  "file-history-snapshot",
]);

export class TurnMapper {
  readonly #sink: EventSink;
  readonly #provider: string;
  readonly #redact: (text: string) => string;
  /** Where a file tool's file is read for its diff. */
  readonly #workspace: Workspace;
  #sessionId: string | undefined;
  #bound = false;
  #result: ResultLine | undefined;
  #lastText: string | undefined;
  #assistantError: string | undefined;
  #sawInit = false;
  #itemCounter = 0;
  /** Current streamed API message and its open blocks. */
  #streamMessageId: string | undefined;
  readonly #streamItems = new Map<number, { id: string; kind: "text" | "thinking" }>();
  /** Streamed items per API message id, waiting for their complete block. */
  readonly #pendingItems = new Map<string, { text: string[]; thinking: string[] }>();
  /** Streamed items without their complete block yet, with their text so far. */
  readonly #openItems = new Map<string, { kind: "text" | "thinking"; text: TextAccumulator; messageId: string | undefined }>();
  /** The turn is over for the run: what the CLI still says is not mapped. */
  #closed = false;
  readonly #tools = new Map<string, ToolCall>();
  /** Tool call ids seen in assistant messages, and who waits for one. */
  readonly #toolUses = new Set<string>();
  readonly #toolUseWaiters = new Map<string, (() => void)[]>();

  constructor(sink: EventSink, provider: string, redact: (text: string) => string, knownSessionId?: string, workspace?: string) {
    this.#sink = sink;
    this.#provider = provider;
    this.#redact = redact;
    this.#sessionId = knownSessionId;
    this.#workspace = workspace;
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Whether the CLI has opened the turn's session (its `system/init` arrived). */
  get sessionOpen(): boolean {
    return this.#sawInit;
  }

  get result(): ResultLine | undefined {
    return this.#result;
  }

  get lastText(): string | undefined {
    return this.#lastText;
  }

  /** `assistant.error` of the turn (e.g. `authentication_failed`), if any. */
  get assistantError(): string | undefined {
    return this.#assistantError;
  }

  /**
   * Handles one message; a returned promise resolves once its events were accepted
   * (backpressure). Not async: a streamed delta the sink takes at once costs no promise.
   */
  handle(message: Json): void | Promise<void> {
    if (this.#closed) return;
    if (this.#sessionId === undefined) {
      const sessionId = str(message.session_id);
      if (sessionId) this.#sessionId = sessionId;
    }
    if (message.type === "stream_event") return this.#streamEvent(message);
    return this.#handleOther(message);
  }

  async #handleOther(message: Json): Promise<void> {
    switch (message.type) {
      case "system":
        return this.#system(message);
      case "assistant":
        return this.#assistant(message);
      case "user":
        return this.#user(message);
      case "result":
        this.#result = message as unknown as ResultLine;
        if (str(message.session_id)) this.#sessionId = str(message.session_id);
        return;
      case "error": {
        const text = str(message.error);
        if (text) await this.#emit({ type: "notice", level: "warning", code: "provider_error_line", message: this.#redact(text) });
        return;
      }
      default: {
        const type = str(message.type);
        // A typeless line was reported as malformed before it got here.
        if (type === undefined || KNOWN_UNMAPPED.has(type)) return;
        // A newer CLI's message type: reported, never dropped silently.
        await this.#emit({ type: "notice", level: "info", code: "unknown_message", message: `the CLI sent a message type the driver does not know (${type.slice(0, 80)})`, provenance: this.#prov({ event: type.slice(0, 80) }) });
        return;
      }
    }
  }

  /** Starts a tool from its permission request when that arrives first (CodeBuddy). */
  async startToolFromPermission(toolUseId: string, name: string, input: unknown): Promise<void> {
    await this.#startTool(toolUseId, name, input);
  }

  /**
   * Resolves once the assistant message holding tool call `toolUseId` has been read, or after
   * `timeoutMs` (it may never come, e.g. for a call the CLI does not report).
   */
  toolUseSeen(toolUseId: string, timeoutMs: number): Promise<void> {
    if (this.#toolUses.has(toolUseId)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      const list = this.#toolUseWaiters.get(toolUseId) ?? [];
      list.push(() => (clearTimeout(timer), resolve()));
      this.#toolUseWaiters.set(toolUseId, list);
    });
  }

  #sawToolUses(message: Json): void {
    const body = isObject(message.message) ? message.message : undefined;
    for (const block of Array.isArray(body?.content) ? body.content.filter(isObject) : []) {
      const id = block.type === "tool_use" ? str(block.id) : undefined;
      if (id === undefined || this.#toolUses.has(id)) continue;
      this.#toolUses.add(id);
      for (const wake of this.#toolUseWaiters.get(id) ?? []) wake();
      this.#toolUseWaiters.delete(id);
    }
  }

  /** Records that the host denied `toolUseId`, so its error result reads as `declined`. */
  markDenied(toolUseId: string | undefined): void {
    if (toolUseId === undefined) return;
    const call = this.#tools.get(toolUseId);
    if (call) call.denied = true;
    else this.#tools.set(toolUseId, { name: "", input: undefined, started: false, denied: true, completed: false });
  }

  /**
   * Ends the turn for the run: every item that started and was never finished (an interrupt or
   * an exit cut it short) is closed — streamed text and thinking with their text so far, tool
   * calls as `cancelled`. Messages read after this are not mapped.
   */
  async closeOpenItems(): Promise<void> {
    this.#closed = true;
    for (const [id, item] of [...this.#openItems]) {
      this.#openItems.delete(id);
      const provenance = this.#prov({ itemId: id, messageId: item.messageId });
      await this.#emit({ type: item.kind === "text" ? "message.completed" : "reasoning.completed", itemId: id, text: item.text.toString(), provenance });
    }
    for (const [callId, call] of this.#tools) {
      if (call.started && !call.completed) {
        call.completed = true;
        await this.#emit({ type: "tool.completed", callId, status: "cancelled", provenance: this.#prov({ itemId: callId }) });
      }
    }
  }

  async #system(message: Json): Promise<void> {
    switch (message.subtype) {
      case "init": {
        this.#sawInit = true;
        const id = str(message.session_id);
        if (id) this.#sessionId = id;
        if (this.#sessionId && !this.#bound) {
          this.#bound = true;
          await this.#emit({ type: "thread.bound", providerSessionId: this.#sessionId, provenance: this.#prov({ event: "system/init" }) });
        }
        return;
      }
      case "permission_denied": {
        const toolUseId = str(message.tool_use_id);
        this.markDenied(toolUseId);
        const tool = str(message.tool_name) ?? "a tool";
        await this.#emit({ type: "notice", level: "warning", code: "permission_denied", message: `${tool} was denied by the permission mode` });
        return;
      }
      case "compact_boundary": {
        // The CLI's compaction (`/compact`, or its own when the context fills up) replaced the conversation with a summary.
        const meta = isObject(message.compact_metadata) ? message.compact_metadata : undefined;
        const trigger = str(meta?.trigger);
        const before = typeof meta?.pre_tokens === "number" ? `, ${meta.pre_tokens} tokens before` : "";
        await this.#emit({ type: "notice", level: "info", code: "context_compacted", message: `the CLI compacted the conversation${trigger ? ` (${trigger}${before})` : ""}` });
        return;
      }
      case "api_retry": {
        const status = typeof message.error_status === "number" ? ` (HTTP ${message.error_status})` : "";
        const attempt = typeof message.attempt === "number" ? ` ${message.attempt}` : "";
        const max = typeof message.max_retries === "number" ? ` of ${message.max_retries}` : "";
        await this.#emit({ type: "notice", level: "info", code: "api_retry", message: `the model request failed${status}; retry${attempt}${max}` });
        return;
      }
      default:
        return;
    }
  }

  #streamEvent(message: Json): void | Promise<void> {
    if (message.parent_tool_use_id != null) return; // inside a subagent
    const event = isObject(message.event) ? message.event : undefined;
    if (!event) return;
    switch (event.type) {
      case "message_start": {
        const msg = isObject(event.message) ? event.message : undefined;
        this.#streamMessageId = str(msg?.id) ?? `stream_${++this.#itemCounter}`;
        this.#streamItems.clear();
        return;
      }
      case "content_block_delta": {
        const delta = isObject(event.delta) ? event.delta : undefined;
        const index = typeof event.index === "number" ? event.index : 0;
        if (delta?.type === "text_delta") {
          const text = str(delta.text);
          if (!text) return;
          const id = this.#streamItem(index, "text", text);
          return this.#emit({ type: "message.delta", itemId: id, text, provenance: this.#streamProvenance() });
        }
        if (delta?.type === "thinking_delta") {
          const text = str(delta.thinking);
          if (!text) return;
          const id = this.#streamItem(index, "thinking", text);
          return this.#emit({ type: "reasoning.delta", itemId: id, text, provenance: this.#streamProvenance() });
        }
        return;
      }
      default:
        return;
    }
  }

  /** A delta's provenance, built directly: this runs once per streamed delta. */
  #streamProvenance(): Provenance {
    const messageId = this.#streamMessageId;
    return messageId === undefined ? { provider: this.#provider } : { provider: this.#provider, messageId };
  }

  /** The item id of a streamed block, created on its first delta; `delta` is added to its text so far. */
  #streamItem(index: number, kind: "text" | "thinking", delta: string): string {
    const open = this.#streamItems.get(index);
    if (open && open.kind === kind) {
      this.#openItems.get(open.id)?.text.append(delta);
      return open.id;
    }
    const messageId = this.#streamMessageId ?? "stream";
    const id = `${messageId}:${++this.#itemCounter}`;
    this.#streamItems.set(index, { id, kind });
    this.#openItems.set(id, { kind, text: new TextAccumulator(delta), messageId: this.#streamMessageId });
    const pending = this.#pendingItems.get(messageId) ?? { text: [], thinking: [] };
    pending[kind].push(id);
    this.#pendingItems.set(messageId, pending);
    return id;
  }

  async #assistant(message: Json): Promise<void> {
    this.#sawToolUses(message);
    if (message.parent_tool_use_id != null) return; // inside a subagent
    const body = isObject(message.message) ? message.message : undefined;
    if (!body) return;
    const error = str(message.error);
    if (error) this.#assistantError = error;
    const messageId = str(body.id) ?? `message_${++this.#itemCounter}`;
    const blocks = Array.isArray(body.content) ? body.content.filter(isObject) : [];
    const pending = this.#pendingItems.get(messageId);
    // An unstreamed message the CLI wrote for an API error is its error text, not model output: the run's failure carries it.
    const errorText = error !== undefined && error !== "max_output_tokens" && pending === undefined;
    for (const block of blocks) {
      if (block.type === "text" && errorText) continue;
      if (block.type === "text") {
        const text = str(block.text) ?? "";
        const streamed = pending?.text.shift() ?? this.#openItemWithText("text", text);
        if (text === "" && streamed === undefined) continue;
        const id = streamed ?? `${messageId}:${++this.#itemCounter}`;
        this.#openItems.delete(id);
        this.#lastText = text;
        await this.#emit({ type: "message.completed", itemId: id, text, provenance: this.#prov({ messageId }) });
      } else if (block.type === "thinking") {
        const text = str(block.thinking) ?? "";
        const streamed = pending?.thinking.shift() ?? this.#openItemWithText("thinking", text);
        if (text === "" && streamed === undefined) continue;
        const id = streamed ?? `${messageId}:${++this.#itemCounter}`;
        this.#openItems.delete(id);
        await this.#emit({ type: "reasoning.completed", itemId: id, text, provenance: this.#prov({ messageId }) });
      } else if (block.type === "tool_use") {
        const id = str(block.id);
        const name = str(block.name);
        if (id && name) await this.#startTool(id, name, block.input, messageId);
      }
    }
  }

  /**
   * The open streamed item of `kind` whose text so far is exactly `text`. CodeBuddy may complete a
   * streamed block under another message id than the stream's (its thinking block, and a block cut
   * by an interrupt): without this, the block would be reported twice under two item ids.
   */
  #openItemWithText(kind: "text" | "thinking", text: string): string | undefined {
    if (text === "") return undefined;
    for (const [id, item] of this.#openItems) {
      if (item.kind !== kind || item.text.toString() !== text) continue;
      const pending = this.#pendingItems.get(item.messageId ?? "stream")?.[kind];
      const index = pending?.indexOf(id) ?? -1;
      if (index >= 0) pending!.splice(index, 1);
      return id;
    }
    return undefined;
  }

  async #startTool(callId: string, name: string, input: unknown, messageId?: string): Promise<void> {
    const known = this.#tools.get(callId);
    if (known?.started) return;
    const call: ToolCall = { name, input, started: false, denied: known?.denied ?? false, completed: false };
    this.#tools.set(callId, call);
    if (name === PLAN_TOOL) {
      const entries = planEntries(input);
      if (entries) await this.#emit({ type: "plan.updated", entries, provenance: this.#prov({ itemId: callId }) });
      return;
    }
    if (name === QUESTION_TOOL) return; // reported as question.* events
    call.started = true;
    const started = await toolStarted(callId, call, this.#workspace, this.#redact);
    await this.#emit({ type: "tool.started", ...started, provenance: this.#prov({ itemId: callId, ...(messageId ? { messageId } : {}), event: name }) });
  }

  async #user(message: Json): Promise<void> {
    const body = isObject(message.message) ? message.message : undefined;
    const results = (Array.isArray(body?.content) ? body.content.filter(isObject) : []).filter((block) => block.type === "tool_result");
    // Claude Code's `tool_use_result` (structured output: stdout, patch) belongs to a message's one result.
    const toolUseResult = results.length === 1 ? message.tool_use_result : undefined;
    for (const block of results) {
      const callId = str(block.tool_use_id);
      const call = callId === undefined ? undefined : this.#tools.get(callId);
      if (!callId || !call?.started || call.completed) continue;
      call.completed = true;
      const completed = await toolCompleted(callId, call, block, toolUseResult, this.#workspace, this.#redact);
      await this.#emit({ type: "tool.completed", ...completed, provenance: this.#prov({ itemId: callId }) });
    }
  }

  #prov(extra: Omit<Provenance, "provider">): Provenance {
    const provenance: Provenance = { provider: this.#provider };
    for (const [key, value] of Object.entries(extra)) if (value !== undefined) (provenance as unknown as Json)[key] = value;
    return provenance;
  }

  #emit(event: DriverEvent): Promise<void> | undefined {
    return this.#sink.emit(event);
  }
}
