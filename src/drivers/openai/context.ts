/**
 * How large the model's context is and how much of it the next request takes. The window is the
 * config's `contextWindow`, else what the endpoint's model info says (`GET /models/{id}`, else the
 * model's entry in `GET /models`: `context_length` on OpenRouter and LM Studio, `max_model_len`
 * on vLLM, `meta.n_ctx_train` on llama.cpp, ...), asked once per model and driver. A request's
 * size is estimated from its characters (about four per token) and, once a request of the turn
 * was answered, from the tokens the endpoint counted for it.
 */
import type { OpenAIClient } from "./client.js";
import type { ContentPart, ConversationMessage } from "./conversation.js";
import type { ModelRequest, ToolSpec } from "./wire/types.js";

/** Characters per token of the estimate (a common rule of thumb for English and code). */
const CHARS_PER_TOKEN = 4;
/** What one image, file or audio part is counted as, in tokens (their bytes are not text). */
const MEDIA_TOKENS = 1000;
/** How long a model-info lookup may take. */
const LOOKUP_TIMEOUT_MS = 10_000;

const WINDOW_FIELDS = ["context_length", "max_model_len", "context_window", "max_context_length", "max_input_tokens", "n_ctx"] as const;

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

/** The context window a model-info object names, if any. */
export function windowOf(info: unknown): number | undefined {
  if (typeof info !== "object" || info === null) return undefined;
  const record = info as Record<string, unknown>;
  for (const field of WINDOW_FIELDS) {
    const n = positive(record[field]);
    if (n !== undefined) return n;
  }
  for (const nested of ["top_provider", "meta"]) {
    const inner = record[nested];
    if (typeof inner !== "object" || inner === null) continue;
    const n = windowOf(inner) ?? positive((inner as Record<string, unknown>).n_ctx_train);
    if (n !== undefined) return n;
  }
  return undefined;
}

async function lookUp(client: OpenAIClient, model: string, signal: AbortSignal): Promise<number | undefined> {
  const options = { signal, timeout: LOOKUP_TIMEOUT_MS, maxRetries: 0 };
  try {
    const n = windowOf(await client.models.retrieve(model, options));
    if (n !== undefined) return n;
  } catch {
    signal.throwIfAborted();
  }
  try {
    for await (const entry of client.models.list(options)) if (entry.id === model) return windowOf(entry);
  } catch {
    signal.throwIfAborted();
  }
  return undefined;
}

/** Context windows per model, from the config or looked up once (a lookup a cancel cut is asked again). */
export class ContextWindows {
  readonly #configured: number | undefined;
  readonly #looked = new Map<string, Promise<number | undefined>>();

  constructor(configured: number | undefined) {
    this.#configured = configured;
  }

  /** The config's window, when it gives one. */
  get configured(): number | undefined {
    return this.#configured;
  }

  async of(client: OpenAIClient, model: string, signal: AbortSignal): Promise<number | undefined> {
    if (this.#configured !== undefined) return this.#configured;
    let pending = this.#looked.get(model);
    if (pending === undefined) {
      pending = lookUp(client, model, signal);
      this.#looked.set(model, pending);
      pending.catch(() => this.#looked.delete(model));
    }
    return pending;
  }
}

function partChars(part: ContentPart): number {
  return part.type === "text" ? part.text.length : MEDIA_TOKENS * CHARS_PER_TOKEN;
}

/** Characters one message takes in a request (its text, tool calls and results). */
export function messageChars(message: ConversationMessage): number {
  switch (message.role) {
    case "user":
      return message.content.reduce((n, part) => n + partChars(part), 0);
    case "assistant":
      return message.text.length + (message.reasoning?.length ?? 0) + message.toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
    case "tool":
      return message.output.length;
  }
}

/** The characters of a tool list, counted once per list (a driver's runs share theirs, see toolbox.ts). */
const toolChars = new WeakMap<readonly ToolSpec[], number>();

function toolsChars(tools: readonly ToolSpec[]): number {
  let chars = toolChars.get(tools);
  if (chars === undefined) {
    chars = 0;
    for (const tool of tools) chars += tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length;
    toolChars.set(tools, chars);
  }
  return chars;
}

/** The estimated size of a request in tokens: its characters over four, messages, system prompt and tool specs. */
export function estimateTokens(request: Pick<ModelRequest, "instructions" | "messages" | "tools">): number {
  let chars = (request.instructions?.length ?? 0) + toolsChars(request.tools);
  for (const message of request.messages) chars += messageChars(message) + 8;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
