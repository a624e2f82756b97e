/**
 * The ordered emit chain of one run: every event goes through one promise chain, so events keep
 * their order whoever raises them and a slow consumer pauses the reader (it awaits its emit).
 */
import type { EventSink } from "../types.js";
import type { DriverEvent } from "../../events/types.js";

const TERMINAL_TYPES: ReadonlySet<string> = new Set(["run.completed", "run.cancelled", "run.failed"]);
const RESOLVED: Promise<void> = Promise.resolve();

/**
 * Serializes `sink.emit` for one run. After a terminal event nothing more is emitted (what a
 * retiring process still says is no event of a run that has ended); after the sink fails once,
 * later events are dropped and {@link OrderedEmitter.drain} rethrows the first failure.
 */
export class OrderedEmitter {
  readonly #sink: EventSink;
  #chain: Promise<void> = RESOLVED;
  /** Events whose `sink.emit` is queued or still pending; while any are, new ones queue behind. */
  #waiting = 0;
  #failure: unknown;
  #failed = false;
  #terminalEmitted = false;

  constructor(sink: EventSink) {
    this.#sink = sink;
  }

  /** Queues one event; resolves when the sink took it (rejects with the sink's failure). */
  readonly emit = (event: DriverEvent): Promise<void> => this.offer(event) ?? RESOLVED;

  /**
   * {@link OrderedEmitter.emit} without a promise when the sink took the event at once (nothing
   * queued before it, the consumer keeping up): the hot path of a streaming run.
   */
  readonly offer = (event: DriverEvent): Promise<void> | undefined => {
    if (this.#terminalEmitted) return undefined;
    if (TERMINAL_TYPES.has(event.type)) this.#terminalEmitted = true;
    if (this.#waiting === 0) {
      if (this.#failed) return undefined;
      let taking: Promise<void> | undefined;
      try {
        taking = this.#sink.emit(event);
      } catch (error) {
        taking = Promise.reject(error);
      }
      return taking === undefined ? undefined : this.#wait(taking);
    }
    return this.#wait(this.#chain.then(() => (this.#failed ? undefined : this.#sink.emit(event))));
  };

  #wait(taking: Promise<void>): Promise<void> {
    this.#waiting++;
    this.#chain = taking.then(
      () => {
        this.#waiting--;
      },
      (error: unknown) => {
        this.#waiting--;
        if (this.#failed) return;
        this.#failed = true;
        this.#failure = error;
      },
    );
    return taking;
  }

  /** Whether a terminal event (`run.completed`, `run.cancelled`, `run.failed`) was queued. */
  get terminalEmitted(): boolean {
    return this.#terminalEmitted;
  }

  /** Resolves when every queued event was handed to the sink (or dropped after a failure). */
  settled(): Promise<void> {
    return this.#chain;
  }

  /**
   * What a run that failed with `error` throws, once every queued event has settled: the abort
   * reason when it was aborted before a terminal event was queued, else `error`.
   */
  async failure(error: unknown, signal: AbortSignal): Promise<unknown> {
    await this.#chain;
    if (signal.aborted && !this.#terminalEmitted) return signal.reason ?? new Error("aborted");
    return error;
  }

  /** Waits for every queued event; rejects with the sink's first failure, if any. */
  async drain(): Promise<void> {
    await this.#chain;
    if (this.#failed) throw this.#failure;
  }
}
