/**
 * One canonical run served over one or more AG-UI runs. It reads the run's stream until the
 * terminal event, or until an approval or question the client must answer: then the AG-UI run
 * ends with an interrupt and the canonical run waits, unread, for the request resuming it.
 */
import type { RunStream } from "../../agent/run-stream.js";
import type { AgentEvent, EventOf } from "../../events/types.js";
import { isTerminalEvent } from "../../events/types.js";
import type { AgUiEvent } from "./events.js";
import { AgUiTranslator } from "./translate.js";

export interface PausedRunOptions {
  threadId: string;
  /** Approvals become interrupts (the call's `onApproval` is `"stream"`). */
  interruptApprovals: boolean;
  /** Questions become interrupts (the call's `onUserInput` is `"stream"`). */
  interruptQuestions: boolean;
  /** How long a paused run waits for its resume. */
  interruptTimeoutMs: number;
  /** Called when a segment ends on an interrupt (`requestId`) or with the run (`undefined`). */
  onSegmentEnd(run: PausableRun, requestId: string | undefined): void;
}

type Request = EventOf<"approval.requested"> | EventOf<"question.requested">;

export class PausableRun {
  readonly stream: RunStream;
  readonly threadId: string;
  readonly #iterator: AsyncIterator<AgentEvent>;
  readonly #translator: AgUiTranslator;
  readonly #options: PausedRunOptions;
  /** What each pending interrupt is: its reason decides how a resume answers it. */
  readonly reasons = new Map<string, string>();
  #ended = false;

  constructor(stream: RunStream, options: PausedRunOptions) {
    this.stream = stream;
    this.threadId = options.threadId;
    this.#iterator = stream[Symbol.asyncIterator]();
    this.#translator = new AgUiTranslator({ threadId: options.threadId });
    this.#options = options;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** One AG-UI run: from `RUN_STARTED` to the canonical terminal, or to the next interrupt. */
  async *segment(runId: string, input: unknown, state: Record<string, unknown>): AsyncGenerator<AgUiEvent, void, undefined> {
    yield* this.#translator.begin(runId, input, state);
    for (;;) {
      const next = await this.#iterator.next();
      if (next.done) {
        this.#end();
        yield* this.#translator.unterminated("the run's stream ended without a terminal event");
        return;
      }
      const event = next.value;
      yield* this.#translator.translate(event);
      if (isTerminalEvent(event)) {
        this.#end();
        return;
      }
      if (this.#pausesOn(event)) {
        const expiresAt = new Date(Date.now() + this.#options.interruptTimeoutMs);
        yield* this.#translator.interrupt(event, expiresAt);
        this.reasons.set(event.requestId, event.type === "approval.requested" ? "tool_approval" : "user_input");
        this.#options.onSegmentEnd(this, event.requestId);
        return;
      }
    }
  }

  /** Cancel the run and wait until it has ended (its process reaped). */
  async cancel(reason: string): Promise<void> {
    this.stream.cancel(reason);
    this.#end();
    await this.#iterator.return?.();
  }

  #pausesOn(event: AgentEvent): event is Request {
    return (event.type === "approval.requested" && this.#options.interruptApprovals) || (event.type === "question.requested" && this.#options.interruptQuestions);
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#options.onSegmentEnd(this, undefined);
  }
}
