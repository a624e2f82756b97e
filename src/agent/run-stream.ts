/**
 * The `RunStream` handed to hosts: an async iterable over one run's canonical events, with its
 * `result`. Breaking out of `for await` cancels the run and resolves only after the driver has
 * stopped, so its process is reclaimed by then.
 */
import type { AgentEvent, Result } from "../events/types.js";
import type { RunTimeline } from "../events/timeline.js";

export interface RunStream extends AsyncIterable<AgentEvent> {
  readonly runId: string;
  /** Settles once the terminal event is produced: resolves on `run.completed`, rejects otherwise. */
  readonly result: Promise<Result>;
  /** Cancel the run; it ends with `run.cancelled`. Idempotent. */
  cancel(reason?: string): void;
}

export class RunStreamImpl implements RunStream {
  readonly runId: string;
  readonly result: Promise<Result>;
  readonly #timeline: RunTimeline;
  readonly #settled: Promise<void>;
  readonly #cancel: (reason?: string) => void;
  #iterated = false;

  constructor(options: {
    timeline: RunTimeline;
    result: Promise<Result>;
    settled: Promise<void>;
    cancel: (reason?: string) => void;
  }) {
    this.runId = options.timeline.runId;
    this.#timeline = options.timeline;
    this.result = options.result;
    // Hosts that only iterate must not see an unhandled rejection; `result` still rejects.
    this.result.catch(() => undefined);
    this.#settled = options.settled;
    this.#cancel = options.cancel;
  }

  cancel(reason?: string): void {
    this.#cancel(reason);
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    if (this.#iterated) throw new TypeError("a run stream can be iterated only once");
    this.#iterated = true;
    const timeline = this.#timeline;
    /** The consumer stopped reading: the terminal the cancel produces is not read after that. */
    let returned = false;
    return {
      next: () => {
        if (returned) return Promise.resolve({ done: true, value: undefined });
        const queued = timeline.buffer.tryShift();
        if (queued !== undefined) return Promise.resolve({ done: false, value: queued });
        return timeline.buffer.shift().then((event) =>
          event === undefined ? { done: true, value: undefined } : { done: false, value: event },
        );
      },
      return: async () => {
        returned = true;
        if (!timeline.ended) this.#cancel("the consumer stopped reading");
        timeline.discard();
        await this.#settled;
        return { done: true, value: undefined };
      },
    };
  }
}
