/**
 * One run's timeline: stamps events with `seq`/`runId`/`threadId`/`at`, keeps exactly one
 * terminal event last, records a bounded transcript and feeds the consumer's buffer.
 */
import { EventBuffer, isDeltaEvent, type DeltaEvent, type OverflowPolicy } from "./buffer.js";
import { eventClock } from "./clock.js";
import { TextAccumulator } from "./text-accumulator.js";
import type { AgentEvent, EventOf, EventPayloads, EventType, Provenance, TerminalEvent } from "./types.js";
import { copyWireData, toWireData } from "./wire.js";

const RESOLVED: Promise<void> = Promise.resolve();

type Stampable<K extends EventType> = { type: K; provenance?: Provenance } & EventPayloads[K];

/** What a delta carries into the timeline. */
type DeltaPayload = { type: "message.delta" | "reasoning.delta"; itemId: string; text: string; provenance?: Provenance };

/**
 * Sees each event of the run as it is published, in order, synchronously (telemetry). Deltas
 * only when `deltas` is true. It must not mutate the event; what it throws is ignored.
 */
export interface RunEventObserver {
  event(event: AgentEvent): void;
  deltas: boolean;
}

/**
 * A delta's provenance as wire data: a plain record of strings (what drivers build) as it is,
 * without the general walk of `toWireData`, which costs as much as the rest of a delta's stamping.
 */
function wireProvenance(provenance: Provenance): Provenance {
  if (Object.getPrototypeOf(provenance) !== Object.prototype) return toWireData(provenance);
  for (const key in provenance) {
    if (typeof provenance[key as keyof Provenance] !== "string") return toWireData(provenance);
  }
  return provenance;
}

export class RunTimeline {
  readonly runId: string;
  readonly threadId: string | undefined;
  readonly buffer: EventBuffer;
  #nextSeq = 0;
  #terminal: TerminalEvent | undefined;
  /** Consecutive deltas of one item are merged, so a million deltas cost one entry. */
  #transcript: AgentEvent[] = [];
  #chain: Promise<void> = RESOLVED;
  /** Publications queued behind a full buffer; while any are, new ones queue behind them. */
  #pending = 0;
  #assistantText = new TextAccumulator();
  #assistantItem: string | undefined;
  /** The transcript's trailing delta entry and its merged text, while deltas still merge into it. */
  #openDelta: { entry: { type: string; itemId: string; text: string }; text: TextAccumulator } | undefined;
  readonly #observer: RunEventObserver | undefined;
  /**
   * Whether a host may hold the published event objects (it reads the buffer, or an observer gets
   * them): the transcript then keeps copies, as the host may mutate what it receives.
   */
  #eventsReachHost = true;
  /** Read once: the delta path is the hot one. */
  readonly #observeDeltas: boolean;

  constructor(options: { runId: string; threadId?: string; bufferSize: number; overflow: OverflowPolicy; observer?: RunEventObserver }) {
    this.runId = options.runId;
    this.threadId = options.threadId;
    this.buffer = new EventBuffer(options.bufferSize, options.overflow);
    this.#observer = options.observer;
    this.#observeDeltas = options.observer?.deltas === true;
  }

  get ended(): boolean {
    return this.#terminal !== undefined;
  }

  /** Text of the last completed assistant message, or the deltas since it. */
  get assistantText(): string {
    return this.#assistantText.toString();
  }

  /**
   * Publish a non-terminal event in emission order. Returns `undefined` when the buffer took it
   * at once, else a promise that resolves when it did.
   */
  publish<K extends Exclude<EventType, TerminalEvent["type"]>>(payload: Stampable<K>): Promise<void> | undefined {
    // Hot path: nothing is waiting and the buffer has room, so no promise chain is needed.
    if (this.#pending === 0 && !this.#terminal) {
      const event = this.#stamp(payload);
      if (this.buffer.tryPush(event)) {
        this.#track(event);
        this.#nextSeq++;
        return undefined;
      }
    }
    this.#pending++;
    const next = this.#chain.then(() => this.#publishNow(payload)).finally(() => this.#pending--);
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /**
   * {@link RunTimeline.publish} for a delta the caller has checked: the bulk of every stream, so
   * it is stamped and tracked without the generic dispatch.
   */
  publishDelta(delta: DeltaPayload): Promise<void> | undefined {
    if (this.#pending !== 0 || this.#terminal) return this.publish(delta);
    const event = this.#stampDelta(delta);
    if (!this.buffer.tryPush(event)) return this.publish(delta);
    this.#trackDelta(event as DeltaEvent);
    this.#nextSeq++;
    return undefined;
  }

  /** Publish the single terminal event after every pending event. Later calls are ignored. */
  async finish<K extends TerminalEvent["type"]>(payload: Stampable<K>): Promise<EventOf<K> | undefined> {
    await this.#chain;
    if (this.#terminal) return undefined;
    const event = this.#stamp(payload) as EventOf<K>;
    this.#nextSeq++;
    this.#terminal = event as TerminalEvent;
    this.#closeDelta();
    this.#transcript.push(copyWireData(event) as AgentEvent);
    if (this.#observer !== undefined) this.#notify(event as AgentEvent);
    this.buffer.pushNow(event as AgentEvent);
    this.buffer.close();
    return event;
  }

  transcript(): AgentEvent[] {
    if (this.#openDelta) this.#openDelta.entry.text = this.#openDelta.text.toString();
    return this.#transcript.map((event) => copyWireData(event));
  }

  /**
   * From now on the buffer's events are dropped unread (`run()` drains the stream): the transcript
   * keeps the published events themselves, not copies — unless an observer (the host's code) gets
   * them. The terminal is still copied: its result's objects are shared with the host's `Result`.
   */
  eventsUnread(): void {
    this.#eventsReachHost = this.#observer !== undefined;
  }

  /** The consumer is gone: drop queued events and unblock the producer. */
  discard(): void {
    this.buffer.discard();
  }

  async #publishNow(payload: Stampable<EventType>): Promise<void> {
    if (this.#terminal) return;
    const event = this.#stamp(payload);
    this.#track(event);
    const queued = await this.buffer.push(event);
    if (queued) this.#nextSeq++;
  }

  #stamp(payload: Stampable<EventType>): AgentEvent {
    if (payload.type === "message.delta" || payload.type === "reasoning.delta") return this.#stampDelta(payload as DeltaPayload);
    // Object.assign, not spread: spreading a payload plus extra keys is ~20x slower on Node 20.
    const event = Object.assign({ type: payload.type, seq: this.#nextSeq, runId: this.runId, at: eventClock() }, payload) as AgentEvent;
    if (this.threadId !== undefined) event.threadId = this.threadId;
    // The wire contract: what a host receives survives JSON unchanged (no undefined-valued keys).
    return toWireData(event);
  }

  /**
   * Deltas are the bulk of every stream: each is built as one complete literal (no keys added
   * afterwards, so all deltas of a run share one shape). Same keys, same order as `#stamp`.
   */
  #stampDelta(delta: DeltaPayload): AgentEvent {
    const { type, itemId, text } = delta;
    const provenance = delta.provenance === undefined ? undefined : wireProvenance(delta.provenance);
    const seq = this.#nextSeq;
    const runId = this.runId;
    const threadId = this.threadId;
    const at = eventClock();
    if (provenance === undefined) {
      return (threadId === undefined ? { type, seq, runId, at, itemId, text } : { type, seq, runId, at, itemId, text, threadId }) as AgentEvent;
    }
    return (threadId === undefined ? { type, seq, runId, at, itemId, text, provenance } : { type, seq, runId, at, itemId, text, provenance, threadId }) as AgentEvent;
  }

  #track(event: AgentEvent): void {
    if (isDeltaEvent(event)) {
      this.#trackDelta(event);
      return;
    }
    if (event.type === "message.completed") {
      this.#closeDelta(event);
      this.#assistantItem = event.itemId;
      this.#assistantText = new TextAccumulator(event.text);
    }
    this.#closeDelta();
    // A private copy: the host may mutate the event object it receives (stamped events are wire data).
    this.#transcript.push(this.#eventsReachHost ? copyWireData(event) : event);
    if (this.#observer !== undefined) this.#notify(event);
  }

  /** The observer sees the event; a failing observer never fails the run. */
  #notify(event: AgentEvent): void {
    try {
      this.#observer!.event(event);
    } catch {
      // Telemetry is best effort.
    }
  }

  /** Follows a delta: the assistant's text and the transcript's trailing merged entry. */
  #trackDelta(event: DeltaEvent): void {
    if (this.#observeDeltas) this.#notify(event);
    const { type, itemId, text } = event;
    const open = this.#openDelta;
    const merges = open !== undefined && open.entry.type === type && open.entry.itemId === itemId;
    let shared: TextAccumulator | undefined;
    if (type === "message.delta") {
      const starts = this.#assistantItem !== itemId;
      const assistant = starts ? this.#startAssistant(itemId) : this.#assistantText;
      assistant.append(text);
      // The entry's text is the assistant's text: appended once, held once.
      if (merges && open.text === assistant) return;
      // Only an entry that starts with the message can share its text; a later one holds a suffix.
      if (starts) shared = assistant;
    }
    if (merges) {
      open.text.append(text);
      return;
    }
    this.#closeDelta();
    const entry = Object.assign({}, event);
    this.#transcript.push(entry);
    this.#openDelta = { entry, text: shared ?? new TextAccumulator(text) };
  }

  #startAssistant(itemId: string): TextAccumulator {
    this.#assistantItem = itemId;
    return (this.#assistantText = new TextAccumulator());
  }

  /**
   * Materialize the merged text of the trailing delta entry; later deltas start a new entry.
   * Given the message that completes the entry's deltas with the same text, the entry keeps that
   * message's string, so the transcript holds the text once for both.
   */
  #closeDelta(completed?: { itemId: string; text: string }): void {
    const open = this.#openDelta;
    if (!open) return;
    if (completed !== undefined && (open.entry.type !== "message.delta" || open.entry.itemId !== completed.itemId)) return;
    const text = open.text.toString();
    open.entry.text = completed !== undefined && text === completed.text ? completed.text : text;
    this.#openDelta = undefined;
  }
}
