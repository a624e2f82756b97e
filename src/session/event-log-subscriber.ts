/**
 * One subscriber of a session's event log: replays (pulled page by page, so it holds at most one
 * page), then switches to live delivery at the head of the log — synchronously, so no event falls
 * between the two — and from then on holds at most `bufferSize` undelivered events before it is
 * dropped with `SubscriberTooSlowError`. In batch mode each step hands the consumer everything
 * queued at once (a store page, the unstored tail, or a turn's appends): one promise per burst.
 */
import { AdaptorError, StoreError, SubscriberTooSlowError } from "../errors/index.js";
import type { SessionEvent } from "./types.js";

/** What a subscriber sees of its log. */
export interface LogView {
  /** The newest appended seq. */
  head(): number;
  /** The newest stored seq. */
  durable(): number;
  /** The failure that broke the log, if any. */
  failure(): AdaptorError | undefined;
  /** Appended but not yet stored events with `seq > after`, at most `limit`. */
  unstoredAfter(after: number, limit: number): SessionEvent[];
  /** Stored events with `seq > after`, at most `limit`. */
  read(after: number, limit: number): Promise<SessionEvent[]>;
  pageSize: number;
  /** Registers the subscriber with the log for its current phase. */
  setMode(subscriber: Subscriber, mode: "replaying" | "live" | "ended"): void;
  /** Whether a wake-up of the live subscribers is due at the end of this turn. */
  wakePending(): boolean;
  /** Hands the shared burst to every live batch subscriber (see {@link Subscriber.takeBurst}). */
  spread(): void;
}

/** What the log calls on a subscriber. */
export interface Subscriber {
  /** Batch subscribers take live events a burst at a time ({@link takeBurst}), others one by one ({@link push}). */
  readonly batch: boolean;
  push(entry: SessionEvent): void;
  /**
   * Takes the events of `burst` it has not taken yet (consecutive seqs, oldest first); with `own`,
   * the array itself may become its queue. Only while live.
   */
  takeBurst(burst: SessionEvent[], own: boolean): void;
  /** How many more events the log may append to the shared burst before this subscriber must take it. */
  room(): number;
  wake(): void;
  finish(): void;
  end(): void;
}

/** What one step hands the consumer: an event, or (batch mode) every event queued, oldest first. */
export type Delivery = SessionEvent | readonly SessionEvent[];

/** See {@link SubscriberQueue.push}: how large a burst grows before a waiting consumer is woken. */
const WAKE_BATCH = 256;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const SETTLED: Promise<unknown> = Promise.resolve();

function toAdaptorError(error: unknown): AdaptorError {
  return AdaptorError.is(error) ? error : new StoreError("store_failed", "reading the session's event log failed", { cause: error });
}

export class SubscriberQueue<T extends Delivery = SessionEvent> implements AsyncIterableIterator<T>, Subscriber {
  private mode: "idle" | "replaying" | "live" | "ended" = "idle";
  /** The seq of the newest event taken into this subscriber (queued or delivered). */
  private fetched: number;
  /** The seq of the newest event handed to the consumer. */
  private delivered: number;
  private queue: SessionEvent[] = [];
  private qhead = 0;
  private error: AdaptorError | undefined;
  private waiter: ((result: IteratorResult<T>) => void) | undefined;
  /** The waiter was set by `next()`'s fast path, which counts it in `outstanding` and `chain`. */
  private counted = false;
  private chain: Promise<unknown> = SETTLED;
  /** `next()` calls not yet settled. */
  private outstanding = 0;
  private readonly onAbort = (): void => this.end();
  /** Queued events at which a waiting consumer is woken before the turn ends. */
  private readonly wakeBatch: number;

  constructor(
    after: number,
    private readonly bufferSize: number,
    private readonly signal: AbortSignal | undefined,
    private readonly view: LogView,
    readonly batch: boolean,
  ) {
    this.fetched = after;
    this.delivered = after;
    // At most a quarter of the bound, so a woken consumer keeps most of its headroom.
    this.wakeBatch = Math.max(1, Math.min(WAKE_BATCH, Math.floor(bufferSize / 4)));
    if (signal?.aborted) this.mode = "ended";
    else signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    // A live batch subscriber's newest events may still be in the log's shared burst.
    if (this.batch && this.mode === "live") this.view.spread();
    if (this.outstanding === 0) {
      // The hot path of a consumer that keeps up: no chaining, no async step. In batch mode a
      // consumer asking mid-burst waits for the burst's wake-up instead of taking a few events:
      // its continuations interleave with the producer's, so it would otherwise get tiny batches.
      const queued = this.queue.length - this.qhead;
      if (queued > 0 && !(this.batch && this.mode === "live" && queued < this.wakeBatch && this.view.wakePending())) {
        return Promise.resolve(this.take());
      }
      if (this.mode === "live" && this.error === undefined) {
        this.outstanding = 1;
        // The waiter is the promise's own resolve, not a closure around it: with a closure made
        // per wait, the bursts it delivered stayed reachable after the consumer was done with
        // them and their entries and events outlived young collections (3× the bytes promoted).
        const waiting = new Promise<IteratorResult<T>>((resolve) => {
          this.waiter = resolve;
        });
        this.counted = true;
        this.chain = waiting;
        // Waiting lowers this subscriber's room to the wake-up batch.
        if (this.batch) this.view.spread();
        return waiting;
      }
    }
    // Calls are served in order even when a consumer does not await each one.
    this.outstanding += 1;
    const step = this.chain.then(() => this.step());
    const settle = (): void => {
      this.outstanding -= 1;
    };
    this.chain = step.then(settle, settle);
    return step;
  }

  async return(): Promise<IteratorResult<T>> {
    this.end();
    return DONE;
  }

  /**
   * Live delivery of a newly appended event (only while live): queued; a consumer waiting for one
   * is woken by {@link wake}, which the log calls once per turn of appends rather than per event.
   */
  push(entry: SessionEvent): void {
    // Below `fetched` only when the subscriber asked to start past the head.
    if (this.mode !== "live" || entry.seq <= this.fetched) return;
    this.fetched = entry.seq;
    this.queue.push(entry);
    const queued = this.queue.length - this.qhead;
    if (this.waiter !== undefined) {
      // A waiting consumer keeps up: woken at once when a burst grows large, never dropped.
      if (queued >= this.wakeBatch) this.wake();
      return;
    }
    if (queued > this.bufferSize) this.drop();
  }

  /** Dropped: free what it held at once; the consumer learns it at its next read. */
  private drop(): void {
    this.queue = [];
    this.qhead = 0;
    this.error = new SubscriberTooSlowError(this.delivered, this.bufferSize);
    this.setMode("ended");
  }

  /** Live delivery of the shared burst (batch mode): one slice instead of a push per event. */
  takeBurst(burst: SessionEvent[], own: boolean): void {
    const count = burst.length;
    if (this.mode !== "live" || count === 0) return;
    // Past `fetched` only: the subscriber may have replayed into the burst, or asked to start past the head.
    const from = Math.max(0, this.fetched - burst[0]!.seq + 1);
    if (from >= count) return;
    this.fetched = burst[count - 1]!.seq;
    if (this.qhead === this.queue.length) {
      this.queue = own && from === 0 ? burst : burst.slice(from);
      this.qhead = 0;
    } else {
      for (let i = from; i < count; i++) this.queue.push(burst[i]!);
    }
    const queued = this.queue.length - this.qhead;
    if (this.waiter !== undefined) {
      if (queued >= this.wakeBatch) this.wake();
      return;
    }
    if (queued > this.bufferSize) this.drop();
  }

  room(): number {
    const queued = this.queue.length - this.qhead;
    // A waiting consumer is woken at `wakeBatch`; another is dropped once it holds more than `bufferSize`.
    return this.waiter !== undefined ? Math.max(1, this.wakeBatch - queued) : this.bufferSize - queued + 1;
  }

  /** Hands the oldest queued event to a waiting consumer (which then drains the queue without waiting). */
  wake(): void {
    const waiter = this.waiter;
    if (waiter === undefined || this.qhead === this.queue.length) return;
    this.release();
    waiter(this.take());
  }

  /** Ends the iteration after the events already queued (the log closing). */
  finish(): void {
    this.wake();
    if (this.qhead === this.queue.length) this.end();
    else this.setMode("ended");
  }

  /** Ends the iteration quietly, dropping what is queued (abort, `return`). */
  end(): void {
    this.queue = [];
    this.qhead = 0;
    this.setMode("ended");
    const waiter = this.waiter;
    if (waiter === undefined) return;
    this.release();
    waiter(DONE);
  }

  /** Clears the waiter before it is called; a fast-path one is no longer outstanding. */
  private release(): void {
    this.waiter = undefined;
    if (!this.counted) return;
    this.counted = false;
    this.outstanding -= 1;
    // Nothing is chained after it: do not keep its result (a whole burst) reachable.
    if (this.outstanding === 0) this.chain = SETTLED;
  }

  private setMode(mode: "replaying" | "live" | "ended"): void {
    if (this.mode === "ended") return;
    this.mode = mode;
    this.view.setMode(this, mode);
    if (mode === "ended") this.signal?.removeEventListener("abort", this.onAbort);
  }

  private async step(): Promise<IteratorResult<T>> {
    for (;;) {
      if (this.batch && this.mode === "live") this.view.spread();
      if (this.qhead < this.queue.length) return this.take();
      if (this.error !== undefined) {
        const error = this.error;
        this.error = undefined;
        this.setMode("ended");
        throw error;
      }
      if (this.mode === "ended") return DONE;
      if (this.mode === "live") {
        const waiting = new Promise<IteratorResult<T>>((resolve) => (this.waiter = resolve));
        // Waiting lowers this subscriber's room to the wake-up batch.
        if (this.batch) this.view.spread();
        return waiting;
      }
      if (this.mode === "idle") {
        this.setMode("replaying");
        continue;
      }
      await this.fill();
    }
  }

  private take(): IteratorResult<T> {
    if (this.batch) {
      // The queue is the consumer's from here on: handed over whole, not copied, when nothing of it was taken yet.
      const all = this.qhead === 0 ? this.queue : this.queue.slice(this.qhead);
      this.queue = [];
      this.qhead = 0;
      this.delivered = all[all.length - 1]!.seq;
      return { done: false, value: all as unknown as T };
    }
    const value = this.queue[this.qhead++]!;
    if (this.qhead === this.queue.length) {
      this.queue = [];
      this.qhead = 0;
    } else if (this.qhead >= 4096) {
      this.queue = this.queue.slice(this.qhead);
      this.qhead = 0;
    }
    this.delivered = value.seq;
    return { done: false, value: value as T };
  }

  /** One replay step: go live at the head, else load the next page from memory or the store. */
  private async fill(): Promise<void> {
    if (this.fetched >= this.view.head()) {
      this.setMode("live");
      return;
    }
    const durable = this.view.durable();
    if (this.fetched >= durable) {
      // Within reach of the head: take all the rest and go live in the same step (no event can
      // be appended in between); further behind, a page at a time like the store.
      const behind = this.view.head() - this.fetched;
      const events = this.view.unstoredAfter(this.fetched, behind <= this.bufferSize ? behind : this.view.pageSize);
      if (events.length === 0) {
        // Only a broken log drops unstored events: those after `durable` are gone.
        this.error = this.view.failure() ?? new StoreError("store_failed", "the session's event log lost events it had not stored");
        return;
      }
      this.load(events);
      if (this.fetched >= this.view.head()) this.setMode("live");
      return;
    }
    let page: SessionEvent[];
    try {
      page = await this.view.read(this.fetched, this.view.pageSize);
    } catch (error) {
      this.error = toAdaptorError(error);
      return;
    }
    if (this.mode === "ended") return;
    const fresh = page.filter((event) => event.seq > this.fetched);
    // Nothing stored after `fetched`: retention dropped what was left up to `durable`.
    if (fresh.length === 0) this.fetched = Math.max(this.fetched, durable);
    else this.load(fresh);
  }

  private load(events: SessionEvent[]): void {
    this.queue = events;
    this.qhead = 0;
    this.fetched = events[events.length - 1]!.seq;
  }
}
