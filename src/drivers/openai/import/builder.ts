/**
 * Builds the driver's conversation from a recorded session, one transcript entry at a time: both
 * formats feed it the same calls (a user prompt, assistant text, reasoning, a tool call, a tool
 * result), so the shape of a turn is decided once. A turn starts at each user prompt; an
 * assistant message gathers its text, reasoning and tool calls until a tool result or the next
 * prompt ends it.
 */
import type { ContentPart, ConversationMessage, ToolCallRecord } from "../conversation.js";

/** One turn of the imported conversation: a user prompt and everything said until the next one. */
export interface ImportedTurn {
  startedAt?: string;
  model?: string;
  messages: ConversationMessage[];
}

type AssistantMessage = Extract<ConversationMessage, { role: "assistant" }>;

export class TranscriptBuilder {
  readonly #turns: ImportedTurn[] = [];
  #assistant: AssistantMessage | undefined;
  /** The provider's id of the message being gathered (Claude Code writes one line per content block). */
  #assistantId: string | undefined;
  /** Tool names by call id: a result names its tool. */
  readonly #calls = new Map<string, string>();
  #model: string | undefined;

  /** The model the recorded session used from here on (the running turn's too: Claude Code names it on the answer). */
  model(name: string): void {
    if (name === "") return;
    this.#model = name;
    const turn = this.#turns.at(-1);
    if (turn !== undefined) turn.model = name;
  }

  /**
   * A user message that starts a turn; one right after another prompt (nothing answered between,
   * like Claude Code's slash command and its output) joins that turn.
   */
  prompt(content: ContentPart[], at?: string): void {
    this.#flush();
    const last = this.#turns.at(-1);
    if (last !== undefined && last.messages.length > 0 && last.messages.every((m) => m.role === "user" && m.origin === "prompt")) {
      last.messages.push({ role: "user", content, origin: "prompt" });
      return;
    }
    const turn: ImportedTurn = { messages: [{ role: "user", content, origin: "prompt" }] };
    if (at !== undefined) turn.startedAt = at;
    if (this.#model !== undefined) turn.model = this.#model;
    this.#turns.push(turn);
  }

  /** A user message within the running turn (text the user added beside tool results). */
  note(content: ContentPart[]): void {
    this.#flush();
    this.#current().messages.push({ role: "user", content, origin: "steer" });
  }

  /**
   * A compaction in the recorded session replaced the conversation before it (with a summary,
   * or a shorter history that follows): what came before is gone there, so it is dropped here.
   */
  reset(): void {
    this.#flush();
    this.#turns.length = 0;
    this.#calls.clear();
  }

  /** A summary of earlier conversation, written by the recorded session's compaction. */
  summary(text: string, at?: string): void {
    this.#flush();
    const turn: ImportedTurn = { messages: [{ role: "user", content: [{ type: "text", text }], origin: "summary" }] };
    if (at !== undefined) turn.startedAt = at;
    if (this.#model !== undefined) turn.model = this.#model;
    this.#turns.push(turn);
  }

  /** Assistant text; `messageId` joins the pieces of one provider message. */
  text(text: string, messageId?: string): void {
    if (text === "") return;
    const message = this.#open(messageId, "text");
    message.text = message.text === "" ? text : `${message.text}\n\n${text}`;
  }

  reasoning(text: string, messageId?: string): void {
    if (text === "") return;
    const message = this.#open(messageId, "reasoning");
    message.reasoning = message.reasoning === undefined ? text : `${message.reasoning}\n\n${text}`;
  }

  toolCall(call: ToolCallRecord, messageId?: string): void {
    this.#open(messageId, "call").toolCalls.push(call);
    this.#calls.set(call.id, call.name);
  }

  /** A tool's result; one whose call was never seen (or was dropped with a compaction) is left out. */
  toolResult(callId: string, output: string, isError: boolean): void {
    const name = this.#calls.get(callId);
    if (name === undefined) return;
    this.#flush();
    this.#current().messages.push({ role: "tool", callId, name, output, isError });
  }

  /** The turns so far, the last assistant message included. */
  turns(): ImportedTurn[] {
    this.#flush();
    return this.#turns.filter((t) => t.messages.length > 0);
  }

  #current(): ImportedTurn {
    let turn = this.#turns.at(-1);
    if (turn === undefined) {
      turn = { messages: [], ...(this.#model !== undefined ? { model: this.#model } : {}) };
      this.#turns.push(turn);
    }
    return turn;
  }

  /**
   * The assistant message to add to. A new one starts for another provider message id, and for
   * text or reasoning after tool calls (the calls' results come first in the conversation).
   */
  #open(messageId: string | undefined, kind: "text" | "reasoning" | "call"): AssistantMessage {
    const open = this.#assistant;
    const sameMessage = messageId === undefined || messageId === this.#assistantId;
    if (open !== undefined && sameMessage && (kind === "call" || open.toolCalls.length === 0)) return open;
    this.#flush();
    const message: AssistantMessage = { role: "assistant", text: "", toolCalls: [], ...(this.#model !== undefined ? { model: this.#model } : {}) };
    this.#assistant = message;
    this.#assistantId = messageId;
    return message;
  }

  #flush(): void {
    if (this.#assistant === undefined) return;
    this.#current().messages.push(this.#assistant);
    this.#assistant = undefined;
    this.#assistantId = undefined;
  }
}
