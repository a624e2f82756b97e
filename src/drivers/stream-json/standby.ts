/**
 * An initialized, unbound CLI process kept by `prepare()`: `initialize` was answered, no user
 * message was sent, so no session exists yet. The first compatible run takes it and sends its
 * prompt; the process then serves that run only and is retired with it.
 */
import type { StandbyHandle } from "../../driver/types.js";
import type { StreamJsonProcess } from "./process.js";

export class StreamJsonStandby implements StandbyHandle {
  readonly #proc: StreamJsonProcess;
  readonly #owner: object;
  #taken = false;

  constructor(proc: StreamJsonProcess, owner: object) {
    this.#proc = proc;
    this.#owner = owner;
  }

  get pid(): number {
    return this.#proc.pid;
  }

  isAlive(): boolean {
    return this.#proc.alive;
  }

  /** Hands the process to one run of the driver that made it; undefined when gone or taken. */
  take(owner: object): StreamJsonProcess | undefined {
    if (owner !== this.#owner || this.#taken || !this.#proc.alive) return undefined;
    this.#taken = true;
    return this.#proc;
  }

  close(): Promise<void> {
    return this.#proc.stop();
  }
}
