/** Text and reasoning items as the AI SDK's `*-start` / `*-delta` / `*-end` parts. */
import type { AgentUIMessageChunk } from "./chunks.js";

type Family = "text" | "reasoning";

/** The open parts of one family: item id → the text sent so far. */
export class TextParts {
  readonly #open = new Map<string, string>();
  constructor(readonly family: Family) {}

  delta(itemId: string, text: string): AgentUIMessageChunk[] {
    const out: AgentUIMessageChunk[] = [];
    const sent = this.#open.get(itemId);
    if (sent === undefined) out.push(this.#chunk("start", itemId));
    this.#open.set(itemId, (sent ?? "") + text);
    if (text !== "") out.push(this.#deltaChunk(itemId, text));
    return out;
  }

  /** The item's final text: whatever the deltas did not send yet is sent, then the part ends. */
  complete(itemId: string, text: string): AgentUIMessageChunk[] {
    const sent = this.#open.get(itemId);
    const out: AgentUIMessageChunk[] = [];
    if (sent === undefined) {
      out.push(this.#chunk("start", itemId));
      if (text !== "") out.push(this.#deltaChunk(itemId, text));
    } else if (text.length > sent.length && text.startsWith(sent)) {
      out.push(this.#deltaChunk(itemId, text.slice(sent.length)));
    }
    // A final text that rewrites the streamed one is not replayed: the part keeps what streamed.
    this.#open.delete(itemId);
    out.push(this.#chunk("end", itemId));
    return out;
  }

  /** End every open part (the run ended without completing them). */
  closeAll(): AgentUIMessageChunk[] {
    const out = [...this.#open.keys()].map((itemId) => this.#chunk("end", itemId));
    this.#open.clear();
    return out;
  }

  #chunk(edge: "start" | "end", id: string): AgentUIMessageChunk {
    return { type: `${this.family}-${edge}`, id } as AgentUIMessageChunk;
  }

  #deltaChunk(id: string, delta: string): AgentUIMessageChunk {
    return { type: `${this.family}-delta`, id, delta } as AgentUIMessageChunk;
  }
}
