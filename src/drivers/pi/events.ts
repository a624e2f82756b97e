/**
 * Pi's RPC events as canonical events. Assistant text and thinking stream through
 * `message_update` (`text_delta`, `thinking_delta`) and are completed by `message_end`, which also
 * carries the message's usage with cost; tools are `tool_execution_start/update/end`, mapped by
 * ./tool-calls.ts. Every update repeats the whole partial message: only the deltas are read.
 */
import type { DriverEvent } from "../../events/types.js";
import type { Usage } from "../../events/usage.js";
import { PiTurnUsage } from "./usage.js";
import { arr, isObject, num, str, type Json } from "../../driver/json.js";
import { PiToolCalls } from "./tool-calls.js";

const PROVIDER = "pi";

type Emit = (event: DriverEvent) => Promise<void>;

export { toolKind } from "./tools.js";

/** One assistant message's `usage` — one model request — (tokens, and cost when the model declares prices) in canonical keys. */
export function messageUsage(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const usage: Usage = {};
  const set = (key: keyof Usage, v: unknown) => {
    const n = num(v);
    if (n !== undefined) usage[key] = n;
  };
  set("input_tokens", value.input);
  set("output_tokens", value.output);
  set("cached_input_tokens", value.cacheRead);
  set("cache_creation_input_tokens", value.cacheWrite);
  set("total_tokens", value.totalTokens);
  if (isObject(value.cost)) set("cost_usd", value.cost.total);
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** Text of a message's `text` parts. */
export function messageText(message: unknown): string {
  if (!isObject(message)) return "";
  if (typeof message.content === "string") return message.content;
  return arr(message.content)
    .filter(isObject)
    .filter((c) => c.type === "text")
    .map((c) => str(c.text) ?? "")
    .join("");
}

/** Pi's events that carry nothing a run reports (the run loop reads `agent_end` itself). */
const KNOWN_UNMAPPED: ReadonlySet<string> = new Set([
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "queue_update",
  "auto_retry_end",
  "compaction_start",
  "compaction_end",
  "session_info_changed",
  "thinking_level_changed",
  "extension_error",
  "extension_ui_request",
]);

interface OpenSegment {
  itemId: string;
  text: string;
}

/** One run's mapping state. */
export class PiEventMapper {
  readonly #emit: Emit;
  #messages = 0;
  #text: OpenSegment | undefined;
  #thinking: OpenSegment | undefined;
  readonly #tools: PiToolCalls;
  readonly #usage = new PiTurnUsage();
  /** The last assistant message of the run, as `message_end` reported it. */
  lastAssistant: Json | undefined;
  /** Text of the last assistant message that had any. */
  finalText = "";

  /** `workspace`: where an edit or write call's file is read for its diff. */
  constructor(emit: Emit, workspace?: string, mcpServers: readonly string[] = [], redact?: (text: string) => string) {
    this.#emit = emit;
    this.#tools = new PiToolCalls(emit, workspace, mcpServers, redact);
  }

  /** The turn's usage over its model requests so far (see `PiTurnUsage`). */
  get usage(): Usage | undefined {
    return this.#usage.current;
  }

  /** Tools started and not yet ended. */
  get activeTools(): number {
    return this.#tools.active;
  }

  async handle(event: Json): Promise<void> {
    switch (event.type) {
      case "message_start":
        if (isObject(event.message) && event.message.role === "assistant") this.#messages++;
        return;
      case "message_update":
        return this.#update(event);
      case "message_end":
        return this.#messageEnd(event);
      case "tool_execution_start":
        return this.#tools.start(event);
      case "tool_execution_update":
        return this.#tools.update(event);
      case "tool_execution_end":
        return this.#tools.end(event);
      case "auto_retry_start":
        return this.#emit({
          type: "notice",
          level: "warning",
          code: "provider_retry",
          message: `pi retries the model call (attempt ${String(num(event.attempt) ?? "?")} of ${String(num(event.maxAttempts) ?? "?")}): ${str(event.errorMessage) ?? "error"}`,
          provenance: { provider: PROVIDER, event: "auto_retry_start" },
        });
      default:
        if (typeof event.type !== "string" || KNOWN_UNMAPPED.has(event.type)) return;
        // A newer Pi's event: reported, never dropped silently.
        return this.#emit({
          type: "notice",
          level: "info",
          code: "unknown_message",
          message: `pi sent an event the driver does not know (${event.type.slice(0, 80)})`,
          provenance: { provider: PROVIDER, event: event.type.slice(0, 80) },
        });
    }
  }

  async #update(event: Json): Promise<void> {
    const sub = isObject(event.assistantMessageEvent) ? event.assistantMessageEvent : undefined;
    if (sub === undefined) return;
    if (typeof sub.type === "string" && sub.type.startsWith("toolcall_")) return this.#tools.streamed(sub);
    const delta = str(sub.delta);
    if (sub.type === "text_delta" && delta !== undefined && delta !== "") {
      this.#text ??= { itemId: `pi_message_${this.#messages}`, text: "" };
      this.#text.text += delta;
      await this.#emit({ type: "message.delta", itemId: this.#text.itemId, text: delta, provenance: { provider: PROVIDER, event: "text_delta" } });
    } else if (sub.type === "thinking_delta" && delta !== undefined && delta !== "") {
      this.#thinking ??= { itemId: `pi_reasoning_${this.#messages}`, text: "" };
      this.#thinking.text += delta;
      await this.#emit({ type: "reasoning.delta", itemId: this.#thinking.itemId, text: delta, provenance: { provider: PROVIDER, event: "thinking_delta" } });
    }
  }

  async #messageEnd(event: Json): Promise<void> {
    const message = isObject(event.message) ? event.message : undefined;
    if (message?.role !== "assistant") return;
    this.lastAssistant = message;
    await this.#closeSegments("message_end");
    const text = messageText(message);
    if (text !== "") this.finalText = text;
    const request = messageUsage(message.usage);
    if (request !== undefined) {
      const usage = this.#usage.add(request);
      await this.#emit({ type: "usage.observed", usage, provenance: { provider: PROVIDER, event: "message_end" } });
    }
  }

  async #closeSegments(source: string): Promise<void> {
    const thinking = this.#thinking;
    this.#thinking = undefined;
    if (thinking !== undefined) await this.#emit({ type: "reasoning.completed", itemId: thinking.itemId, text: thinking.text, provenance: { provider: PROVIDER, event: source } });
    const text = this.#text;
    this.#text = undefined;
    if (text !== undefined) await this.#emit({ type: "message.completed", itemId: text.itemId, text: text.text, provenance: { provider: PROVIDER, event: source } });
  }

  /** The run was cancelled: a tool Pi reports failed from now on was stopped by the abort. */
  cancelling(): void {
    this.#tools.cancelling = true;
  }

  /** Closes every item still open (a cancelled or failed turn): open text, and tools as cancelled. */
  async finish(): Promise<void> {
    await this.#closeSegments("finish");
    await this.#tools.finish();
  }
}
