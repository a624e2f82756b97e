/**
 * Codex rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, as written by Codex
 * 0.171): one `{ timestamp, type, payload }` line per item. The conversation is in the
 * `response_item` lines (Responses API items: messages, reasoning, function and custom tool calls
 * and their outputs); `turn_context` names the model; a `compacted` line replaces what came
 * before. `session_meta`, `event_msg` (UI events repeating the items), `world_state` and usage
 * lines carry no conversation.
 */
import { z } from "zod";
import type { ContentPart } from "../conversation.js";
import type { ReadContext, TranscriptFormat } from "./format.js";

const line = z.object({ type: z.string(), timestamp: z.string().optional(), payload: z.unknown() });

const contentItem = z.object({ type: z.string(), text: z.string().optional(), image_url: z.string().optional() });

const message = z.object({
  type: z.literal("message"),
  role: z.string(),
  content: z.array(contentItem),
  internal_chat_message_metadata_passthrough: z
    .object({
      content_item_kinds: z.array(z.string()).optional(),
      content_item_metadata: z.array(z.object({ provenance: z.object({ type: z.string().optional() }).optional() })).optional(),
    })
    .optional(),
});
const reasoning = z.object({ type: z.literal("reasoning"), summary: z.array(z.object({ text: z.string() })) });
const functionCall = z.object({ type: z.literal("function_call"), name: z.string(), arguments: z.string(), call_id: z.string() });
const customCall = z.object({ type: z.literal("custom_tool_call"), name: z.string(), input: z.string(), call_id: z.string() });
const localShellCall = z.object({ type: z.literal("local_shell_call"), call_id: z.string(), action: z.unknown() });
const output = z.union([z.string(), z.array(contentItem)]);
const callOutput = z.object({ type: z.enum(["function_call_output", "custom_tool_call_output"]), call_id: z.string(), output });

const turnContext = z.object({ model: z.string() });
const compacted = z.object({ message: z.string(), replacement_history: z.array(z.unknown()).optional() });

/**
 * User-role messages Codex writes itself (environment, AGENTS.md, skills): marked by their
 * provenance in 0.171; earlier rollouts have no provenance, only these openings.
 */
const HARNESS_OPENINGS = ["<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<turn_aborted>", "<skills_instructions>"];

/** The summary in a compaction's replacement history: written by the harness, read by the model. */
function isCompactionSummary(item: z.infer<typeof message>): boolean {
  return item.internal_chat_message_metadata_passthrough?.content_item_kinds?.includes("compaction.summary") === true;
}

function isHarness(item: z.infer<typeof message>): boolean {
  const provenance = item.internal_chat_message_metadata_passthrough?.content_item_metadata?.map((m) => m.provenance?.type);
  if (provenance !== undefined && provenance.length > 0) return provenance.some((type) => type !== undefined && type !== "user");
  const first = item.content[0]?.text?.trimStart() ?? "";
  return HARNESS_OPENINGS.some((opening) => first.startsWith(opening));
}

function userContent(items: z.infer<typeof contentItem>[], context: ReadContext): ContentPart[] {
  const parts: ContentPart[] = [];
  for (const item of items) {
    if (item.type === "input_text" && item.text !== undefined) parts.push({ type: "text", text: item.text });
    else if (item.type === "input_image") parts.push(item.image_url !== undefined ? context.media.imageUrl(item.image_url) : context.media.placeholder("an image by file id"));
    else if (item.type === "input_audio") parts.push(context.media.placeholder("an audio clip"));
  }
  return parts;
}

/** A tool output as the text the model reads: content items joined, images as placeholders. */
function outputText(value: z.infer<typeof output>, context: ReadContext): string {
  if (typeof value === "string") return value;
  return value
    .map((item) => (item.type === "input_text" ? (item.text ?? "") : item.type === "input_image" ? context.media.replaced("an image in a tool result") : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/** One Responses API item; false when its shape is not one this reader knows for its type. */
function readItem(item: unknown, at: string | undefined, context: ReadContext): boolean {
  const { builder } = context;
  const type = typeof item === "object" && item !== null ? (item as { type?: unknown }).type : undefined;
  switch (type) {
    case "message": {
      const parsed = message.safeParse(item);
      if (!parsed.success) return false;
      const m = parsed.data;
      if (m.role === "assistant") {
        builder.text(m.content.map((c) => (c.type === "output_text" ? (c.text ?? "") : "")).join(""));
      } else if (m.role === "user" && isCompactionSummary(m)) {
        builder.summary(m.content.map((c) => c.text ?? "").join("\n"), at);
      } else if (m.role === "user" && !isHarness(m)) {
        const content = userContent(m.content, context);
        if (content.length > 0) builder.prompt(content, at);
      }
      // developer and system messages are Codex's own instructions: the driver has its own.
      return true;
    }
    case "reasoning": {
      const parsed = reasoning.safeParse(item);
      if (!parsed.success) return false;
      builder.reasoning(parsed.data.summary.map((s) => s.text).join("\n\n"));
      return true;
    }
    case "function_call": {
      const parsed = functionCall.safeParse(item);
      if (!parsed.success) return false;
      builder.toolCall({ id: parsed.data.call_id, name: parsed.data.name, arguments: parsed.data.arguments });
      return true;
    }
    case "custom_tool_call": {
      // A freeform tool (apply_patch): its input is raw text, carried as a JSON argument.
      const parsed = customCall.safeParse(item);
      if (!parsed.success) return false;
      builder.toolCall({ id: parsed.data.call_id, name: parsed.data.name, arguments: JSON.stringify({ input: parsed.data.input }) });
      return true;
    }
    case "local_shell_call": {
      const parsed = localShellCall.safeParse(item);
      if (!parsed.success) return false;
      builder.toolCall({ id: parsed.data.call_id, name: "local_shell", arguments: JSON.stringify(parsed.data.action ?? {}) });
      return true;
    }
    case "function_call_output":
    case "custom_tool_call_output": {
      const parsed = callOutput.safeParse(item);
      if (!parsed.success) return false;
      builder.toolResult(parsed.data.call_id, outputText(parsed.data.output, context), false);
      return true;
    }
    default:
      // Web searches, image generation, encrypted compactions: nothing the driver can replay.
      return typeof type === "string";
  }
}

export const codexFormat: TranscriptFormat = {
  label: "Codex",
  read(entries, context) {
    let unreadable = 0;
    for (const entry of entries) {
      const parsed = line.safeParse(entry);
      if (!parsed.success) {
        unreadable++;
        continue;
      }
      const { type, timestamp, payload } = parsed.data;
      if (type === "response_item") {
        if (!readItem(payload, timestamp, context)) unreadable++;
      } else if (type === "turn_context") {
        const context_ = turnContext.safeParse(payload);
        if (context_.success) context.builder.model(context_.data.model);
      } else if (type === "compacted") {
        const summary = compacted.safeParse(payload);
        if (!summary.success) {
          unreadable++;
          continue;
        }
        context.builder.reset();
        const history = summary.data.replacement_history;
        // The shorter history Codex continued with; without one, its summary.
        if (history !== undefined) for (const item of history) readItem(item, timestamp, context);
        else context.builder.summary(summary.data.message, timestamp);
      }
    }
    return unreadable;
  },
};
