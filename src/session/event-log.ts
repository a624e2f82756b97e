/**
 * A session's durable event log: one per open session, owned by the host that drives it.
 *
 * - `append` assigns the next `seq` synchronously, queues the entry for every live subscriber at
 *   once (a waiting one is woken once per turn of appends, not per event) and for the store.
 *   Writes go out in batches: everything appended within one event-loop turn (up to `maxBatch`
 *   per store call) is one `appendEvents`, so the producer never waits for the store. For a store
 *   that takes encoded batches (SQLite) each event is encoded as it is appended, into a batch that
 *   closes at the end of the turn or at `maxBatch` events (even while a write is in flight), and
 *   the log holds that compact text, not the events, until the store has it; everything encoded
 *   meanwhile goes to the store in one call. Such a store is
 *   handed the text at most every `HOLD_MS` while nobody awaits `flush()` (at once when someone
 *   does, or when `HOLD_EVENTS` are waiting): each hand-off to its writer thread costs the event
 *   loop tens of µs, so a busy run's turns go together.
 * - `flush()` resolves once everything appended before it is durable; it rejects with the typed
 *   store failure (`StoreError`, `LeaseLostError`, …) when a write fails.
 * - A write failure is also logged as a `session.error` notice (delivered live at once; stored
 *   with the next successful write). A retryable failure (`StoreError` with `retryable`) is retried
 *   with backoff; any other failure, or one that persists, breaks the log: later events are still
 *   delivered live but no longer stored, and every `flush()` rejects with that failure.
 * - `close()` hands live subscribers what is already queued for them, then ends them.
 * - `subscribe({ after })` replays from the store page by page, then from the events not yet
 *   stored, then continues live — the switch happens synchronously at the head of the log, so
 *   there is no gap and no duplicate. Replay is pulled by the consumer, so a slow reader of old
 *   events holds nothing. A live subscriber holds at most `bufferSize` undelivered events; past
 *   that it is dropped with `SubscriberTooSlowError` (its `lastSeq` says where to resubscribe),
 *   without slowing the producer or any other subscriber.
 * - Retention (`retention`) is applied in the background: on a timer and every so many appends.
 */
import { AdaptorError, ConfigError, StoreError } from "../errors/index.js";
import type { AgentEvent } from "../events/types.js";
import type { SessionEvent, SessionNotice, SessionStore } from "./types.js";
import { SubscriberQueue, type Delivery, type Subscriber } from "./event-log-subscriber.js";
import { appendEncoded, BatchEncoder, decodeBatch, takesEncoded, type EncodedAppendStore, type EncodedBatch } from "./event-runs.js";

export interface EventLogRetention {
  /** Keep at most this many of the newest events. */
  maxEvents?: number;
  /** Drop events older than this, ms. */
  maxAgeMs?: number;
}

export interface EventLogOptions {
  store: SessionStore;
  sessionId: string;
  /** The owner id the session holds the store's ownership with (`acquireOwner`). */
  owner: string;
  /** How much of the log the store keeps (default: everything). */
  retention?: EventLogRetention;
  /** How often retention runs in the background, ms (default 60000). */
  retentionIntervalMs?: number;
  /**
   * Events per `appendEvents` call at most (default 1000); with a store that takes encoded
   * batches (SQLite), events per encoded batch (one stored chunk), several of which may go in one call.
   */
  maxBatch?: number;
  /** Default bound of a live subscriber's undelivered events (default 10000). */
  bufferSize?: number;
  /** Events per store read while a subscriber replays (default 500). */
  pageSize?: number;
  /**
   * Events appended but not yet stored that the log holds at most while the store keeps failing
   * with retryable errors (default 100000); past it the log breaks with that failure.
   */
  maxUnstored?: number;
  /**
   * The clock of `SessionEvent.at`, epoch ms, read for every append. The default, `Date.now`, is read
   * once per burst instead: the appends of one turn of the event loop share a reading, at most
   * 64 of them (a clock read costs about as much as the rest of an append).
   */
  now?: () => number;
}

export interface SubscribeOptions {
  /** Deliver events with `seq > after` (default 0: everything the store keeps). */
  after?: number;
  /** Ends the iteration (quietly) when aborted. */
  signal?: AbortSignal;
  /** This subscriber's bound on undelivered live events (default: the log's `bufferSize`). */
  bufferSize?: number;
  /**
   * Deliver arrays of events instead of one event at a time: each step yields everything queued
   * for this subscriber (a replayed page, or the events appended since its last step), oldest
   * first, never empty. The same events in the same order as one at a time, for one promise per
   * burst instead of one per event. The arrays are the consumer's; the entries are shared by every
   * subscriber (not frozen): do not mutate them.
   */
  batch?: boolean;
}

/** The durable, sequenced, fanned-out event log of one session. */
export interface EventLog {
  readonly sessionId: string;
  /** The `seq` of the newest appended event (0 when none); the next append gets `lastSeq + 1`. */
  readonly lastSeq: number;
  /** The `seq` of the newest event the store has acknowledged. */
  readonly durableSeq: number;
  /** The failure that broke the log, if one did (then nothing more is stored). */
  readonly failure: AdaptorError | undefined;
  /** Live subscribers and replaying ones. */
  readonly subscriberCount: number;
  /**
   * Log `event`: assigns the next `seq` and `at`, delivers it to every live subscriber, queues it
   * for the store. Never waits and never throws for a store failure (see `flush`). The returned
   * entry is shared with every subscriber and not frozen (freezing each cost a tenth of what
   * logging adds per event): do not mutate it, nor `event` afterwards.
   */
  append(event: AgentEvent | SessionNotice): SessionEvent;
  /** Resolves when every event appended before the call is durable; rejects with the store failure otherwise. */
  flush(): Promise<void>;
  /** Replay from `after`, then the live tail; see the module comment for the guarantees. */
  subscribe(options?: SubscribeOptions & { batch?: false }): AsyncIterable<SessionEvent>;
  /** The same, delivered in bursts (see {@link SubscribeOptions.batch}). */
  subscribe(options: SubscribeOptions & { batch: true }): AsyncIterable<readonly SessionEvent[]>;
  subscribe(options?: SubscribeOptions): AsyncIterable<SessionEvent> | AsyncIterable<readonly SessionEvent[]>;
  /** Apply the retention now; resolves with how many events the store dropped. */
  trim(): Promise<number>;
  /**
   * Stop: flush, end every subscriber's iteration, stop the background work. Rejects with the
   * store failure when the last events could not be stored (everything is stopped regardless).
   */
  close(): Promise<void>;
}

/** What is handed to the store and not yet acknowledged: a batch of events, or encoded batches. */
interface Sending {
  last: number;
  events?: readonly SessionEvent[];
  encoded?: readonly EncodedBatch[];
}

interface FlushWaiter {
  seq: number;
  resolve: () => void;
  reject: (error: AdaptorError) => void;
}

const RETRY_BASE_MS = 50;
const RETRY_MAX_MS = 5_000;
/** Consecutive failed attempts of one batch before a retryable failure breaks the log. */
const RETRY_LIMIT = 12;
/** How long encoded batches wait for more before they go to the store while no `flush()` waits, ms. */
const HOLD_MS = 10;
/** Encoded events that go to the store at once, held or not. */
const HOLD_EVENTS = 10_000;
/** Appends that may reuse a reading of the default clock after the one that read it (see `EventLogOptions.now`). */
const CLOCK_REUSE = 63;

function positiveInteger(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new ConfigError(`event log: ${what} must be a positive integer`);
  return value;
}

function checkRetention(retention: EventLogRetention | undefined): EventLogRetention | undefined {
  if (retention === undefined) return undefined;
  const { maxEvents, maxAgeMs } = retention;
  if (maxEvents !== undefined && (!Number.isSafeInteger(maxEvents) || maxEvents < 0)) {
    throw new ConfigError("event log: retention.maxEvents must be a non-negative integer");
  }
  if (maxAgeMs !== undefined && (typeof maxAgeMs !== "number" || !(maxAgeMs >= 0))) {
    throw new ConfigError("event log: retention.maxAgeMs must be a non-negative number of milliseconds");
  }
  return maxEvents === undefined && maxAgeMs === undefined ? undefined : { maxEvents, maxAgeMs };
}

function asAdaptorError(error: unknown): AdaptorError {
  return AdaptorError.is(error) ? error : new StoreError("store_failed", "the session store failed", { cause: error });
}

/** Opens the log of `sessionId`, continuing after the store's last `seq`. */
export async function openEventLog(options: EventLogOptions): Promise<EventLog> {
  const last = await options.store.lastSeq(options.sessionId);
  return new SessionEventLog(options, last);
}

/** The in-process log; see {@link EventLog}. */
class SessionEventLog implements EventLog {
  readonly sessionId: string;
  private readonly store: SessionStore;
  private readonly owner: string;
  private readonly now: () => number;
  /** The last clock reading, and how many more appends of this turn may stamp their entries with it. */
  private reading = 0;
  private readingUses = 0;
  private readonly clockReuse: number;
  private readonly maxBatch: number;
  private readonly bufferSize: number;
  private readonly pageSize: number;
  private readonly maxUnstored: number;
  private readonly retention: EventLogRetention | undefined;

  private last: number;
  private durable: number;
  /** The batch in the store's hands: `durable + 1 … sending.last`. */
  private sending: Sending | undefined;
  /** Encoded batches not yet handed to the store (encoding stores only), after `sending`. */
  private encoded: EncodedBatch[] = [];
  /** Events in `encoded`. */
  private encodedCount = 0;
  /** The batch being encoded (encoding stores only), after `encoded`: the events appended since it last closed. */
  private readonly encoder = new BatchEncoder();
  /** Events not handed to the store … `last` (stores that take events), oldest first, from index `head`. */
  private unstored: SessionEvent[] = [];
  private head = 0;
  /** The store, when it takes encoded batches. */
  private readonly encodedStore: EncodedAppendStore | undefined;
  private writing = false;
  private scheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** While set, encoded batches wait for it (see `HOLD_MS`); `holdDue` once it fired. */
  private holdTimer: NodeJS.Timeout | undefined;
  private holdDue = false;
  private readonly holdOver = (): void => {
    this.holdTimer = undefined;
    this.holdDue = true;
    void this.drain();
  };
  private attempts = 0;
  private broken: AdaptorError | undefined;
  private failing = false;
  private waiters: FlushWaiter[] = [];
  private closed = false;

  private readonly live = new Set<Subscriber>();
  /** The live one-at-a-time subscribers as an array, replaced (never changed in place) when `live` changes: what `append` walks. */
  private liveList: readonly Subscriber[] = [];
  /** The live batch subscribers, likewise: they share `burst` instead of a push each per event. */
  private batchList: readonly Subscriber[] = [];
  /**
   * The events appended since the live batch subscribers last took them (consecutive, oldest
   * first), pushed once for all of them; each takes its slice at the wake-up, or sooner when one
   * of them would be woken or dropped (`spreadAt`). Replaced, never emptied in place: the array
   * may become a subscriber's queue.
   */
  private burst: SessionEvent[] = [];
  /** The burst length at which it is spread before the wake-up: the least `room()` of the batch subscribers. */
  private spreadAt = Infinity;
  private readonly replaying = new Set<Subscriber>();

  /** A wake-up of the live subscribers is scheduled for the end of this turn. */
  private waking = false;
  private readonly wakeAll = (): void => {
    this.waking = false;
    this.readingUses = 0;
    this.spread();
    for (const subscriber of this.live) subscriber.wake();
  };

  private retentionTimer: NodeJS.Timeout | undefined;
  private appendsSinceTrim = 0;
  private trimming: Promise<number> | undefined;

  constructor(options: EventLogOptions, lastSeq: number) {
    this.sessionId = options.sessionId;
    this.store = options.store;
    this.encodedStore = takesEncoded(options.store) ? options.store : undefined;
    this.owner = options.owner;
    this.now = options.now ?? Date.now;
    this.clockReuse = options.now === undefined ? CLOCK_REUSE : 0;
    this.maxBatch = positiveInteger(options.maxBatch, 1000, "maxBatch");
    this.bufferSize = positiveInteger(options.bufferSize, 10_000, "bufferSize");
    this.pageSize = positiveInteger(options.pageSize, 500, "pageSize");
    this.maxUnstored = positiveInteger(options.maxUnstored, 100_000, "maxUnstored");
    this.retention = checkRetention(options.retention);
    this.last = lastSeq;
    this.durable = lastSeq;
    if (this.retention !== undefined) {
      const every = positiveInteger(options.retentionIntervalMs, 60_000, "retentionIntervalMs");
      this.retentionTimer = setInterval(() => this.backgroundTrim(), every);
      this.retentionTimer.unref();
    }
  }

  get lastSeq(): number {
    return this.last;
  }

  get durableSeq(): number {
    return this.durable;
  }

  get failure(): AdaptorError | undefined {
    return this.broken;
  }

  get subscriberCount(): number {
    return this.live.size + this.replaying.size;
  }

  append(event: AgentEvent | SessionNotice): SessionEvent {
    if (this.closed) throw new StoreError("store_closed", "the session's event log is closed");
    // A reading is reused only while an end-of-turn callback is due, which expires it.
    const at = this.readingUses > 0 && (this.scheduled || this.waking) ? (this.readingUses--, this.reading) : this.readClock();
    const entry: SessionEvent = { seq: this.last + 1, sessionId: this.sessionId, at, event };
    this.last = entry.seq;
    let refused: unknown;
    if (this.broken === undefined) {
      if (this.encodedStore === undefined) this.unstored.push(entry);
      else refused = this.encode(entry);
      this.schedule();
    }
    const live = this.liveList;
    if (live.length > 0) {
      for (let i = 0; i < live.length; i++) live[i]!.push(entry);
      this.scheduleWake();
    }
    if (this.batchList.length > 0) {
      if (this.burst.push(entry) >= this.spreadAt) this.spread();
      this.scheduleWake();
    }
    // After the fan-out: breaking logs a notice, which must come after this event.
    if (refused !== undefined) this.fail(asAdaptorError(refused), false);
    else if (this.broken === undefined && this.unstoredCount() > this.maxUnstored) {
      this.fail(new StoreError("store_busy", `the session store fell more than ${this.maxUnstored} events behind`, { retryable: false }), false);
    }
    this.countForRetention();
    return entry;
  }

  private readClock(): number {
    this.readingUses = this.clockReuse;
    this.reading = this.now();
    return this.reading;
  }

  flush(): Promise<void> {
    if (this.broken !== undefined) return Promise.reject(this.broken);
    if (this.durable >= this.last) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq: this.last, resolve, reject });
      this.schedule();
    });
  }

  subscribe(options?: SubscribeOptions & { batch?: false }): AsyncIterable<SessionEvent>;
  subscribe(options: SubscribeOptions & { batch: true }): AsyncIterable<readonly SessionEvent[]>;
  subscribe(options?: SubscribeOptions): AsyncIterable<SessionEvent> | AsyncIterable<readonly SessionEvent[]>;
  subscribe(options: SubscribeOptions = {}): AsyncIterable<Delivery> {
    const after = options.after ?? 0;
    if (!Number.isSafeInteger(after) || after < 0) throw new ConfigError("event log: after must be a non-negative integer (a seq)");
    const bufferSize = positiveInteger(options.bufferSize, this.bufferSize, "bufferSize");
    const batch = options.batch === true;
    return {
      [Symbol.asyncIterator]: () =>
        new SubscriberQueue<Delivery>(after, bufferSize, options.signal, {
          head: () => this.last,
          durable: () => this.durable,
          failure: () => this.broken,
          unstoredAfter: (seq, limit) => this.unstoredAfter(seq, limit),
          read: (seq, limit) => this.store.readEvents(this.sessionId, { after: seq, limit }),
          pageSize: this.pageSize,
          setMode: (subscriber, mode) => this.setMode(subscriber, mode),
          wakePending: () => this.waking,
          spread: () => this.spread(),
        }, batch),
    };
  }

  async trim(): Promise<number> {
    if (this.retention === undefined || this.closed) return 0;
    this.trimming ??= this.store.trimEvents(this.sessionId, this.retention).finally(() => {
      this.trimming = undefined;
    });
    return this.trimming;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    let failure: unknown;
    try {
      await this.flush();
    } catch (error) {
      failure = error;
    }
    this.closed = true;
    if (this.retentionTimer !== undefined) clearInterval(this.retentionTimer);
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    if (this.holdTimer !== undefined) clearTimeout(this.holdTimer);
    this.spread();
    for (const subscriber of [...this.live]) subscriber.finish();
    for (const subscriber of [...this.replaying]) subscriber.end();
    this.live.clear();
    this.liveList = [];
    this.batchList = [];
    this.burst = [];
    this.replaying.clear();
    await this.trimming?.catch(() => undefined);
    if (failure !== undefined) throw failure;
  }

  /* ---------------- the writer ---------------- */

  private schedule(): void {
    if (this.scheduled || this.broken !== undefined) return;
    // Without encoding there is nothing to do before the write in flight or the retry is over.
    if (this.encodedStore === undefined && (this.writing || this.retryTimer !== undefined)) return;
    this.scheduled = true;
    setImmediate(this.endOfTurn);
  }

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    this.readingUses = 0;
    if (this.encodedStore !== undefined) this.encodeUnstored();
    void this.drain();
  };

  /** Events appended and not yet handed to the store. */
  private unstoredCount(): number {
    return this.unstored.length - this.head + this.encodedCount + this.encoder.count;
  }

  /** Takes `entry` into the open batch, closing it at `maxBatch` events; returns what refused it, if anything. */
  private encode(entry: SessionEvent): unknown {
    try {
      this.encoder.add(entry);
      if (this.encoder.count >= this.maxBatch) this.closeBatch();
    } catch (error) {
      return error;
    }
    return undefined;
  }

  /** Closes the open batch into `encoded`. */
  private closeBatch(): void {
    const batch = this.encoder.finish();
    if (batch === undefined) return;
    this.encoded.push(batch);
    this.encodedCount += batch.last - batch.first + 1;
  }

  /** Closes the open batch; failing to (it cannot be serialized) breaks the log like a refused write. */
  private encodeUnstored(): void {
    try {
      this.closeBatch();
    } catch (error) {
      this.fail(asAdaptorError(error), false);
    }
  }

  /** Writes the unstored events in batches until none are left or a write fails. */
  private async drain(): Promise<void> {
    if (this.writing || this.retryTimer !== undefined || this.broken !== undefined) return;
    this.writing = true;
    try {
      while (this.broken === undefined && (this.sending !== undefined || this.encoded.length > 0 || this.encoder.count > 0 || this.head < this.unstored.length)) {
        // A batch whose write failed and is retried is sent again as it was.
        if (this.sending === undefined && this.hold()) return;
        const sending = this.sending ?? this.nextBatch();
        if (sending === undefined) return;
        try {
          await (sending.encoded !== undefined
            ? this.encodedStore![appendEncoded](this.sessionId, this.owner, sending.encoded)
            : this.store.appendEvents(this.sessionId, this.owner, sending.events!));
        } catch (error) {
          this.onWriteFailure(asAdaptorError(error));
          return;
        }
        this.sending = undefined;
        this.onWritten(sending.last);
      }
    } finally {
      this.writing = false;
    }
  }

  /** Whether the encoded batches wait a little longer for more (see `HOLD_MS`); starts the wait. */
  private hold(): boolean {
    const hold =
      this.encodedStore !== undefined && !this.holdDue && this.waiters.length === 0 && !this.closed && this.unstoredCount() < HOLD_EVENTS;
    if (hold) {
      this.holdTimer ??= setTimeout(this.holdOver, HOLD_MS);
      return true;
    }
    this.holdDue = false;
    if (this.holdTimer !== undefined) clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    return false;
  }

  /** Makes the next batch (everything encoded, or up to `maxBatch` events) the one in the store's hands. */
  private nextBatch(): Sending | undefined {
    if (this.encodedStore !== undefined) {
      this.encodeUnstored();
      const encoded = this.encoded;
      if (encoded.length === 0) return undefined;
      this.encoded = [];
      this.encodedCount = 0;
      this.sending = { last: encoded[encoded.length - 1]!.last, encoded };
      return this.sending;
    }
    const events = this.unstored.slice(this.head, this.head + this.maxBatch);
    this.head += events.length;
    // Sent events are not held here: the array is emptied once all are sent (the usual case), else
    // compacted once the sent prefix dominates, so it never grows without bound.
    if (this.head === this.unstored.length) {
      this.unstored = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.unstored.length) {
      this.unstored = this.unstored.slice(this.head);
      this.head = 0;
    }
    this.sending = { last: events[events.length - 1]!.seq, events };
    return this.sending;
  }

  private onWritten(seq: number): void {
    this.durable = seq;
    this.attempts = 0;
    this.failing = false;
    if (this.waiters.length > 0) {
      const due = this.waiters.filter((waiter) => waiter.seq <= seq);
      this.waiters = this.waiters.filter((waiter) => waiter.seq > seq);
      for (const waiter of due) waiter.resolve();
    }
  }

  private onWriteFailure(error: AdaptorError): void {
    this.attempts += 1;
    const retryable = error instanceof StoreError && error.retryable && this.attempts < RETRY_LIMIT && !this.closed;
    this.fail(error, retryable);
    if (retryable) {
      const delay = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (this.attempts - 1));
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        void this.drain();
      }, delay);
    }
  }

  /** Rejects the waiting flushes, logs the failure once per episode, and breaks the log unless retrying. */
  private fail(error: AdaptorError, retrying: boolean): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(error);
    const first = !this.failing;
    this.failing = true;
    if (!retrying) {
      this.broken = error;
      this.sending = undefined;
      this.encoded = [];
      this.encodedCount = 0;
      this.encoder.reset();
      this.unstored = [];
      this.head = 0;
    }
    if (first && !this.closed) {
      const message = retrying
        ? `writing the event log to the session store failed (${error.code}); retrying`
        : `writing the event log to the session store failed (${error.code}); later events are delivered live but not stored`;
      this.append({ type: "session.error", code: error.code, message });
    }
  }

  /* ---------------- subscribers ---------------- */

  /**
   * Live subscribers are woken once per turn of the event loop, not once per event: a burst of
   * appends (one chunk of a provider's output) costs each waiting consumer one wake-up and it
   * drains its queue without waiting, instead of a promise and a resumption per event.
   */
  private scheduleWake(): void {
    if (this.waking) return;
    this.waking = true;
    setImmediate(this.wakeAll);
  }

  /** Unstored events with `seq > after`, at most `limit`, oldest first. */
  private unstoredAfter(after: number, limit: number): SessionEvent[] {
    // The open batch is closed early to be read like the others.
    if (this.encoder.count > 0) this.encodeUnstored();
    const out: SessionEvent[] = [];
    const take = (events: readonly SessionEvent[]): void => {
      for (const event of events) if (event.seq > after && out.length < limit) out.push(event);
    };
    // Encoded batches are decoded into copies equal to what was appended (a store replay gives copies too).
    const decode = (batch: EncodedBatch): void => {
      if (batch.last > after && out.length < limit) take(decodeBatch(this.sessionId, batch));
    };
    const sending = this.sending;
    if (sending?.events !== undefined && sending.last > after) take(sending.events);
    sending?.encoded?.forEach(decode);
    this.encoded.forEach(decode);
    const before = this.encoded[this.encoded.length - 1]?.last ?? sending?.last ?? this.durable;
    const from = this.head + Math.max(0, after - before);
    const rest = limit - out.length;
    if (rest <= 0) return out;
    return out.length === 0 ? this.unstored.slice(from, from + rest) : out.concat(this.unstored.slice(from, from + rest));
  }

  /**
   * Hands the shared burst to the live batch subscribers (each takes what it has not taken yet)
   * and starts a new one; then sets when the next must be spread early.
   */
  private spread(): void {
    const burst = this.burst;
    const batch = this.batchList;
    if (burst.length > 0) {
      this.burst = [];
      // The first takes the array itself (when it had nothing queued), the others a copy.
      for (let i = 0; i < batch.length; i++) batch[i]!.takeBurst(burst, i === 0);
    }
    let spreadAt = Infinity;
    // Taking may have dropped a subscriber: read the list again.
    for (const subscriber of this.batchList) spreadAt = Math.min(spreadAt, subscriber.room());
    this.spreadAt = spreadAt;
  }

  private setMode(subscriber: Subscriber, mode: "replaying" | "live" | "ended"): void {
    // One leaving needs nothing more of the burst: it drops what it holds, or `close` spread it before `finish`.
    this.live.delete(subscriber);
    this.replaying.delete(subscriber);
    const refused = this.closed && mode !== "ended";
    if (!refused && mode === "replaying") this.replaying.add(subscriber);
    else if (!refused && mode === "live") this.live.add(subscriber);
    // Membership changes one subscriber at a time, so the lengths say whether the lists are stale.
    if (this.liveList.length + this.batchList.length !== this.live.size) {
      const all = [...this.live];
      this.liveList = all.filter((each) => !each.batch);
      this.batchList = all.filter((each) => each.batch);
      if (this.batchList.length === 0) this.burst = [];
      this.spread();
    }
    if (refused) subscriber.end();
  }

  /* ---------------- retention ---------------- */

  private countForRetention(): void {
    const maxEvents = this.retention?.maxEvents;
    if (maxEvents === undefined) return;
    this.appendsSinceTrim += 1;
    // Trim when the log has grown by a quarter of what it keeps (at least 100 events), so the
    // store holds at most 1.25 × maxEvents between trims.
    if (this.appendsSinceTrim >= Math.max(100, Math.ceil(maxEvents / 4))) {
      this.appendsSinceTrim = 0;
      this.backgroundTrim();
    }
  }

  private backgroundTrim(): void {
    if (this.closed) return;
    // Trim only what is stored; a failing store is reported by the writer, not twice.
    this.flush()
      .then(() => this.trim())
      .catch(() => undefined);
  }
}
