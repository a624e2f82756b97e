/**
 * The handoff summary: when a provider reports that a thread's saved conversation is gone, the
 * session continues on a fresh thread whose first prompt carries what the old one said, built
 * from the old thread's stored history (its prompts and final answers, newest turns kept).
 */
import type { Thread } from "../agent/thread.js";
import type { HistoryTurn } from "../thread/store.js";

/** Turns of the old thread the summary quotes at most. */
const SUMMARY_TURNS = 10;
/** Characters of one prompt or answer the summary quotes at most. */
const QUOTE_CHARS = 2_000;

function quote(text: string): string {
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)} […]` : text;
}

function finalAnswer(turn: HistoryTurn): string | undefined {
  for (let i = turn.events.length - 1; i >= 0; i--) {
    const event = turn.events[i]!;
    if (event.type === "message.completed") return event.text;
  }
  return undefined;
}

/**
 * The summary of `thread`'s last turns, oldest first; undefined when it has no history (or the
 * store keeps none): the fresh thread then starts with the prompt alone.
 */
export async function handoffSummary(thread: Thread): Promise<string | undefined> {
  const page = await thread.history({ limit: SUMMARY_TURNS }).catch(() => undefined);
  const turns = (page?.turns ?? []).filter((turn) => turn.rewoundTo === undefined).reverse();
  if (turns.length === 0) return undefined;
  const lines = ["[This conversation continues an earlier one whose saved state the provider no longer has. The earlier turns, oldest first:]"];
  for (const turn of turns) {
    lines.push(`User: ${quote(turn.prompt)}`);
    const answer = finalAnswer(turn);
    lines.push(answer === undefined ? `(that turn ended ${turn.status}, without an answer)` : `Assistant: ${quote(answer)}`);
  }
  lines.push("[End of the earlier turns. The new message follows.]");
  return lines.join("\n");
}
