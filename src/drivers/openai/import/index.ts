/**
 * `importTranscript`: a recorded Codex or Claude Code session continued as a thread of an
 * `openai()` agent. The transcript's user and assistant messages, reasoning, tool calls and their
 * results become the start of a stored conversation — in the thread's provider state in the
 * thread store, or in the driver's `stateDir` with a store that keeps none — bounded and redacted
 * like every conversation the driver writes, and a new thread is bound to it, so its first run
 * (on any host sharing the store) sends the imported history before the new prompt.
 */
import { basename } from "node:path";
import { z } from "zod";
import { nonEmptyString, parseOrThrow } from "../../../driver/validate-schema.js";
import { ConfigError } from "../../../errors/index.js";
import { InputError } from "../../../input/errors.js";
import type { ConversationFile, ConversationTurn } from "../conversation.js";
import { agentLinkOf } from "../../../driver/agent-link.js";
import { boundedConversation, newSessionId, type ConversationStore, type ThreadConversationsDocument } from "../conversation-store.js";
import { conversationStoreOf, type OpenAIDriver } from "../driver.js";
import { keepsProviderState, startImportedThread, type TranscriptImportAgent, type TranscriptImportThreadStore } from "./bind.js";
import { boundTurns, DEFAULT_IMPORT_MAX_CHARS } from "./bound.js";
import { TranscriptBuilder, type ImportedTurn } from "./builder.js";
import { claudeFormat } from "./claude.js";
import { codexFormat } from "./codex.js";
import type { TranscriptFormat } from "./format.js";
import { ImportedMedia } from "./media.js";
import { readTranscript } from "./read.js";

export type { TranscriptImportAgent, TranscriptImportThreadStore } from "./bind.js";

/** The recorded-session formats `importTranscript` reads. */
export type TranscriptFormatName = "codex" | "claude";

const FORMATS: Record<TranscriptFormatName, TranscriptFormat> = { codex: codexFormat, claude: claudeFormat };

/** The default `maxBytes`: the largest transcript file read. */
const DEFAULT_IMPORT_MAX_BYTES = 64 * 1024 * 1024;

export interface ImportTranscriptOptions {
  /**
   * The `openai()` driver the agent was created with. Optional: the agent's own is used; given,
   * it must be that one.
   */
  driver?: OpenAIDriver;
  /**
   * The thread store the agent was created with (`createAgent`'s `threadStore`). Optional: the
   * agent's own is used; given, it must be that one.
   */
  threadStore?: TranscriptImportThreadStore;
  /** `codex`: a rollout file (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`); `claude`: a Claude Code transcript (`~/.claude/projects/<dir>/<session>.jsonl`). */
  format: TranscriptFormatName;
  /** Path of the transcript file. */
  file: string;
  /** The new thread's id (default: generated). */
  threadId?: string;
  metadata?: Record<string, string>;
  /** A larger file is refused (`input_too_large`). Default 64 MiB. */
  maxBytes?: number;
  /** Characters of text kept; the oldest turns are left out beyond it (see the returned `droppedMessages`). Default 1 000 000. */
  maxChars?: number;
}

/** The new thread and what the import brought over. */
export interface ImportedTranscript<T> {
  thread: T;
  /** The driver's session id of the imported conversation (the thread's `providerSessionId`). */
  providerSessionId: string;
  /** Turns (one per user prompt) and messages imported, after the size limit. */
  turns: number;
  messages: number;
  /** Oldest messages left out to stay within `maxChars`. */
  droppedMessages: number;
  /** Lines skipped: not JSON, or an entry of the conversation whose shape could not be read. */
  skippedLines: number;
  /** Images kept inline, and media parts the model reads as a short placeholder instead. */
  media: { kept: number; replaced: number };
}

const optionsSchema = z.strictObject({
  driver: z.custom<OpenAIDriver>((v) => typeof v === "object" && v !== null, "expected the openai() driver").optional(),
  threadStore: z.custom<TranscriptImportThreadStore>((v) => typeof v === "object" && v !== null, "expected a thread store").optional(),
  format: z.enum(["codex", "claude"]),
  file: nonEmptyString,
  threadId: z.string().min(1).max(512).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  maxBytes: z.number().int().positive().optional(),
  maxChars: z.number().int().positive().optional(),
} satisfies Record<keyof ImportTranscriptOptions, z.ZodType>);

/**
 * The conversations of the agent's driver and the agent's thread store: from the agent (core
 * records both when it creates one), or the options' (an agent core did not create, such as a
 * host's wrapper), which must then be the agent's own.
 */
function agentParts(agent: unknown, o: { driver?: OpenAIDriver | undefined; threadStore?: TranscriptImportThreadStore | undefined }): { driver: ConversationStore; threadStore: TranscriptImportThreadStore } {
  const link = agentLinkOf(agent);
  if (link !== undefined && o.driver !== undefined && o.driver !== link.driver) throw new ConfigError("importTranscript: driver must be the openai() driver the agent was created with");
  if (link !== undefined && o.threadStore !== undefined && o.threadStore !== link.threadStore) {
    throw new ConfigError("importTranscript: threadStore is not the store the agent was created with");
  }
  const driver = o.driver ?? (link?.driver as OpenAIDriver | undefined);
  const conversations = driver === undefined ? undefined : conversationStoreOf(driver);
  if (conversations === undefined) throw new ConfigError("importTranscript: driver must be the openai() driver the agent was created with");
  const threadStore = o.threadStore ?? (link?.threadStore as TranscriptImportThreadStore | undefined);
  if (threadStore === undefined) throw new ConfigError("importTranscript: pass the agent's threadStore (this agent was not made by createAgent)");
  return { driver: conversations, threadStore };
}

/** The first message the model reads: where the conversation came from, and what was left out. */
function importNotice(label: string, droppedMessages: number): string {
  const dropped = droppedMessages > 0 ? ` Its ${droppedMessages} oldest messages were left out to keep the import within its size limit.` : "";
  return `[This conversation was imported from a recorded ${label} session. Its tool calls name ${label}'s tools, which may differ from the tools you have now.${dropped}]`;
}

function conversationOf(turns: readonly ImportedTurn[], notice: string): ConversationFile {
  const now = new Date().toISOString();
  const id = newSessionId();
  const stored: ConversationTurn[] = turns.map((t, index) => ({
    runId: `imported-${index + 1}`,
    startedAt: t.startedAt !== undefined && !Number.isNaN(Date.parse(t.startedAt)) ? new Date(t.startedAt).toISOString() : now,
    ...(t.model !== undefined ? { model: t.model } : {}),
    messages: index === 0 ? [{ role: "user", content: [{ type: "text", text: notice }], origin: "summary" }, ...t.messages] : t.messages,
    ended: "completed",
  }));
  return { version: 1, id, createdAt: now, updatedAt: now, turns: stored };
}

/**
 * Imports a recorded Codex or Claude Code session as the start of a new thread of `agent`, an
 * agent created over the `openai()` driver. The transcript's user and assistant messages,
 * reasoning summaries, tool calls and results become the thread's stored conversation (in the
 * thread store's provider state, so any host sharing the store continues it); its first run sends
 * them before its prompt. Images are kept when inline base64 within the driver's limits, otherwise the model reads a short placeholder. The conversation is
 * bounded (`maxChars`, oldest turns left out, the model told so) and redacted like every stored
 * conversation (the driver's secrets and secret-shaped tokens). A line that cannot be read is
 * skipped and counted.
 *
 * Throws `ConfigError` for invalid options (an unknown format), an agent of another driver or a
 * store that is not the agent's; `InputError` for a file that cannot be read
 * (`input_materialization_failed`), is over `maxBytes` (`input_too_large`) or holds no
 * conversation (`input_invalid`). Errors name the file by its basename only.
 *
 * @example
 * ```ts
 * const store = sqliteThreadStore("threads.db");
 * const driver = openai({ baseURL: "http://127.0.0.1:8080/v1", model: "qwen3-coder" });
 * const agent = createAgent(driver, { workspace: "/repo", threadStore: store });
 * const { thread } = await importTranscript(agent, { format: "codex", file: rolloutPath });
 * await thread.run("Continue where we left off");
 * ```
 */
export async function importTranscript<T extends { readonly id: string }>(agent: TranscriptImportAgent<T>, options: ImportTranscriptOptions): Promise<ImportedTranscript<T>> {
  const o = parseOrThrow(optionsSchema, options, "importTranscript: ");
  if (agent?.driver?.id !== "openai") throw new ConfigError("importTranscript: the agent must be created over the openai() driver");
  const { driver, threadStore } = agentParts(agent, o);
  const format = FORMATS[o.format];

  const { entries, skipped } = await readTranscript(o.file, o.maxBytes ?? DEFAULT_IMPORT_MAX_BYTES);
  const builder = new TranscriptBuilder();
  const media = new ImportedMedia();
  const unreadable = format.read(entries, { builder, media });
  const { turns, droppedMessages } = boundTurns(builder.turns(), o.maxChars ?? DEFAULT_IMPORT_MAX_CHARS);
  const messages = turns.reduce((n, t) => n + t.messages.length, 0);
  if (messages === 0) throw new InputError("input_invalid", `transcript ${basename(o.file)}: no ${format.label} conversation in it`);

  const file = conversationOf(turns, importNotice(format.label, droppedMessages));
  const threadOptions = { ...(o.threadId !== undefined ? { id: o.threadId } : {}), ...(o.metadata !== undefined ? { metadata: o.metadata } : {}) };
  let thread: T;
  if (keepsProviderState(threadStore)) {
    const document: ThreadConversationsDocument = { kind: "openai.conversations", version: 1, current: file.id, conversations: [boundedConversation(file, driver.redactor)] };
    thread = await startImportedThread(agent, threadStore, file.id, threadOptions, JSON.stringify(document));
  } else {
    await driver.save(file);
    try {
      thread = await startImportedThread(agent, threadStore, file.id, threadOptions);
    } catch (error) {
      await driver.remove(file.id).catch(() => undefined);
      throw error;
    }
  }
  return { thread, providerSessionId: file.id, turns: turns.length, messages, droppedMessages, skippedLines: skipped + unreadable, media: { ...media.counts } };
}
