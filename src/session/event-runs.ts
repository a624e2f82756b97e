/**
 * The compact, lossless stored form of a batch of session events: a JSON array of entries, each
 * either one event `[at, event]` or a run of consecutive events that differ only in `seq`, `at`
 * and `text` (a provider's stream of `message.delta`s of one item):
 * `[at, firstEvent, texts, atSteps, eventAtSteps]`. The run's k-th later event is the first one
 * with `seq + k`, `texts[k - 1]` and the `at`s reached by adding the steps. A step list whose
 * steps are all equal is stored as that one number; one that is mostly 0 (bursts within one
 * millisecond, the usual case) as `{ at, by }`: 0 except `by[j]` at index `at[j]`; any other as
 * the whole list (the only other form older rows have). Serializing a delta costs its text instead of
 * the whole object — serialization was most of what logging cost the event loop — and decoding
 * gives back events equal, as JSON, to the ones appended.
 */
import { ConfigError } from "../errors/index.js";
import type { SessionEvent, SessionStore } from "./types.js";

export type Entry = [at: number, event: SessionEvent["event"]];

/** Steps that are 0 except `by[j]` at index `at[j]` (ascending). */
interface SparseSteps {
  at: number[];
  by: number[];
}
type Steps = number | number[] | SparseSteps;
type RunEntry = [at: number, first: SessionEvent["event"], texts: string[], atSteps: Steps, eventAtSteps: Steps];

/** The stored form of a non-empty batch of contiguous events. */
export interface EncodedBatch {
  first: number;
  last: number;
  maxAt: number;
  body: string;
}

type Loose = Record<string, unknown>;

/** A plain object of primitive values only — the one kind of object a run shares (a provenance). */
function flatEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) || Array.isArray(b)) return false;
  let count = 0;
  for (const key in a) {
    const value = (a as Loose)[key];
    if (value !== null && typeof value === "object") return false;
    if (value !== (b as Loose)[key]) return false;
    count++;
  }
  for (const _ in b) count--;
  return count === 0;
}

/** Whether `event` can start a run: whole-number `seq` and `at`, a string `text`. */
function runnable(event: Loose, at: number): boolean {
  return typeof event.text === "string" && Number.isSafeInteger(event.seq) && Number.isSafeInteger(event.at) && Number.isSafeInteger(at);
}

/**
 * Steps of a run: one number while they are all equal; else the non-zero ones with their indices
 * when they are at most half (a run of deltas spans a few milliseconds: a list of one step per
 * delta would cost its serialization per event), else the whole list.
 */
class StepList {
  private first = 0;
  private count = 0;
  private same = true;
  private readonly at: number[] = [];
  private readonly by: number[] = [];

  push(step: number): void {
    if (this.count === 0) this.first = step;
    else if (step !== this.first) this.same = false;
    if (step !== 0) {
      this.at.push(this.count);
      this.by.push(step);
    }
    this.count++;
  }

  value(): Steps {
    if (this.same) return this.first;
    if (this.at.length * 2 <= this.count) return { at: this.at, by: this.by };
    const list = new Array<number>(this.count).fill(0);
    for (let j = 0; j < this.at.length; j++) list[this.at[j]!] = this.by[j]!;
    return list;
  }
}

class Run {
  /** The later events' texts; the run's entry takes this array as it is. */
  private readonly texts: string[] = [];
  private readonly atSteps = new StepList();
  private readonly eventAtSteps = new StepList();
  /** The first event's keys in enumeration order, and their values. */
  private readonly keys: string[] = [];
  private readonly values: unknown[] = [];
  private lastAt: number;
  private lastEventAt: number;
  private lastSeq: number;

  constructor(
    readonly at: number,
    readonly first: Loose,
  ) {
    for (const key in first) {
      this.keys.push(key);
      this.values.push(first[key]);
    }
    this.lastAt = at;
    this.lastEventAt = first.at as number;
    this.lastSeq = first.seq as number;
  }

  /**
   * Takes `event` into the run when it differs from the first only in `seq` (the next), `at` and
   * `text`, with its keys in the same order (as a driver's events of one kind have them): compared
   * position by position against the first's keys and values, no lookup by name on the first.
   * `at` is whole epoch ms (the encoder checked it).
   */
  add(event: Loose, at: number): boolean {
    if (typeof event.text !== "string" || event.seq !== this.lastSeq + 1 || !Number.isSafeInteger(event.at)) return false;
    const keys = this.keys;
    const values = this.values;
    let i = 0;
    for (const key in event) {
      if (key !== keys[i]) return false;
      if (key !== "seq" && key !== "at" && key !== "text") {
        const value = event[key];
        if (value !== null && typeof value === "object") {
          if (!flatEqual(value, values[i])) return false;
        } else if (value !== values[i]) return false;
      }
      i++;
    }
    if (i !== keys.length) return false;
    this.texts.push(event.text);
    this.atSteps.push(at - this.lastAt);
    this.eventAtSteps.push((event.at as number) - this.lastEventAt);
    this.lastAt = at;
    this.lastEventAt = event.at as number;
    this.lastSeq += 1;
    return true;
  }

  /** The run's stored entry. */
  entry(): Entry | RunEntry {
    if (this.texts.length === 0) return [this.at, this.first as SessionEvent["event"]];
    return [this.at, this.first as SessionEvent["event"], this.texts, this.atSteps.value(), this.eventAtSteps.value()];
  }
}

/**
 * Encodes contiguous events one at a time, as they come: the event log encodes each event when it
 * is appended, while it is fresh in the cache, and keeps neither the event nor its entry for the
 * store (only the open run's first event and texts). Any number of encoders may be open at once.
 */
export class BatchEncoder {
  private body: (Entry | RunEntry)[] = [];
  private run: Run | undefined;
  private first = 0;
  private last = 0;
  private maxAt = Number.MIN_SAFE_INTEGER;
  private taken = 0;

  /** Events taken since the last {@link finish}. */
  get count(): number {
    return this.taken;
  }

  /**
   * Takes the next event (`seq` is not checked here: a store checks it with `checkEventShape`, the
   * log assigns it); throws a `ConfigError`, taking nothing, unless `at` is whole epoch ms and `event` an object.
   */
  add(entry: SessionEvent): void {
    const { at, event } = entry;
    if (!Number.isSafeInteger(at)) throw new ConfigError("session store: an event's at must be whole epoch milliseconds");
    if (typeof event !== "object" || event === null) throw new ConfigError("session store: an event's event must be an object");
    if (this.taken++ === 0) this.first = entry.seq;
    this.last = entry.seq;
    if (at > this.maxAt) this.maxAt = at;
    const run = this.run;
    if (run !== undefined && run.add(event as unknown as Loose, at)) return;
    if (run !== undefined) this.body.push(run.entry());
    if (runnable(event as unknown as Loose, at)) this.run = new Run(at, event as unknown as Loose);
    else {
      this.run = undefined;
      this.body.push([at, event]);
    }
  }

  /** The batch of the events taken since the last call (undefined when none); starts the next. May throw (`JSON.stringify`). */
  finish(): EncodedBatch | undefined {
    if (this.taken === 0) return undefined;
    const body = this.body;
    if (this.run !== undefined) body.push(this.run.entry());
    const batch: EncodedBatch = { first: this.first, last: this.last, maxAt: this.maxAt, body: "" };
    this.reset();
    batch.body = JSON.stringify(body);
    return batch;
  }

  /** Drops what was taken since the last {@link finish}. */
  reset(): void {
    this.body = [];
    this.run = undefined;
    this.maxAt = Number.MIN_SAFE_INTEGER;
    this.taken = 0;
  }
}

/**
 * Encodes the non-empty batch `events[from … to)` of contiguous events (see {@link BatchEncoder.add}).
 */
export function encodeBatch(events: readonly SessionEvent[], from = 0, to = events.length): EncodedBatch {
  const encoder = new BatchEncoder();
  for (let i = from; i < to; i++) encoder.add(events[i]!);
  return encoder.finish()!;
}

/** Encodes `[at, event]` entries (a chunk's kept tail) whose first has `seq` `first`. */
export function encodeEntries(first: number, entries: readonly Entry[]): EncodedBatch {
  return encodeBatch(entries.map(([at, event], i) => ({ seq: first + i, sessionId: "", at, event })));
}

/** The events of an encoded batch of session `id`. */
export function decodeBatch(id: string, batch: EncodedBatch): SessionEvent[] {
  return decodeBody(batch.body).map(([at, event], i) => ({ seq: batch.first + i, sessionId: id, at, event }));
}

/**
 * A store that takes batches in this form (the SQLite store): the log encodes a batch once, hands
 * the store its text and holds only that text, not the events, until the store has it — events
 * held that long outlive young-generation collections and make the collector copy them.
 */
export const appendEncoded: unique symbol = Symbol("appendEncoded");

export interface EncodedAppendStore {
  /** `appendEvents` of the events `batches` encode (contiguous, oldest first), with the same checks and guarantees. */
  [appendEncoded](id: string, owner: string, batches: readonly EncodedBatch[]): Promise<void>;
}

export function takesEncoded(store: SessionStore): store is SessionStore & EncodedAppendStore {
  return typeof (store as Partial<EncodedAppendStore>)[appendEncoded] === "function";
}

/** The steps as one number or one per event (a sparse form expanded). */
function stepList(steps: Steps, count: number): number | number[] {
  if (typeof steps === "number" || Array.isArray(steps)) return steps;
  const list = new Array<number>(count).fill(0);
  for (let j = 0; j < steps.at.length; j++) list[steps.at[j]!] = steps.by[j]!;
  return list;
}

function stepAt(steps: number | number[], index: number): number {
  return typeof steps === "number" ? steps : steps[index]!;
}

/** Copies the run's shared flat objects, so no two decoded events share one. */
function expand(first: Loose, seq: number, at: number, text: string): SessionEvent["event"] {
  const event: Loose = { ...first, seq, at, text };
  for (const key in event) {
    const value = event[key];
    if (value !== null && typeof value === "object") event[key] = { ...(value as Loose) };
  }
  return event as unknown as SessionEvent["event"];
}

/** The events of a stored body (this form, or the older one of `[at, event]` entries only), oldest first. */
export function decodeBody(body: string): Entry[] {
  const stored = JSON.parse(body) as (Entry | RunEntry)[];
  if (stored.every((entry) => entry.length === 2)) return stored as Entry[];
  const out: Entry[] = [];
  for (const entry of stored) {
    if (entry.length === 2) {
      out.push(entry);
      continue;
    }
    const [at0, first, texts] = entry;
    const atSteps = stepList(entry[3], texts.length);
    const eventAtSteps = stepList(entry[4], texts.length);
    const head = first as unknown as Loose;
    out.push([at0, first]);
    let at = at0;
    let eventAt = head.at as number;
    for (let i = 0; i < texts.length; i++) {
      at += stepAt(atSteps, i);
      eventAt += stepAt(eventAtSteps, i);
      out.push([at, expand(head, (head.seq as number) + i + 1, eventAt, texts[i]!)]);
    }
  }
  return out;
}
