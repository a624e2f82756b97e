/**
 * Bounded event queue between a run's producer (the driver) and its consumer (the host).
 * `block` pauses the producer while the queue is full; `drop-deltas` first coalesces a
 * `*.delta` event into a queued delta of the same type and item, and blocks only when it
 * cannot. No non-delta event is ever dropped, so memory stays flat with a slow consumer.
 */
import { TextAccumulator } from "./text-accumulator.js";
import type { AgentEvent } from "./types.js";

export type OverflowPolicy = "block" | "drop-deltas";

export type DeltaEvent = Extract<AgentEvent, { type: "message.delta" | "reasoning.delta" }>;

export function isDeltaEvent(event: AgentEvent): event is DeltaEvent {
  return event.type === "message.delta" || event.type === "reasoning.delta";
}

export class EventBuffer {
  /** Infinite once the run stops (see {@link EventBuffer.release}). */
  #capacity: number;
  readonly #policy: OverflowPolicy;
  #items: AgentEvent[] = [];
  #head = 0;
  #closed = false;
  #waitingConsumer: (() => void) | undefined;
  /** The waiting consumer drops every event (`run()`): it is woken only once the queue fills or closes. */
  #consumerWaitsForFill = false;
  #waitingProducers: (() => void)[] = [];
  /** The queued tail delta other deltas are being merged into, with its merged text. */
  #merging: { event: DeltaEvent; text: TextAccumulator } | undefined;

  constructor(capacity: number, policy: OverflowPolicy) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError("event buffer size must be a positive integer");
    this.#capacity = capacity;
    this.#policy = policy;
  }

  get size(): number {
    return this.#items.length - this.#head;
  }

  /**
   * Offer an event. Returns `true` when it was queued as a new entry, `false` when it was
   * coalesced into a queued delta (the caller then must not count it as a new event).
   */
  async push(event: AgentEvent): Promise<boolean> {
    while (this.size >= this.#capacity && !this.#closed) {
      if (this.#policy === "drop-deltas" && isDeltaEvent(event)) {
        const tail = this.#findCoalescable(event);
        if (tail) {
          if (this.#merging?.event !== tail) this.#merging = { event: tail, text: new TextAccumulator(tail.text) };
          this.#merging.text.append(event.text);
          return false;
        }
      }
      await new Promise<void>((resolve) => this.#waitingProducers.push(resolve));
    }
    if (this.#closed) return true;
    this.#settleMerge();
    this.#items.push(event);
    this.#wakeConsumer();
    return true;
  }

  /** Queue now if there is room (the hot path: no promise); `false` means call `push`. */
  tryPush(event: AgentEvent): boolean {
    if (this.#closed) return true;
    if (this.size >= this.#capacity) return false;
    this.#settleMerge();
    this.#items.push(event);
    this.#wakeConsumer();
    return true;
  }

  /** Next event without waiting, if one is queued. */
  tryShift(): AgentEvent | undefined {
    if (this.size === 0) return undefined;
    const event = this.#items[this.#head]!;
    if (this.#merging?.event === event) this.#settleMerge();
    this.#items[this.#head] = undefined as unknown as AgentEvent;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    this.#wakeProducer();
    return event;
  }

  /** Queue without waiting: for core's own terminal event, which must never be refused. */
  pushNow(event: AgentEvent): void {
    this.#settleMerge();
    this.#items.push(event);
    this.#wakeConsumer();
  }

  /** Next event, or `undefined` once closed and drained. */
  async shift(): Promise<AgentEvent | undefined> {
    while (this.size === 0) {
      if (this.#closed) return undefined;
      this.#consumerWaitsForFill = false;
      await new Promise<void>((resolve) => (this.#waitingConsumer = resolve));
    }
    return this.tryShift();
  }

  /** Whether no more events will be pushed (some may still be queued). */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Waits until the queue is full or closed. For a consumer that drops every event: it need not
   * wake for each one, only to make room for a producer that would otherwise wait, and at the end.
   */
  async filledOrClosed(): Promise<void> {
    while (this.size < this.#capacity && !this.#closed) {
      this.#consumerWaitsForFill = true;
      await new Promise<void>((resolve) => (this.#waitingConsumer = resolve));
    }
  }

  /** No more events will be pushed; pending producers are released. */
  close(): void {
    this.#closed = true;
    this.#wakeConsumer();
    for (const wake of this.#waitingProducers.splice(0)) wake();
  }

  /**
   * The run is stopping: from now on nothing waits for the consumer. A stopping run publishes only
   * what it already had under way and the closings of open items, so the few publications pending
   * are queued past the capacity, in order. Otherwise a consumer that stopped reading without
   * leaving (awaiting `agent.close()` inside its loop, say) would hold the terminal, and with it
   * the close, forever.
   */
  release(): void {
    this.#capacity = Number.POSITIVE_INFINITY;
    for (const wake of this.#waitingProducers.splice(0)) wake();
  }

  /** Drop everything queued (the consumer went away) and release producers. */
  discard(): void {
    this.#items = [];
    this.#head = 0;
    this.close();
  }

  #findCoalescable(event: DeltaEvent): DeltaEvent | undefined {
    // Only the queue's tail: coalescing further back would reorder events.
    const tail = this.#items[this.#items.length - 1];
    if (this.size > 0 && tail && tail.type === event.type && (tail as DeltaEvent).itemId === event.itemId) {
      return tail as DeltaEvent;
    }
    return undefined;
  }

  #settleMerge(): void {
    if (!this.#merging) return;
    this.#merging.event.text = this.#merging.text.toString();
    this.#merging = undefined;
  }

  #wakeConsumer(): void {
    if (this.#consumerWaitsForFill) {
      if (this.size < this.#capacity && !this.#closed) return;
      this.#consumerWaitsForFill = false;
    }
    const wake = this.#waitingConsumer;
    this.#waitingConsumer = undefined;
    wake?.();
  }

  #wakeProducer(): void {
    if (this.#waitingProducers.length === 0) return;
    const wake = this.#waitingProducers.shift();
    wake?.();
  }
}
