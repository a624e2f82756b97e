/**
 * The ordered emit chain of one run: every event goes through one promise chain, so events keep
 * their order whoever raises them and a slow consumer pauses the reader (it awaits its emit).
 */
import type { EventSink } from "../types.js";
import type { DriverEvent } from "../../events/types.js";

const TERMINAL_TYPES: ReadonlySet<string> = new Set(["run.completed", "run.cancelled", "run.failed"]);

/**
 * Serializes `sink.emit` for one run. After a terminal event nothing more is emitted (what a
 * retiring process still says is no event of a run that has ended); after the sink fails once,
 * later events are dropped and {@link OrderedEmitter.drain} rethrows the first failure.
 */
export class OrderedEmitter {
  readonly #sink: EventSink;
  #chain: Promise<void> = Promise.resolve();
  #failure: unknown;
  #failed = false;
  #terminalEmitted = false;

  constructor(sink: EventSink) {
    this.#sink = sink;
  }

  /** Queues one event; resolves when the sink took it (rejects with the sink's failure). */
  readonly emit = (event: DriverEvent): Promise<void> => {
    if (this.#terminalEmitted) return Promise.resolve();
    if (TERMINAL_TYPES.has(event.type)) this.#terminalEmitted = true;
    const next = this.#chain.then(() => (this.#failed ? undefined : this.#sink.emit(event)));
    this.#chain = next.catch((error: unknown) => {
      if (this.#failed) return;
      this.#failed = true;
      this.#failure = error;
    });
    return next;
  };

  /** Whether a terminal event (`run.completed`, `run.cancelled`, `run.failed`) was queued. */
  get terminalEmitted(): boolean {
    return this.#terminalEmitted;
  }

  /** Resolves when every queued event was handed to the sink (or dropped after a failure). */
  settled(): Promise<void> {
    return this.#chain;
  }

  /** Waits for every queued event; rejects with the sink's first failure, if any. */
  async drain(): Promise<void> {
    await this.#chain;
    if (this.#failed) throw this.#failure;
  }
}
