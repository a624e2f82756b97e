/**
 * Quiet stops (issue #14): once a run is stopping (a `break`, an abort, a cancel), the consumer
 * receives no further deltas, no new items and no other news — only the closing events of items
 * it already saw open, then the one terminal. The gate follows every event that passes it, so it
 * knows which items are open; the checked sink and the run stream's iterator each keep one.
 */

/** The fields of an event the gate reads: a stamped event and a driver's event both fit. */
interface GatedEvent {
  type: string;
  itemId?: string;
  callId?: string;
  requestId?: string;
}

type KeyField = "itemId" | "callId" | "requestId";

/** Event types that open an item: the prefix of its key (kinds share no key space) and its id field. */
const OPENS: Readonly<Record<string, readonly [string, KeyField]>> = {
  "tool.started": ["t:", "callId"],
  "approval.requested": ["a:", "requestId"],
  "question.requested": ["q:", "requestId"],
};

/** Event types that close an item: the prefix of its key and its id field. */
const CLOSES: Readonly<Record<string, readonly [string, KeyField]>> = {
  "message.completed": ["m:", "itemId"],
  "reasoning.completed": ["r:", "itemId"],
  "tool.completed": ["t:", "callId"],
  "approval.resolved": ["a:", "requestId"],
  "question.resolved": ["q:", "requestId"],
};

const TERMINALS: ReadonlySet<string> = new Set(["run.completed", "run.failed", "run.cancelled"]);

export class StopGate {
  /** Keys of the items opened and not yet closed. */
  readonly #open = new Set<string>();
  /** The item the last delta belonged to: a run of deltas costs one set insertion. */
  #lastDeltaType: string | undefined;
  #lastDeltaItem: string | undefined;

  /**
   * Whether `event` may pass. Before the stop every event passes (and is followed); after it only
   * closings of open items and terminals do.
   */
  admit(event: GatedEvent, stopping: boolean): boolean {
    const type = event.type;
    if (type === "message.delta" || type === "reasoning.delta") {
      if (stopping) return false;
      if (event.itemId !== this.#lastDeltaItem || type !== this.#lastDeltaType) {
        this.#lastDeltaType = type;
        this.#lastDeltaItem = event.itemId;
        this.#open.add((type === "message.delta" ? "m:" : "r:") + event.itemId);
      }
      return true;
    }
    const closes = CLOSES[type];
    if (closes !== undefined) {
      const key = closes[0] + (event[closes[1]] ?? "");
      const wasOpen = this.#open.delete(key);
      // The next delta re-opens its item, even one of the same id.
      this.#lastDeltaItem = undefined;
      return !stopping || wasOpen;
    }
    if (TERMINALS.has(type)) return true;
    if (stopping) return false;
    const opens = OPENS[type];
    if (opens !== undefined) this.#open.add(opens[0] + (event[opens[1]] ?? ""));
    return true;
  }
}
