/**
 * Claude Code transcripts (`~/.claude/projects/<dir>/<session>.jsonl`, as written by Claude Code
 * 2.1): one entry per line, the conversation in `user` and `assistant` entries holding Anthropic
 * Messages content (text, image, thinking, tool_use and tool_result blocks). The file is a tree:
 * each entry names its `parentUuid`, and an edited or rewound prompt leaves the abandoned branch
 * in the file, so the conversation is the chain from the last message back to its root (a
 * compaction starts a new root, after which its summary follows). Claude Code writes one
 * assistant entry per content block; entries of one message share `message.id`. Harness entries
 * (`isMeta`), subagent entries (`isSidechain`) and attachments, snapshots and request records
 * carry no conversation of their own.
 */
import { z } from "zod";
import type { ContentPart } from "../conversation.js";
import type { ReadContext, TranscriptFormat } from "./format.js";

const entry = z.object({
  type: z.string(),
  uuid: z.string().optional(),
  parentUuid: z.string().nullable().optional(),
  isSidechain: z.boolean().optional(),
  isMeta: z.boolean().optional(),
  isCompactSummary: z.boolean().optional(),
  timestamp: z.string().optional(),
  message: z.unknown().optional(),
});
type Entry = z.infer<typeof entry>;

const source = z.object({ type: z.string(), media_type: z.string().optional(), data: z.string().optional() });
const block = z.object({
  type: z.string(),
  text: z.string().optional(),
  thinking: z.string().optional(),
  source: source.optional(),
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
  tool_use_id: z.string().optional(),
  is_error: z.boolean().optional(),
  content: z.unknown().optional(),
});
type Block = z.infer<typeof block>;

const userMessage = z.object({ content: z.union([z.string(), z.array(block)]) });
const assistantMessage = z.object({ id: z.string().optional(), model: z.string().optional(), content: z.array(block) });
const resultContent = z.union([z.string(), z.array(block)]);

/** The model Claude Code names on messages it made up itself (an API error shown as a reply). */
const SYNTHETIC_MODEL = "<synthetic>";

const isMessage = (e: Entry): boolean => (e.type === "user" || e.type === "assistant") && e.isSidechain !== true;

/**
 * The entries of the conversation in order: the chain from the last message back to its root.
 * Where the chain breaks at an entry that is not in the file (a line that was skipped), every
 * message written before that point is taken instead.
 */
function conversationChain(entries: readonly Entry[]): Entry[] {
  const byId = new Map<string, number>();
  entries.forEach((e, index) => e.uuid !== undefined && byId.set(e.uuid, index));
  let index = entries.findLastIndex(isMessage);
  const chain: number[] = [];
  const seen = new Set<number>();
  while (index >= 0 && !seen.has(index)) {
    seen.add(index);
    chain.push(index);
    const parent = entries[index]!.parentUuid;
    if (parent === null || parent === undefined) break;
    const next = byId.get(parent);
    if (next === undefined) {
      for (let i = index - 1; i >= 0; i--) chain.push(i);
      break;
    }
    index = next;
  }
  return chain.reverse().map((i) => entries[i]!).filter(isMessage);
}

function userPart(b: Block, context: ReadContext): ContentPart | undefined {
  if (b.type === "text") return b.text !== undefined ? { type: "text", text: b.text } : undefined;
  if (b.type === "image") {
    const s = b.source;
    if (s?.type === "base64" && s.media_type !== undefined && s.data !== undefined) return context.media.image(s.media_type, s.data);
    return context.media.placeholder("an image by reference (not inline)");
  }
  if (b.type === "document") return context.media.placeholder("a document");
  return undefined;
}

/** A tool result as the text the model reads: text blocks joined, images as placeholders. */
function resultText(content: unknown, context: ReadContext): string {
  const parsed = resultContent.safeParse(content ?? "");
  if (!parsed.success) return "";
  if (typeof parsed.data === "string") return parsed.data;
  return parsed.data
    .map((b) => (b.type === "text" ? (b.text ?? "") : b.type === "image" ? context.media.replaced("an image in a tool result") : ""))
    .filter((text) => text !== "")
    .join("\n");
}

function readUser(e: Entry, context: ReadContext): boolean {
  const parsed = userMessage.safeParse(e.message);
  if (!parsed.success) return false;
  const { builder } = context;
  const content = parsed.data.content;
  if (typeof content === "string") {
    if (e.isCompactSummary === true) builder.summary(content, e.timestamp);
    else builder.prompt([{ type: "text", text: content }], e.timestamp);
    return true;
  }
  let results = 0;
  const parts: ContentPart[] = [];
  for (const b of content) {
    if (b.type === "tool_result" && b.tool_use_id !== undefined) {
      results++;
      builder.toolResult(b.tool_use_id, resultText(b.content, context), b.is_error === true);
      continue;
    }
    const part = userPart(b, context);
    if (part !== undefined) parts.push(part);
  }
  if (parts.length === 0) return true;
  if (e.isCompactSummary === true) builder.summary(parts.map((p) => (p.type === "text" ? p.text : "")).join("\n"), e.timestamp);
  // Text beside tool results (an interruption note) continues the turn; on its own it starts one.
  else if (results > 0) builder.note(parts);
  else builder.prompt(parts, e.timestamp);
  return true;
}

function readAssistant(e: Entry, context: ReadContext): boolean {
  const parsed = assistantMessage.safeParse(e.message);
  if (!parsed.success) return false;
  const { builder } = context;
  const { id, model, content } = parsed.data;
  if (model !== undefined && model !== SYNTHETIC_MODEL) builder.model(model);
  for (const b of content) {
    if (b.type === "text" && b.text !== undefined) builder.text(b.text, id);
    else if (b.type === "thinking" && b.thinking !== undefined) builder.reasoning(b.thinking, id);
    else if (b.type === "tool_use" && b.id !== undefined && b.name !== undefined) builder.toolCall({ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }, id);
    // redacted_thinking and server tool blocks carry nothing the driver can replay.
  }
  return true;
}

export const claudeFormat: TranscriptFormat = {
  label: "Claude Code",
  read(entries, context) {
    let unreadable = 0;
    const readable: Entry[] = [];
    for (const raw of entries) {
      const parsed = entry.safeParse(raw);
      if (parsed.success) readable.push(parsed.data);
      else unreadable++;
    }
    for (const e of conversationChain(readable)) {
      // Harness text (caveats, the path an image was saved under, loaded skills).
      if (e.isMeta === true) continue;
      const ok = e.type === "user" ? readUser(e, context) : readAssistant(e, context);
      if (!ok) unreadable++;
    }
    return unreadable;
  },
};
