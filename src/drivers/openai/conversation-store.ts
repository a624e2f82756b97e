/**
 * Conversations on disk: one JSON file per provider session in the driver's `stateDir`, named by
 * the session id a run returns as `providerSessionId`, so another process resumes it. Written
 * whole after every batch of tool results and at the turn's end (temporary file and rename,
 * owner-only), bounded (long tool results cut, large media dropped) and redacted (the driver's
 * secrets never reach the disk). A fork is a copy under a new id.
 */
import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, ProviderError } from "../../errors/index.js";
import type { Redactor } from "../../redact/redact.js";
import type { ContentPart, ConversationFile, ConversationMessage, ConversationTurn } from "./conversation.js";

/** A stored tool result is cut to this many characters (head and tail kept). */
export const STORED_TOOL_OUTPUT_MAX = 64 * 1024;
/** A stored image, file or audio part larger than this (base64 characters) keeps no bytes. */
export const STORED_MEDIA_MAX = 8 * 1024 * 1024;

const SESSION_ID = /^oai_[A-Za-z0-9-]{8,64}$/;

/** Whether `id` is one this driver gives out (and therefore names a file inside `stateDir`). */
export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

export function newSessionId(): string {
  return `oai_${randomUUID()}`;
}

export class ConversationStore {
  readonly #dir: string;
  readonly #redactor: Redactor;
  #made: Promise<unknown> | undefined;

  /** `redactor`: the driver's; a run adds its own secrets (MCP env and header values) to it. */
  constructor(dir: string, redactor: Redactor) {
    this.#dir = dir;
    this.#redactor = redactor;
  }

  #path(id: string): string {
    if (!isSessionId(id)) throw new ProviderError("openai: not a session id of this driver", { code: "provider_session_not_found", phase: "before_delivery" });
    return join(this.#dir, `${id}.json`);
  }

  /** The stored conversation; `provider_session_not_found` when there is none. */
  async load(id: string): Promise<ConversationFile> {
    const path = this.#path(id);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (cause) {
      throw new ProviderError("openai: no stored conversation with this session id (see the driver's stateDir)", { code: "provider_session_not_found", phase: "before_delivery", cause });
    }
    const parsed = JSON.parse(text) as ConversationFile;
    if (parsed.version !== 1 || !Array.isArray(parsed.turns)) throw new ProviderError("openai: the stored conversation is not readable", { code: "malformed_response", phase: "before_delivery" });
    return parsed;
  }

  /**
   * Makes sure conversations can be written (the directory made, writable), once per store: a run
   * checks before its first model request, so an unusable `stateDir` fails it typed and early
   * instead of after the model was paid for.
   */
  ready(): Promise<unknown> {
    this.#made ??= mkdir(this.#dir, { recursive: true, mode: 0o700 })
      .then(() => access(this.#dir, constants.W_OK | constants.X_OK))
      .catch((cause: unknown) => {
        this.#made = undefined;
        throw new ConfigError(`openai: the configured stateDir cannot hold conversations (${(cause as NodeJS.ErrnoException).code ?? "unusable"})`, "config_invalid", { cause });
      });
    return this.#made;
  }

  /** Writes the conversation whole, bounded and redacted, atomically. */
  async save(file: ConversationFile): Promise<void> {
    const path = this.#path(file.id);
    await this.ready();
    const stored: ConversationFile = { ...file, updatedAt: new Date().toISOString(), turns: file.turns.map((t) => this.#boundedTurn(t)) };
    const temp = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
    try {
      await writeFile(temp, JSON.stringify(stored), { mode: 0o600 });
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => {});
      throw error;
    }
  }

  /** Removes a stored conversation (nothing when there is none). */
  async remove(id: string): Promise<void> {
    await rm(this.#path(id), { force: true });
  }

  #boundedTurn(turn: ConversationTurn): ConversationTurn {
    return { ...turn, messages: turn.messages.map((m) => this.#boundedMessage(m)) };
  }

  #boundedMessage(message: ConversationMessage): ConversationMessage {
    const r = (text: string) => this.#redactor.redactText(text);
    switch (message.role) {
      case "user":
        return { ...message, content: message.content.map((part) => boundedPart(part, r)) };
      case "assistant":
        return {
          ...message,
          text: r(message.text),
          ...(message.reasoning !== undefined ? { reasoning: r(message.reasoning) } : {}),
          toolCalls: message.toolCalls.map((call) => ({ ...call, arguments: r(call.arguments) })),
        };
      case "tool":
        return { ...message, output: r(cutMiddle(message.output, STORED_TOOL_OUTPUT_MAX)) };
    }
  }
}

function boundedPart(part: ContentPart, redact: (text: string) => string): ContentPart {
  if (part.type === "text") return { type: "text", text: redact(part.text) };
  if (part.data.length <= STORED_MEDIA_MAX) return part;
  return { ...part, data: "", omitted: part.data.length };
}

/** `text` cut to `max` characters, keeping its head and its tail around a note. */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters omitted …]\n${text.slice(text.length - half)}`;
}
