/**
 * The conversation as the loop keeps it, independent of the wire API: user messages (text and
 * media parts), assistant messages (text, reasoning, tool calls, the model that wrote them) and
 * tool results. Each API's encoder turns it into its own request shape, so a thread recorded over
 * one model continues on another.
 */

export type ContentPart =
  | { type: "text"; text: string }
  /** Base64 bytes; `omitted` when the stored transcript dropped them (too large to keep). */
  | { type: "image"; mediaType: string; data: string; omitted?: number }
  | { type: "file"; mediaType: string; name: string; data: string; omitted?: number }
  | { type: "audio"; format: "wav" | "mp3"; data: string; omitted?: number };

export interface ToolCallRecord {
  /** The model's call id. */
  id: string;
  name: string;
  /** The argument text as the model streamed it. */
  arguments: string;
}

export type ConversationMessage =
  | { role: "user"; content: ContentPart[]; origin?: "prompt" | "steer" | "follow_up" | "summary" }
  | { role: "assistant"; text: string; reasoning?: string; toolCalls: ToolCallRecord[]; model?: string }
  | {
      role: "tool";
      callId: string;
      name: string;
      output: string;
      isError: boolean;
      /** In memory only: what the store keeps instead of `output` (the tool's `published` copy, see tools/types.ts). */
      published?: string;
    };

/** Token counts of one turn, each over all of its model requests. */
export interface TurnTokens {
  input?: number;
  output?: number;
  total?: number;
  cached?: number;
  reasoning?: number;
  cost?: number;
}

/** One turn (one run) of a conversation. */
export interface ConversationTurn {
  runId: string;
  startedAt: string;
  model?: string;
  effort?: string;
  /** Set when this turn's model differs from the previous turn's: a model switch. */
  modelSwitch?: { from?: string; to?: string };
  messages: ConversationMessage[];
  /** The turn's token usage (over its model requests), for the conversation's running totals. */
  usage?: TurnTokens;
  /** Set when the turn did not complete (failed or cancelled): what was said is kept all the same. */
  ended?: "completed" | "failed" | "cancelled";
  /**
   * Set on the turn a compaction put in place of earlier turns: the runs it summarizes, the run
   * during which it was made, and the stored conversation holding them as they were (the
   * transcript before the compaction).
   */
  summary?: { runIds: string[]; duringRunId: string; transcriptId: string };
}

/** A stored conversation: the transcript of one provider session. */
export interface ConversationFile {
  version: 1;
  id: string;
  createdAt: string;
  updatedAt: string;
  /** The conversation it was forked from, when it was. */
  forkedFrom?: string;
  /** Set on the transcript a compaction kept: the conversation it was compacted in. */
  transcriptOf?: string;
  /** The conversation it is a rewound copy of (that one keeps the dropped turns). */
  rewoundFrom?: string;
  /** The title generated after the first turn (`title: true` in the config). */
  title?: string;
  /**
   * Compactions by the context guard, oldest first: each replaced the turns before `beforeTurn`
   * (0-based, at the time) with a summary; `transcriptId` names the conversation file holding the
   * whole transcript as it was before.
   */
  compactions?: { at: string; beforeTurn: number; transcriptId: string }[];
  turns: ConversationTurn[];
}

/** A conversation without the turns of `dropRunIds` and every turn after the first of them. */
export function withoutRuns(turns: readonly ConversationTurn[], dropRunIds: readonly string[]): ConversationTurn[] {
  const drop = new Set(dropRunIds);
  const first = turns.findIndex((t) => drop.has(t.runId));
  return first < 0 ? [...turns] : turns.slice(0, first);
}

/** Every message of every turn, in order: what the next request replays. */
export function historyOf(turns: readonly ConversationTurn[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const turn of turns) out.push(...turn.messages);
  return repairedHistory(out);
}

/**
 * A history every API accepts: an assistant tool call without its result (a turn cancelled
 * between the two) gets a result saying so, and a result without its call is dropped.
 */
export function repairedHistory(messages: readonly ConversationMessage[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  let pending: Map<string, string> = new Map();
  const closePending = () => {
    for (const [callId, name] of pending) out.push({ role: "tool", callId, name, output: "The call was interrupted before it finished.", isError: true });
    pending = new Map();
  };
  for (const message of messages) {
    if (message.role === "tool") {
      if (!pending.has(message.callId)) continue;
      pending.delete(message.callId);
      out.push(message);
      continue;
    }
    closePending();
    out.push(message);
    if (message.role === "assistant") for (const call of message.toolCalls) pending.set(call.id, call.name);
  }
  closePending();
  return out;
}
