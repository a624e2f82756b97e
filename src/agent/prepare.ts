/**
 * The prepare coordinator (DESIGN §7): concurrent calls share one pipeline run; each caller's
 * cancellation is independent; when every waiter has gone, the shared work is aborted. A
 * successful report is reused while what it promised (a live standby) still holds.
 */
import type { StandbyHandle } from "../driver/types.js";
import type { PrepareReport } from "../inspect/types.js";

/** The single standby slot, keyed by a compatibility signature. Claiming is atomic. */
export class StandbySlot {
  #entry: { signature: string; handle: StandbyHandle } | undefined;

  /** Retain a standby, closing any previous one. */
  async put(signature: string, handle: StandbyHandle): Promise<void> {
    const previous = this.#entry;
    this.#entry = { signature, handle };
    if (previous && previous.handle !== handle) await previous.handle.close();
  }

  /**
   * Take the standby for one run if it matches, is alive and `canServe` the run; otherwise leave
   * it for a later run (a dead one is dropped). Never hands out the same one twice.
   */
  claim(signature: string, canServe: (standby: StandbyHandle) => boolean = () => true): StandbyHandle | undefined {
    const entry = this.#entry;
    if (!entry || entry.signature !== signature) return undefined;
    if (!entry.handle.isAlive()) {
      this.#entry = undefined;
      void entry.handle.close();
      return undefined;
    }
    if (!canServe(entry.handle)) return undefined;
    this.#entry = undefined;
    return entry.handle;
  }

  /** Whether no standby is kept (a claim would find none). */
  get empty(): boolean {
    return this.#entry === undefined;
  }

  holds(handle: StandbyHandle | undefined): boolean {
    return handle !== undefined && this.#entry?.handle === handle && handle.isAlive();
  }

  async clear(): Promise<void> {
    const entry = this.#entry;
    this.#entry = undefined;
    await entry?.handle.close();
  }
}

interface PrepareJob {
  promise: Promise<{ report: PrepareReport; standby?: StandbyHandle }>;
  controller: AbortController;
  waiters: number;
}

export class PrepareCoordinator {
  readonly #work: (signal: AbortSignal) => Promise<{ report: PrepareReport; standby?: StandbyHandle }>;
  readonly #slot: StandbySlot;
  #job: PrepareJob | undefined;
  #last: { report: PrepareReport; standby?: StandbyHandle } | undefined;

  constructor(slot: StandbySlot, work: (signal: AbortSignal) => Promise<{ report: PrepareReport; standby?: StandbyHandle }>) {
    this.#slot = slot;
    this.#work = work;
  }

  async prepare(signal: AbortSignal | undefined): Promise<PrepareReport> {
    signal?.throwIfAborted();
    if (this.#last && this.#stillValid(this.#last)) return structuredClone(this.#last.report);
    const job = this.#job ?? this.#startJob();
    job.waiters++;
    try {
      const outcome = await raceAbort(job.promise, signal);
      this.#last = outcome;
      return structuredClone(outcome.report);
    } finally {
      job.waiters--;
      if (job.waiters === 0 && this.#job === job) job.controller.abort(signal?.reason);
    }
  }

  /** Abort any in-flight preparation (on close). */
  abort(reason: unknown): void {
    this.#job?.controller.abort(reason);
    this.#last = undefined;
  }

  #stillValid(outcome: { report: PrepareReport; standby?: StandbyHandle }): boolean {
    return outcome.report.process !== "ready" || this.#slot.holds(outcome.standby);
  }

  #startJob(): PrepareJob {
    const controller = new AbortController();
    const job: PrepareJob = {
      controller,
      waiters: 0,
      promise: this.#work(controller.signal).finally(() => {
        if (this.#job === job) this.#job = undefined;
      }),
    };
    job.promise.catch(() => undefined);
    this.#job = job;
    return job;
  }
}

/** Resolve with `promise`, or reject as soon as `signal` aborts (without cancelling `promise`). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
