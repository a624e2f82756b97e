/**
 * One run served as one A2A task. A reader drains the run's stream from start to end — the run
 * never stalls on an unread buffer — and publishes each mapped event on the bus of the request
 * now being served; while no request is served (the task waits for input), the events are kept
 * and published first to the next one. A request is served until the task next stops: it turns
 * `input-required` or ends.
 */
import type { ExecutionEventBus, AgentExecutionEvent } from "@a2a-js/sdk/server";
import type { RunStream } from "../../../agent/run-stream.js";
import type { AgentEvent } from "../../../events/types.js";
import type { PendingRequest } from "./answers.js";
import { EventMapper } from "./map-events.js";
import { textPart, type TaskObjects } from "./objects.js";

export class TaskRun {
  readonly stream: RunStream;
  readonly objects: TaskObjects;
  readonly #mapper: EventMapper;
  #bus: ExecutionEventBus | undefined;
  #backlog: AgentExecutionEvent[] = [];
  #waiters: (() => void)[] = [];
  #pending: PendingRequest | undefined;
  #ended = false;
  #terminal = false;
  /** Settles when the reader has read the terminal event (or the stream failed). */
  readonly done: Promise<void>;

  constructor(stream: RunStream, objects: TaskObjects) {
    this.stream = stream;
    this.objects = objects;
    this.#mapper = new EventMapper(objects);
    this.done = this.#read();
  }

  /** The request the task waits on, while it is `input-required`. */
  get pending(): PendingRequest | undefined {
    return this.#pending;
  }

  get ended(): boolean {
    return this.#ended;
  }

  async #read(): Promise<void> {
    try {
      for await (const event of this.stream) this.#take(event);
    } catch {
      // The stream ends with its terminal event; an error reading it is reported below.
    } finally {
      if (!this.#terminal) {
        const s = this.objects.states;
        this.#publish(this.objects.status(s.TASK_STATE_FAILED, this.objects.agentMessage([textPart("the run's event stream failed")])));
      }
      this.#ended = true;
      this.#stop();
    }
  }

  #take(event: AgentEvent): void {
    if (event.type === "approval.requested") this.#pending = { type: "approval", requestId: event.requestId, options: event.options };
    else if (event.type === "question.requested") this.#pending = { type: "question", requestId: event.requestId, questions: event.questions };
    else if ((event.type === "approval.resolved" || event.type === "question.resolved") && this.#pending?.requestId === event.requestId) this.#pending = undefined;
    const mapped = this.#mapper.map(event);
    for (const a2aEvent of mapped.events) this.#publish(a2aEvent);
    if (mapped.stop === "end") this.#terminal = true;
    if (mapped.stop !== undefined) this.#stop();
  }

  #publish(event: AgentExecutionEvent): void {
    if (this.#bus !== undefined) this.#bus.publish(event);
    else this.#backlog.push(event);
  }

  /** The caller's stream ended at this event: later events wait for the next request. */
  #stop(): void {
    this.#bus = undefined;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Serve one request on `bus`: publish what was kept, run `action` (an answer, a cancel), and
   * resolve once the task next stops. `action` may publish on the bus itself (an answer refused).
   */
  async serve(bus: ExecutionEventBus, action?: (publish: (event: AgentExecutionEvent) => void) => "wait" | "stop"): Promise<void> {
    const stopped = new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#bus = bus;
    // The caller's stream ends at the first stop it sees: publish up to it, keep the rest.
    const backlog = this.#backlog;
    const stop = backlog.findIndex(isStop);
    this.#backlog = stop === -1 ? [] : backlog.slice(stop + 1);
    for (const event of stop === -1 ? backlog : backlog.slice(0, stop + 1)) bus.publish(event);
    if (stop !== -1 || this.#ended) {
      this.#stop();
      return;
    }
    if (action?.((event) => bus.publish(event)) === "stop") {
      this.#stop();
      return;
    }
    await stopped;
  }
}

function isStop(event: AgentExecutionEvent): boolean {
  if (event.kind !== "statusUpdate") return false;
  const state = event.data.status?.state;
  // TASK_STATE_COMPLETED .. TASK_STATE_REJECTED and AUTH_REQUIRED are stops; WORKING (2) and SUBMITTED (1) are not.
  return state !== undefined && state > 2;
}
