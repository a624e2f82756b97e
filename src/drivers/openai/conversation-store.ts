/**
 * Where the driver keeps its conversations. A run on a thread keeps them in the thread's provider
 * state in the agent's thread store ({@link ThreadConversations}), so every host sharing the store
 * resumes, forks and rewinds it; a run without a thread (or over a store that keeps no provider
 * state) keeps them in the driver's `stateDir` ({@link ConversationStore}), one JSON file per
 * provider session, named by the session id a run returns as `providerSessionId`. Either way a
 * conversation is written whole after every batch of tool results and at the turn's end, bounded
 * (long tool results cut, large media dropped) and redacted (the driver's secrets never reach the
 * store). A fork is a copy under a new id.
 */
import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { access, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ProviderStateHandle } from "../../driver/types.js";
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

/** A stored conversation smaller than this (characters of JSON) is written synchronously. */
const SYNC_WRITE_MAX = 256 * 1024;

/** What a run reads and writes its conversations through. */
export interface Conversations {
  /** Fails typed when conversations cannot be written, before the first model request. */
  ready(): Promise<unknown>;
  /** The stored conversation; `provider_session_not_found` when there is none. */
  load(id: string): Promise<ConversationFile>;
  /** Writes the conversation whole, bounded and redacted. */
  save(file: ConversationFile): Promise<void>;
}

function notFound(cause?: unknown): ProviderError {
  return new ProviderError("openai: no stored conversation with this session id (see the driver's stateDir)", { code: "provider_session_not_found", phase: "before_delivery", ...(cause !== undefined ? { cause } : {}) });
}

function unreadable(): ProviderError {
  return new ProviderError("openai: the stored conversation is not readable", { code: "malformed_response", phase: "before_delivery" });
}

export class ConversationStore implements Conversations {
  readonly #dir: string;
  readonly #redactor: Redactor;
  #made: Promise<unknown> | undefined;

  /** `redactor`: the driver's; a run adds its own secrets (MCP env and header values) to it. */
  constructor(dir: string, redactor: Redactor) {
    this.#dir = dir;
    this.#redactor = redactor;
  }

  /** The redactor conversations are written through (the driver's secrets, and its runs'). */
  get redactor(): Redactor {
    return this.#redactor;
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
      throw notFound(cause);
    }
    const parsed = JSON.parse(text) as ConversationFile;
    if (!isConversation(parsed)) throw unreadable();
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
    const text = JSON.stringify(boundedConversation(file, this.#redactor));
    const temp = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
    // A small conversation is written synchronously: each asynchronous file operation is a
    // thread-pool round trip that costs more than writing a few kilobytes (one per turn).
    if (text.length <= SYNC_WRITE_MAX) {
      try {
        writeFileSync(temp, text, { mode: 0o600 });
        renameSync(temp, path);
      } catch (error) {
        rmSync(temp, { force: true });
        throw error;
      }
      return;
    }
    try {
      await writeFile(temp, text, { mode: 0o600 });
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
}

/** Conversations kept in a thread's provider state besides the current one, at most. */
export const THREAD_ARCHIVE_MAX = 16;

/**
 * The thread's provider state as this driver writes it: the conversation the thread continues
 * (`current`) and the transcripts it still refers to — the ones its compactions replaced and the
 * one a rewind left — oldest first.
 */
export interface ThreadConversationsDocument {
  kind: "openai.conversations";
  version: 1;
  current?: string;
  conversations: ConversationFile[];
}

function isDocument(value: unknown): value is ThreadConversationsDocument {
  const doc = value as ThreadConversationsDocument | null;
  return typeof doc === "object" && doc !== null && doc.kind === "openai.conversations" && doc.version === 1 && Array.isArray(doc.conversations) && doc.conversations.every(isConversation);
}

/** The ids `file` refers to: the transcripts before its compactions and before a rewind. */
function referencesOf(file: ConversationFile): string[] {
  const ids = (file.compactions ?? []).map((c) => c.transcriptId);
  for (const turn of file.turns) if (turn.summary !== undefined) ids.push(turn.summary.transcriptId);
  if (file.rewoundFrom !== undefined) ids.push(file.rewoundFrom);
  return ids;
}

/**
 * A thread's conversations in its provider state (the thread store), for one run or rewind: read
 * once, then written whole under the run's lease at every save. A conversation saved as the
 * thread's (anything but a compaction's transcript) becomes `current`; conversations it no longer
 * refers to are dropped, and when the document would be over the store's limit the oldest
 * transcripts go first. A conversation still only in `fallback` (a thread started before its
 * conversations moved to the thread store) is read from there.
 */
export class ThreadConversations implements Conversations {
  readonly #state: ProviderStateHandle;
  readonly #redactor: Redactor;
  readonly #fallback: ConversationStore | undefined;
  #document: Promise<ThreadConversationsDocument> | undefined;

  constructor(state: ProviderStateHandle, redactor: Redactor, fallback?: ConversationStore) {
    this.#state = state;
    this.#redactor = redactor;
    this.#fallback = fallback;
  }

  /** The thread store is ready whenever the agent is: nothing to prepare. */
  ready(): Promise<unknown> {
    return Promise.resolve();
  }

  #loaded(): Promise<ThreadConversationsDocument> {
    this.#document ??= this.#state.load().then((value) => {
      if (value === undefined) return { kind: "openai.conversations", version: 1, conversations: [] };
      if (!isDocument(value)) throw unreadable();
      return value;
    });
    return this.#document;
  }

  async load(id: string): Promise<ConversationFile> {
    const doc = await this.#loaded();
    const found = doc.conversations.find((c) => c.id === id);
    if (found !== undefined) return structuredClone(found);
    if (this.#fallback !== undefined && isSessionId(id)) return this.#fallback.load(id);
    throw notFound();
  }

  async save(file: ConversationFile): Promise<void> {
    const doc = await this.#loaded();
    const stored = boundedConversation(file, this.#redactor);
    const conversations = doc.conversations.filter((c) => c.id !== stored.id);
    conversations.push(stored);
    const current = stored.transcriptOf === undefined ? stored.id : doc.current;
    const next: ThreadConversationsDocument = { kind: "openai.conversations", version: 1, conversations: kept(conversations, current) };
    if (current !== undefined) next.current = current;
    await this.#state.save(this.#fitted(next, stored.id));
    this.#document = Promise.resolve(next);
  }

  /** `doc` within the store's limit: the oldest conversations other than `current` and `keep` dropped first. */
  #fitted(doc: ThreadConversationsDocument, keep: string): ThreadConversationsDocument {
    const size = () => Buffer.byteLength(JSON.stringify(doc), "utf8");
    while (size() > this.#state.maxBytes) {
      const index = doc.conversations.findIndex((c) => c.id !== doc.current && c.id !== keep);
      if (index < 0) break; // Left for the store to refuse, typed.
      doc.conversations.splice(index, 1);
    }
    return doc;
  }
}

/** The conversations `current` still refers to (directly or through another), at most {@link THREAD_ARCHIVE_MAX} besides it. */
function kept(conversations: ConversationFile[], current: string | undefined): ConversationFile[] {
  if (current === undefined) return conversations;
  const byId = new Map(conversations.map((c) => [c.id, c]));
  const reachable = new Set<string>();
  const pending = [current];
  while (pending.length > 0) {
    const id = pending.pop()!;
    const file = byId.get(id);
    if (reachable.has(id) || file === undefined) continue;
    reachable.add(id);
    pending.push(...referencesOf(file));
  }
  // A compaction's transcript saved just before its conversation is kept until that save.
  const live = conversations.filter((c) => reachable.has(c.id) || (c.transcriptOf !== undefined && c.transcriptOf === current && !reachable.has(c.id)));
  const archived = live.filter((c) => c.id !== current);
  const drop = new Set(archived.slice(0, Math.max(0, archived.length - THREAD_ARCHIVE_MAX)).map((c) => c.id));
  return live.filter((c) => !drop.has(c.id));
}

/** `file` as it is stored: long tool results cut, large media dropped, text redacted. */
export function boundedConversation(file: ConversationFile, redactor: Redactor): ConversationFile {
  const r = (text: string) => redactor.redactText(text);
  const message = (m: ConversationMessage): ConversationMessage => {
    switch (m.role) {
      case "user":
        return { ...m, content: m.content.map((part) => boundedPart(part, r)) };
      case "assistant":
        return {
          ...m,
          text: r(m.text),
          ...(m.reasoning !== undefined ? { reasoning: r(m.reasoning) } : {}),
          toolCalls: m.toolCalls.map((call) => ({ ...call, arguments: r(call.arguments) })),
        };
      case "tool":
        return { ...m, output: r(cutMiddle(m.output, STORED_TOOL_OUTPUT_MAX)) };
    }
  };
  const turn = (t: ConversationTurn): ConversationTurn => ({ ...t, messages: t.messages.map(message) });
  return { ...file, updatedAt: new Date().toISOString(), ...(file.title !== undefined ? { title: r(file.title) } : {}), turns: file.turns.map(turn) };
}

function isConversation(value: unknown): value is ConversationFile {
  const file = value as ConversationFile | null;
  return typeof file === "object" && file !== null && file.version === 1 && typeof file.id === "string" && Array.isArray(file.turns);
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
