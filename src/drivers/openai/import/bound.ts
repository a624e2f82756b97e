/**
 * The import's size limit: the imported conversation keeps at most `maxChars` characters of text
 * (prompts, answers, reasoning, tool arguments and results as the store keeps them; media bytes
 * are bounded per part by the store instead). The oldest turns go first, whole; when the newest
 * turn alone is over the limit, its oldest messages go too.
 */
import type { ConversationMessage } from "../conversation.js";
import { STORED_TOOL_OUTPUT_MAX } from "../conversation-store.js";
import type { ImportedTurn } from "./builder.js";

/** The default `maxChars`: about 250k tokens of text, more than most context windows hold. */
export const DEFAULT_IMPORT_MAX_CHARS = 1_000_000;

export function messageChars(message: ConversationMessage): number {
  switch (message.role) {
    case "user":
      return message.content.reduce((n, part) => n + (part.type === "text" ? part.text.length : 0), 0);
    case "assistant":
      return message.text.length + (message.reasoning?.length ?? 0) + message.toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
    case "tool":
      return Math.min(message.output.length, STORED_TOOL_OUTPUT_MAX);
  }
}

export interface BoundedTurns {
  turns: ImportedTurn[];
  /** Messages left out, oldest first. */
  droppedMessages: number;
}

export function boundTurns(turns: readonly ImportedTurn[], maxChars: number): BoundedTurns {
  const kept = turns.map((t) => ({ ...t, messages: [...t.messages] }));
  let total = kept.reduce((n, t) => n + t.messages.reduce((m, message) => m + messageChars(message), 0), 0);
  let droppedMessages = 0;
  while (total > maxChars && kept.length > 1) {
    const turn = kept.shift()!;
    droppedMessages += turn.messages.length;
    total -= turn.messages.reduce((m, message) => m + messageChars(message), 0);
  }
  const last = kept.length === 1 ? kept[0] : undefined;
  if (last !== undefined && total > maxChars) {
    const dropFirst = () => {
      total -= messageChars(last.messages.shift()!);
      droppedMessages++;
    };
    while (last.messages.length > 1 && total > maxChars) dropFirst();
    // A result whose call was dropped goes with it.
    while (last.messages.length > 1 && last.messages[0]!.role === "tool") dropFirst();
  }
  return { turns: kept, droppedMessages };
}
