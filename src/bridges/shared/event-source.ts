/**
 * What the bridges read: a run's stream, any async iterable of run events or session log entries,
 * a session (anything with `events({ after, signal })`), or a function opening a replay after a
 * given sequence number. One iteration shape for all of them, with the cancel rules the bridges
 * promise: stopping reads only what the bridge itself opened, and a run's stream is never
 * stalled by a reader that went away.
 */
import { AdaptorError } from "../../errors/index.js";
import { clientErrorText, clientEvent } from "./client-event.js";
import type { AgentEvent } from "../../events/types.js";
import type { RunStream } from "../../agent/run-stream.js";
import type { SessionEvent, SessionNotice } from "../../session/types.js";

/**
 * A session, or anything else that replays an event log after a sequence number and then follows
 * it live. Asked with `batch: true`, it may yield arrays of entries (bursts, oldest first, as a
 * session does); one that yields single entries is read the same way.
 */
export interface SessionEventLog {
  events(options?: { after?: number; signal?: AbortSignal; batch?: boolean }): AsyncIterable<SessionEvent | readonly SessionEvent[]>;
}

/** What a bridge can read. */
export type BridgeSource =
  | RunStream
  | AsyncIterable<AgentEvent | SessionEvent>
  | Iterable<AgentEvent | SessionEvent>
  | SessionEventLog
  | ((after: number) => AsyncIterable<AgentEvent | SessionEvent>);

/** One entry as a bridge sees it: its sequence number (the session's when there is one) and the event. */
export interface BridgeEntry {
  seq: number;
  event: AgentEvent | SessionNotice;
  /** Set for a session log entry. */
  sessionId?: string;
}

export interface OpenOptions {
  /** Entries at or below this sequence number were delivered already: skipped (or not replayed). */
  after?: number;
  /** When the reader goes away from a run's stream: `true` cancels the run; otherwise it is drained to its end. */
  cancelRun?: boolean;
}

/** An open iteration: `next()` one entry at a time, `stop()` once (never waits for the source). */
export interface OpenSource {
  next(): Promise<BridgeEntry | undefined>;
  /** The next entry and every one already at hand after it (the rest of the source's burst); undefined at the end. */
  nextBatch(): Promise<BridgeEntry[] | undefined>;
  stop(reason: string): void;
}

/** Whether `value` is a run's stream (it is answered through, and draining it keeps the run moving). */
export function isRunStream(value: unknown): value is RunStream {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<RunStream>;
  return typeof candidate.runId === "string" && typeof candidate.cancel === "function" && typeof candidate.respond === "function" && Symbol.asyncIterator in value;
}

type Item = AgentEvent | SessionEvent | readonly SessionEvent[];

function isBurst(value: Item): value is readonly SessionEvent[] {
  return Array.isArray(value);
}

function isSessionEvent(value: AgentEvent | SessionEvent): value is SessionEvent {
  return "sessionId" in value && typeof (value as { event?: unknown }).event === "object" && (value as { event?: unknown }).event !== null;
}

/** Whether an entry's event is a run's (not a session notice). */
export function isRunEvent(event: AgentEvent | SessionNotice): event is AgentEvent {
  return !event.type.startsWith("session.");
}

/** The entry of one item of a source, as a remote client may read it (see `clientEvent`). */
export function toEntry(item: AgentEvent | SessionEvent): BridgeEntry {
  if (isSessionEvent(item)) return { seq: item.seq, event: clientEvent(item.event), sessionId: item.sessionId };
  return { seq: item.seq, event: clientEvent(item) };
}

/** Start reading `source`. A source that cannot be opened fails the first `next()`. */
export function openSource(source: BridgeSource, options: OpenOptions = {}): OpenSource {
  try {
    return openIteration(source, options);
  } catch (error) {
    const fail = (): Promise<never> => Promise.reject(error instanceof Error ? error : new Error(String(error)));
    return { next: fail, nextBatch: fail, stop: () => undefined };
  }
}

function openIteration(source: BridgeSource, options: OpenOptions): OpenSource {
  const abort = new AbortController();
  const after = options.after;
  let iterable: AsyncIterable<Item> | Iterable<Item>;
  if (typeof source === "function") iterable = source(after ?? 0);
  else if (!(Symbol.asyncIterator in source) && !(Symbol.iterator in source) && typeof (source as SessionEventLog).events === "function") {
    iterable = (source as SessionEventLog).events({ ...(after !== undefined ? { after } : {}), signal: abort.signal, batch: true });
  } else iterable = source as AsyncIterable<AgentEvent | SessionEvent> | Iterable<AgentEvent | SessionEvent>;
  const run = isRunStream(source) ? source : undefined;
  const iterator = iteratorOf(iterable);
  let stopped = false;
  let inFlight: Promise<unknown> | undefined;
  /** The source's current burst, read from `index` on. */
  let burst: readonly SessionEvent[] = [];
  let index = 0;

  /** The next entry of the current burst, if it has one left. */
  const fromBurst = (): BridgeEntry | undefined => {
    while (index < burst.length) {
      const entry = toEntry(burst[index++]!);
      if (after === undefined || entry.seq > after) return entry;
    }
    return undefined;
  };

  const next = async (): Promise<BridgeEntry | undefined> => {
    for (;;) {
      if (stopped) return undefined;
      const buffered = fromBurst();
      if (buffered !== undefined) return buffered;
      const pending = iterator.next();
      inFlight = pending;
      const item = await pending;
      inFlight = undefined;
      if (stopped || item.done) return undefined;
      if (isBurst(item.value)) {
        burst = item.value;
        index = 0;
        continue;
      }
      const entry = toEntry(item.value);
      // A replay function or a log skips what was delivered itself; a plain iterable is filtered here.
      if (after !== undefined && entry.seq <= after) continue;
      return entry;
    }
  };

  const nextBatch = async (): Promise<BridgeEntry[] | undefined> => {
    const first = await next();
    if (first === undefined) return undefined;
    const entries = [first];
    for (let entry = fromBurst(); entry !== undefined && !stopped; entry = fromBurst()) entries.push(entry);
    return entries;
  };

  const stop = (reason: string): void => {
    if (stopped) return;
    stopped = true;
    abort.abort(reason);
    if (run && options.cancelRun !== true) {
      void drain(iterator, inFlight);
      return;
    }
    if (run) run.cancel(reason);
    // Not awaited: a generator parked in a live tail ends when its signal aborts, not before.
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => undefined);
  };
  return { next, nextBatch, stop };
}

/** An async iterator over `iterable`; a plain (sync) iterable such as an array is accepted as well. */
function iteratorOf<T>(iterable: AsyncIterable<T> | Iterable<T>): AsyncIterator<T> {
  if (typeof (iterable as AsyncIterable<T>)[Symbol.asyncIterator] === "function") return (iterable as AsyncIterable<T>)[Symbol.asyncIterator]();
  if (typeof (iterable as Iterable<T>)[Symbol.iterator] === "function") {
    const inner = (iterable as Iterable<T>)[Symbol.iterator]();
    return { next: async () => inner.next(), return: async () => inner.return?.() ?? { done: true, value: undefined } };
  }
  throw new TypeError("the source is neither a run's stream, an event log nor an iterable of events");
}

/** Read a run's stream to its end without keeping anything, so the run is never held by a full buffer. */
async function drain(iterator: AsyncIterator<unknown>, inFlight: Promise<unknown> | undefined): Promise<void> {
  try {
    await inFlight;
    for (let item = await iterator.next(); item.done !== true; item = await iterator.next()) {
      // Discarded: the reader is gone.
    }
  } catch {
    // The stream's end is the run's business (`result`), not the bridge's.
  }
}

/**
 * What a failed source is reported as: this library's errors by their code and (redacted)
 * message, host paths hidden; anything else by a fixed message, since its text may hold what must not leave the host.
 */
export function sourceFailure(error: unknown): { code?: string; message: string } {
  if (AdaptorError.is(error)) return { code: error.code, message: clientErrorText(error.message) };
  return { message: "the event source failed" };
}
