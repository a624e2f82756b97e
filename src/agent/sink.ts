/**
 * The checked event sink a driver emits into (DESIGN §4–§5). It checks each event's shape, keeps
 * the order (nothing after the driver's terminal), holds the terminal back for core to publish
 * last, tells the thread about a provider session id before the event is published, and publishes
 * the rest — redacted unless it is model output — to the run's timeline, which stamps `seq`.
 */
import type { EventSink } from "../driver/types.js";
import { DriverContractError } from "../errors/index.js";
import type { RunTimeline } from "../events/timeline.js";
import type { DriverEvent } from "../events/types.js";
import { assertDriverEvent, DRIVER_TERMINAL_TYPES } from "../events/validate.js";
import { streamCutIndex, streamHoldLength, type Redactor } from "../redact/redact.js";
import type { AnnouncedTerminal } from "./outcome.js";
import { StopGate } from "./stop-gate.js";

/** Event types whose text is model output; every other event is redacted before publication. */
const CONTENT_EVENTS: ReadonlySet<string> = new Set(["message.delta", "message.completed", "reasoning.delta", "reasoning.completed"]);

export interface CheckedSinkOptions {
  driverId: string;
  timeline: RunTimeline;
  /** The run's current redactor (it gains the input placeholders once the inputs exist). */
  redactor(): Redactor;
  /** Called once, with the first violation; the run is aborted by it. */
  onViolation(error: DriverContractError): void;
  /** Sees every accepted non-terminal event, in order (the startup deadline). */
  observe(event: DriverEvent): void;
  /** Called when the driver announces its terminal. */
  onTerminal(): void;
  /** The thread's hook for a provider session id; awaited before `thread.bound` is published. */
  bound?: ((providerSessionId: string) => Promise<void>) | undefined;
  /** Whether the run is stopping: from then on only closings of open items are published. */
  stopping?: (() => boolean) | undefined;
}

/** The sink a driver sees, with what it observed for the outcome decision. */
export class CheckedSink implements EventSink {
  /** The terminal the driver announced. */
  announced: AnnouncedTerminal | undefined;
  /** The first contract violation. */
  contractError: DriverContractError | undefined;
  /** The last provider session id the driver reported. */
  providerSessionId: string | undefined;
  readonly #options: CheckedSinkOptions;
  readonly #gate = new StopGate();
  /**
   * Per open tool call, the end of its streamed output not yet published: each `tool.updated`
   * output is a delta redacted on its own, so a registered secret written across two deltas would
   * be matched in neither. The tail short enough to be the start of one waits for the next delta.
   */
  readonly #heldOutput = new Map<string, string>();

  constructor(options: CheckedSinkOptions) {
    this.#options = options;
  }

  // An arrow property and not async: the common case publishes synchronously and returns nothing
  // to await, and drivers may pass `sink.emit` around unbound.
  readonly emit = (event: DriverEvent): Promise<void> | undefined => {
    // Deltas are the bulk of every stream: checked and published without the general dispatch.
    // Model output, so never redacted; a delta is no terminal and no thread binding.
    const type = event.type;
    if (
      (type === "message.delta" || type === "reasoning.delta") &&
      typeof event.itemId === "string" &&
      typeof event.text === "string" &&
      this.contractError === undefined &&
      this.announced === undefined
    ) {
      try {
        this.#options.observe(event);
        if (!this.#gate.admit(event, this.#options.stopping?.() === true)) return undefined;
        return this.#options.timeline.publishDelta(event);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    try {
      if (this.contractError) throw this.contractError;
      try {
        assertDriverEvent(this.#options.driverId, event);
      } catch (error) {
        this.#violate(error as DriverContractError);
      }
      if (this.announced) this.#violate(new DriverContractError(this.#options.driverId, `emitted ${event.type} after its terminal event`));
      if (DRIVER_TERMINAL_TYPES.has(event.type)) {
        this.announced = event as AnnouncedTerminal;
        this.#options.onTerminal();
        return undefined;
      }
      this.#options.observe(event);
      // A stopping run is quiet: what the provider still streams is dropped here, before it
      // costs a redaction, a transcript entry or a place in the consumer's buffer.
      const quiet = !this.#gate.admit(event, this.#options.stopping?.() === true);
      if (event.type === "thread.bound") {
        this.providerSessionId = event.providerSessionId;
        const bound = this.#options.bound;
        if (bound) return bound(event.providerSessionId).then(() => (quiet ? undefined : this.publish(event)));
      }
      if (event.type === "tool.completed" && this.#heldOutput.size !== 0) {
        const tail = this.#releaseHeld(event.callId);
        const closing = quiet ? undefined : this.publish(event);
        return tail === undefined ? closing : closing === undefined ? tail : Promise.all([tail, closing]).then(() => undefined);
      }
      if (quiet) return undefined;
      return event.type === "tool.updated" && typeof event.output === "string" ? this.#publishToolOutput(event) : this.publish(event);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  /**
   * Publishes every tool output tail still held, redacted, in the order the calls first held one:
   * the run ends, with or without the calls' closings. Output the consumer's stream let through is
   * thus whole; on a stop it reaches the timeline (history, observers) as the stream is quiet.
   */
  flushHeldOutput(): Promise<void> | undefined {
    let last: Promise<void> | undefined;
    for (const callId of [...this.#heldOutput.keys()]) last = this.#releaseHeld(callId) ?? last;
    return last;
  }

  #publishToolOutput(event: Extract<DriverEvent, { type: "tool.updated" }>): Promise<void> | undefined {
    const redactor = this.#options.redactor();
    const hold = streamHoldLength(redactor);
    const carried = this.#heldOutput.get(event.callId);
    if (hold === 0 && carried === undefined) return this.publish(event);
    const output = carried === undefined ? event.output! : carried + event.output!;
    const cut = output.length <= hold ? 0 : streamCutIndex(redactor, output, output.length - hold);
    if (cut < output.length) this.#heldOutput.set(event.callId, output.slice(cut));
    else this.#heldOutput.delete(event.callId);
    if (cut === 0 && event.files === undefined) return undefined;
    const { output: _whole, ...rest } = event;
    return this.publish(cut === 0 ? rest : { ...rest, output: output.slice(0, cut) });
  }

  /** Publishes the held tail of a call's output, if any, as one more `tool.updated`. */
  #releaseHeld(callId: string): Promise<void> | undefined {
    const tail = this.#heldOutput.get(callId);
    if (tail === undefined) return undefined;
    this.#heldOutput.delete(callId);
    return this.publish({ type: "tool.updated", callId, output: tail });
  }

  /** Publish an accepted event: redacted unless it is model output; the timeline stamps `seq`. */
  publish(event: DriverEvent): Promise<void> | undefined {
    try {
      const published = CONTENT_EVENTS.has(event.type) ? event : this.#options.redactor().redactValue(event);
      return this.#options.timeline.publish(published as Parameters<RunTimeline["publish"]>[0]);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #violate(error: DriverContractError): never {
    if (this.contractError === undefined) {
      this.contractError = error;
      this.#options.onViolation(error);
    }
    throw error;
  }
}
