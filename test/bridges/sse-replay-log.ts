/**
 * A small replayable event log for the SSE resume tests: it reads one run's stream to its end and
 * numbers every event from 1 like a session log, and `events({ after, signal })` replays what it
 * holds after `after`, then follows live. The session runtime's `Session.events` has the same
 * shape; this stands in where a test needs only the log.
 */
import type { RunStream } from "../../src/agent/run-stream.js";
import type { SessionEvent } from "../../src/session/types.js";

export class ReplayLog {
  readonly entries: SessionEvent[] = [];
  readonly done: Promise<void>;
  #waiters: (() => void)[] = [];
  #ended = false;
  /** Live `events()` iterations now open. */
  subscribers = 0;

  constructor(stream: RunStream, readonly sessionId = "ses_test") {
    this.done = this.#record(stream);
  }

  async #record(stream: RunStream): Promise<void> {
    for await (const event of stream) {
      this.entries.push({ seq: this.entries.length + 1, sessionId: this.sessionId, at: event.at, event });
      this.#wake();
    }
    this.#ended = true;
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async *events(options: { after?: number; signal?: AbortSignal } = {}): AsyncGenerator<SessionEvent> {
    let next = options.after ?? 0;
    const signal = options.signal;
    this.subscribers++;
    try {
      for (;;) {
        while (next < this.entries.length) {
          if (signal?.aborted) return;
          yield this.entries[next++]!;
        }
        if (this.#ended || signal?.aborted) return;
        await new Promise<void>((resolve) => {
          this.#waiters.push(resolve);
          signal?.addEventListener("abort", () => resolve(), { once: true });
        });
      }
    } finally {
      this.subscribers--;
    }
  }
}
