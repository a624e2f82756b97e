/**
 * Where the driver keeps its conversations. A run on a thread keeps them in the thread's provider
 * state in the agent's thread store ({@link ThreadConversations}), so every host sharing the store
 * resumes, forks and rewinds it; a run without a thread (or over a store that keeps no provider
 * state) keeps them in the driver's `stateDir` ({@link ConversationStore}), named by the session id
 * a run returns as `providerSessionId`. Either way a conversation is written whole at the turn's
 * end and after a batch of tool results that may have changed something, bounded (long tool
 * results cut, large media dropped) and redacted (the driver's secrets never reach the store). A
 * fork is a copy under a new id.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { access, link, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
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

/** A conversation larger than this (characters of JSON) is written to its own file, not the journal. */
export const JOURNAL_RECORD_MAX = 64 * 1024;
/** A journal past this many bytes is folded into per-conversation files and a new one started. */
export const JOURNAL_MAX = 4 * 1024 * 1024;
/** `journal-<host>-<pid>-<random>.jsonl`: the writer's host and pid tell whether it is still alive. */
const JOURNAL_NAME = /^journal-(.+)-(\d+)-[0-9a-f]{8}\.jsonl$/;

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

/** One line of a journal: a conversation as saved at `at` (ms), or its removal (no `file`). */
interface JournalRecord {
  id: string;
  at: number;
  file?: ConversationFile;
}

/** The journal this store appends to: its descriptor, size, and the ids it holds. */
interface OpenJournal {
  path: string;
  fd: number;
  bytes: number;
}

/**
 * The driver's `stateDir`. Creating a file costs far more than writing a conversation (hundreds
 * of microseconds against a few), and a run without a thread starts a new conversation every
 * time, so conversations are appended, one JSON line per save, to a journal this store owns
 * (`journal-<host>-<pid>-<random>.jsonl`, created once, `O_APPEND`). A conversation over
 * {@link JOURNAL_RECORD_MAX} is written to its own file `<id>.json` instead (a temporary file
 * renamed over it). The newest record of an id wins, by its save time (`updatedAt`, strictly
 * increasing within a store); a line cut short by a crash does not parse and is skipped, so a
 * reader sees each conversation as of its last complete save. A journal is folded into
 * `<id>.json` files (each written atomically, then the journal removed) when it passes
 * {@link JOURNAL_MAX}, when the driver closes, and when a later store finds the journal of a
 * process that is gone.
 */
export class ConversationStore implements Conversations {
  readonly #dir: string;
  readonly #redactor: Redactor;
  #made: Promise<unknown> | undefined;
  #journal: OpenJournal | undefined;
  /** The last save time given out: saves of one store are strictly ordered. */
  #lastAt = 0;
  /** Folds under way (a full or closed journal, or ones a dead process left, and their listing). */
  readonly #folding = new Set<Promise<void>>();

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
    // Journals before the file: a fold writes the file before it removes its journal.
    let newest: JournalRecord | undefined;
    for (const record of await this.#journalRecords(id)) if (newest === undefined || record.at >= newest.at) newest = record;
    let text: string | undefined;
    try {
      text = await readFile(path, "utf8");
    } catch (cause) {
      if (newest === undefined) throw notFound(cause);
    }
    if (text !== undefined) {
      const parsed = parsedConversation(text);
      if (parsed === undefined && newest === undefined) throw unreadable();
      // A tie is a fold of this very record.
      if (parsed !== undefined && (newest === undefined || Date.parse(parsed.updatedAt) > newest.at)) return parsed;
    }
    if (newest?.file === undefined) throw notFound();
    return newest.file;
  }

  /** Every complete record of `id` in the directory's journals, each journal in its order. */
  async #journalRecords(id: string): Promise<JournalRecord[]> {
    const records: JournalRecord[] = [];
    for (const name of await this.#journals()) {
      let text: string;
      try {
        text = await readFile(join(this.#dir, name), "utf8");
      } catch {
        continue; // Folded and removed since the listing.
      }
      if (!text.includes(id)) continue;
      for (const record of journalLines(text, id)) if (record.id === id) records.push(record);
    }
    return records;
  }

  async #journals(): Promise<string[]> {
    try {
      return (await readdir(this.#dir)).filter((name) => JOURNAL_NAME.test(name));
    } catch {
      return [];
    }
  }

  /**
   * Makes sure conversations can be written (the directory made, writable), once per store: a run
   * checks before its first model request, so an unusable `stateDir` fails it typed and early
   * instead of after the model was paid for. Journals left by processes that are gone are folded
   * in the background.
   */
  ready(): Promise<unknown> {
    this.#made ??= mkdir(this.#dir, { recursive: true, mode: 0o700 })
      .then(() => access(this.#dir, constants.W_OK | constants.X_OK))
      .then(() => this.#adoptOrphans())
      .catch((cause: unknown) => {
        this.#made = undefined;
        throw new ConfigError(`openai: the configured stateDir cannot hold conversations (${(cause as NodeJS.ErrnoException).code ?? "unusable"})`, "config_invalid", { cause });
      });
    return this.#made;
  }

  /** Folds (in the background) the journals of this host's processes that no longer run. */
  #adoptOrphans(): void {
    const host = hostname();
    const listing: Promise<void> = this.#journals()
      .then((names) => {
        for (const name of names) {
          const [, from, pid] = JOURNAL_NAME.exec(name)!;
          if (from === host && !alive(Number(pid))) this.#fold(join(this.#dir, name));
        }
      })
      .finally(() => this.#folding.delete(listing));
    this.#folding.add(listing);
  }

  /** Writes the conversation whole, bounded and redacted: a journal record, or its own file when large. */
  async save(file: ConversationFile): Promise<void> {
    const path = this.#path(file.id);
    await this.ready();
    const at = this.#now();
    const text = JSON.stringify(boundedConversation(file, this.#redactor, new Date(at).toISOString()));
    if (text.length > JOURNAL_RECORD_MAX) return writeAtomically(path, text);
    // A session id is JSON as it is (see SESSION_ID): no escaping needed.
    this.#append(`{"id":"${file.id}","at":${at},"file":${text}}\n`);
  }

  /** Removes a stored conversation (nothing when there is none): its file, and a removal record. */
  async remove(id: string): Promise<void> {
    const path = this.#path(id);
    await this.ready();
    this.#append(`{"id":${JSON.stringify(id)},"at":${this.#now()}}\n`);
    await rm(path, { force: true });
  }

  /** Folds this store's journal into per-conversation files (the driver is closing); later saves start a new one. */
  async close(): Promise<void> {
    this.#retire();
    while (this.#folding.size > 0) await Promise.all(this.#folding);
  }

  #now(): number {
    this.#lastAt = Math.max(Date.now(), this.#lastAt + 1);
    return this.#lastAt;
  }

  /**
   * One record appended whole, synchronously: a thread-pool round trip costs more than the write.
   * The write reaches the kernel before the save resolves, so a conversation saved survives the
   * process (a crash or a kill); it is not flushed to the disk (no fsync), so a power loss may
   * take the last saves, as with any file written without one.
   */
  #append(line: string): void {
    const journal = (this.#journal ??= this.#openJournal());
    const length = Buffer.byteLength(line, "utf8");
    let written = 0;
    try {
      // The string as it is, without a Buffer of its own; a short write (a full disk) goes on from bytes.
      written = writeSync(journal.fd, line);
      if (written < length) {
        const bytes = Buffer.from(line, "utf8");
        while (written < length) written += writeSync(journal.fd, bytes, written);
      }
    } catch (error) {
      // A partial line may be left: nothing is appended after it, so it stays the last, unread.
      this.#retire();
      throw error;
    }
    journal.bytes += written;
    if (journal.bytes > JOURNAL_MAX) this.#retire();
  }

  #openJournal(): OpenJournal {
    const path = join(this.#dir, `journal-${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}.jsonl`);
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND, 0o600);
    return { path, fd, bytes: 0 };
  }

  /** Stops appending to the current journal and folds it. */
  #retire(): void {
    const journal = this.#journal;
    if (journal === undefined) return;
    this.#journal = undefined;
    closeSync(journal.fd);
    this.#fold(journal.path);
  }

  #fold(journal: string): void {
    const folding: Promise<void> = foldJournal(this.#dir, journal)
      .catch(() => undefined) // Left in place: the next store folds it, and reads see it meanwhile.
      .finally(() => this.#folding.delete(folding));
    this.#folding.add(folding);
  }
}

/** Each conversation's newest record in `journal` written to its file unless the file is newer, then the journal removed. */
async function foldJournal(dir: string, journal: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(journal, "utf8");
  } catch {
    return; // Another store folded it.
  }
  const newest = new Map<string, JournalRecord>();
  for (const record of journalLines(text)) if (isSessionId(record.id)) newest.set(record.id, record);
  // Most conversations of a journal have no file yet: only those listed are read.
  const present = new Set(await readdir(dir));
  for (const record of newest.values()) {
    const path = join(dir, `${record.id}.json`);
    // Not there when listed: made only if still not there (a save elsewhere may have made a newer one since).
    if (!present.has(`${record.id}.json`) && (record.file === undefined || (await writeNew(path, JSON.stringify(record.file))))) continue;
    const existing = await readFile(path, "utf8").then(parsedConversation, () => undefined);
    if (existing !== undefined && Date.parse(existing.updatedAt) >= record.at) continue;
    if (record.file === undefined) await rm(path, { force: true });
    else await writeAtomically(path, JSON.stringify(record.file));
  }
  await rm(journal, { force: true });
}

/**
 * The complete records of a journal's text; a line cut short (or otherwise unreadable) is skipped.
 * `about`: only lines that mention it are parsed.
 */
function journalLines(text: string, about?: string): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || (about !== undefined && !line.includes(about))) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const record = value as JournalRecord | null;
    if (typeof record !== "object" || record === null || typeof record.id !== "string" || typeof record.at !== "number") continue;
    if (record.file !== undefined && !isConversation(record.file)) continue;
    records.push(record);
  }
  return records;
}

function parsedConversation(text: string): ConversationFile | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isConversation(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** `text` to `path` through a temporary file renamed over it: a reader sees the old file or the new one. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o600 });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

/** `text` to `path` as a new file, complete once it appears; false when `path` exists. */
async function writeNew(path: string, text: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o600 });
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await rm(temp, { force: true }).catch(() => {});
  }
}

/** Whether a process of this host runs under `pid` (one of another user counts as running). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
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

/**
 * Conversation `id` in a thread's provider state as a thread store returns it (the JSON text of
 * `loadProviderState`); undefined when there is no document or it holds no such conversation.
 */
export function conversationInThreadState(text: string | undefined, id: string): ConversationFile | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw unreadable();
  }
  if (!isDocument(value)) throw unreadable();
  return value.conversations.find((c) => c.id === id);
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
    const limit = this.#state.maxBytes;
    // Characters first, counted without writing the document: the UTF-8 text is made only near
    // the limit (each character is at most 3 bytes in JSON text).
    const over = () => documentChars(doc) * 3 > limit && Buffer.byteLength(JSON.stringify(doc), "utf8") > limit;
    while (over()) {
      const index = doc.conversations.findIndex((c) => c.id !== doc.current && c.id !== keep);
      if (index < 0) break; // Left for the store to refuse, typed.
      doc.conversations.splice(index, 1);
    }
    return doc;
  }
}

/** The JSON length of each conversation of a thread's document (what the document holds is never changed). */
const conversationChars = new WeakMap<ConversationFile, number>();

/**
 * `JSON.stringify(doc).length`, with each conversation's part counted once per conversation: a
 * save changes one of them, and the transcripts a thread keeps can be far larger than it.
 */
export function documentChars(doc: ThreadConversationsDocument): number {
  let chars = JSON.stringify({ ...doc, conversations: [] }).length + Math.max(0, doc.conversations.length - 1);
  for (const conversation of doc.conversations) {
    let n = conversationChars.get(conversation);
    if (n === undefined) conversationChars.set(conversation, (n = JSON.stringify(conversation).length));
    chars += n;
  }
  return chars;
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
export function boundedConversation(file: ConversationFile, redactor: Redactor, updatedAt = new Date().toISOString()): ConversationFile {
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
      case "tool": {
        // Redacted before the cut: a secret across either end of the omitted middle would leave a part.
        // A tool that cut text itself left a copy cut after redaction in `published`.
        const { published, ...kept } = m;
        return { ...kept, output: cutMiddle(r(published ?? m.output), STORED_TOOL_OUTPUT_MAX) };
      }
    }
  };
  const turn = (t: ConversationTurn): ConversationTurn => ({ ...t, messages: t.messages.map(message) });
  // The compactions are copied too: a run adds to its conversation's list after a save, and a stored copy never changes.
  const compactions = file.compactions?.map((c) => ({ ...c }));
  return { ...file, updatedAt, ...(file.title !== undefined ? { title: r(file.title) } : {}), ...(compactions !== undefined ? { compactions } : {}), turns: file.turns.map(turn) };
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
