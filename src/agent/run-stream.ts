/**
 * The `RunStream` handed to hosts: an async iterable over one run's canonical events, with its
 * `result`. Breaking out of `for await` cancels the run and resolves only after the driver has
 * stopped, so its process is reclaimed by then.
 */
import type { AgentEvent, ApprovalResponse, Result } from "../events/types.js";
import type { RunTimeline } from "../events/timeline.js";
import type { MidRunInput } from "./mid-run.js";
import type { HostAnswers } from "./host-bridge.js";
import { StopGate } from "./stop-gate.js";

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** `T`: the type of `result.structured`, from the call's `output` (see `StructuredOf`). */
export interface RunStream<T = unknown> extends AsyncIterable<AgentEvent> {
  readonly runId: string;
  /**
   * Settles once the terminal event is produced: resolves on `run.completed`, rejects otherwise.
   * Under the default `block` overflow a run whose events fill the buffer waits for its reader:
   * read the stream too (or call `run()`), or `result` waits until the run is cancelled.
   */
  readonly result: Promise<Result<T>>;
  /** Cancel the run; it ends with `run.cancelled`. Idempotent. */
  cancel(reason?: string): void;
  /**
   * Deliver `text` to the running turn at its next safe point (natively: Codex `turn/steer`, Pi's
   * `steer`). Rejects with `FeatureUnsupportedError` when `descriptor().features.steer` is not
   * `"native"`, and with `steer_rejected` once the run has ended.
   */
  steer(text: string): Promise<"native">;
  /**
   * Queue `text` for when the run would otherwise end; the same run goes on with it as the next
   * user message. Rejects with `FeatureUnsupportedError` when the driver has no follow-up queue
   * (`Driver.followUp`), and with `steer_rejected` once the run has ended.
   */
  followUp(text: string): Promise<void>;
  /**
   * Answer the pending approval `requestId` (from `approval.requested`) with a decision, or with
   * `{ optionId }` selecting one of its offered options. The first answer wins — this one, the
   * handler's, a cancel's or the timeout's. Throws `ResponseRejectedError` at once when refused:
   * `request_not_pending` (unknown id, or already settled), `approval_timeout`, or
   * `response_invalid` (an option it did not offer, a decision contradicting the option's kind).
   */
  respond(requestId: string, decision: ApprovalResponse): void;
  /**
   * Answer the pending question request `requestId` (from `question.requested`): one value per
   * question id, several for a multi-select question. Refused like {@link RunStream.respond}.
   */
  answer(requestId: string, answers: Record<string, string | string[]>): void;
  /** Decline the pending question request `requestId`. Refused like {@link RunStream.respond}. */
  decline(requestId: string): void;
}

/** Streams drained by `run()`: their host has no stream to answer requests from. */
const drainedByRun = new WeakSet<RunStream>();

/** Whether `run()` drains this stream (so requests cannot be answered from it). */
export function isDrainedByRun(stream: RunStream): boolean {
  return drainedByRun.has(stream);
}

/** `run()`: the stream drained to its result; approvals set to `"stream"` are then denied by policy. */
export async function drainRun<T>(stream: RunStream<T>): Promise<Result<T>> {
  drainedByRun.add(stream);
  // Draining is what lets the run make progress under the `block` overflow policy.
  if (stream instanceof RunStreamImpl) await stream.drain();
  else {
    for await (const _event of stream) {
      // Read and dropped.
    }
  }
  return stream.result;
}

export class RunStreamImpl implements RunStream {
  readonly runId: string;
  readonly result: Promise<Result>;
  readonly #timeline: RunTimeline;
  readonly #settled: Promise<void>;
  readonly #cancel: (reason?: string) => void;
  readonly #input: MidRunInput;
  readonly #stopping: () => boolean;
  readonly #answers: HostAnswers;
  #iterated = false;

  constructor(options: {
    timeline: RunTimeline;
    result: Promise<Result>;
    settled: Promise<void>;
    cancel: (reason?: string) => void;
    input: MidRunInput;
    answers: HostAnswers;
    /** Whether the run is stopping: events queued before the stop are then read quietly. */
    stopping?: () => boolean;
  }) {
    this.runId = options.timeline.runId;
    this.#timeline = options.timeline;
    this.result = options.result;
    // Hosts that only iterate must not see an unhandled rejection; `result` still rejects.
    this.result.catch(() => undefined);
    this.#settled = options.settled;
    this.#cancel = options.cancel;
    this.#input = options.input;
    this.#answers = options.answers;
    this.#stopping = options.stopping ?? (() => false);
  }

  cancel(reason?: string): void {
    this.#cancel(reason);
  }

  steer(text: string): Promise<"native"> {
    return this.#input.steer(text);
  }

  followUp(text: string): Promise<void> {
    return this.#input.followUp(text);
  }

  respond(requestId: string, decision: ApprovalResponse): void {
    this.#answers.respond(requestId, decision);
  }

  answer(requestId: string, answers: Record<string, string | string[]>): void {
    this.#answers.answer(requestId, answers);
  }

  decline(requestId: string): void {
    this.#answers.decline(requestId);
  }

  /**
   * Reads every event to the end and drops it, as iterating would, but in bulk: it wakes only when
   * the buffer is full (so the run never waits for it long) or closed, and then empties it at once.
   * The stop gate is not consulted, as it only decides which events a reader sees.
   */
  async drain(): Promise<void> {
    this.#claimIteration();
    this.#timeline.eventsUnread();
    const buffer = this.#timeline.buffer;
    for (;;) {
      while (buffer.tryShift() !== undefined) {
        // Dropped.
      }
      if (buffer.closed) return;
      await buffer.filledOrClosed();
    }
  }

  #claimIteration(): void {
    if (this.#iterated) throw new TypeError("a run stream can be iterated only once");
    this.#iterated = true;
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    this.#claimIteration();
    const timeline = this.#timeline;
    const stopping = this.#stopping;
    // Events the buffer still holds when the run stops were published before it: they are read
    // through the same quiet-stop rule as the sink's, so no delta or new item follows the stop.
    const gate = new StopGate();
    /** The consumer stopped reading: the terminal the cancel produces is not read after that. */
    let returned = false;
    const next = (): Promise<IteratorResult<AgentEvent>> => {
      if (returned) return Promise.resolve(DONE);
      for (let queued = timeline.buffer.tryShift(); queued !== undefined; queued = timeline.buffer.tryShift()) {
        if (gate.admit(queued, stopping())) return Promise.resolve({ done: false, value: queued });
      }
      return timeline.buffer.shift().then((event) => {
        if (event === undefined) return DONE;
        return gate.admit(event, stopping()) ? { done: false, value: event } : next();
      });
    };
    return {
      next,
      return: async () => {
        returned = true;
        if (!timeline.ended) this.#cancel("the consumer stopped reading");
        timeline.discard();
        await this.#settled;
        return DONE;
      },
    };
  }
}
