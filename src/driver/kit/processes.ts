/**
 * The processes a driver owns: every one it started and has not yet reaped, a count of starts,
 * and the "driver closed" rule (no process starts after `close()`, and one that finished
 * starting while the driver closed is closed at once).
 */
import { ExecutableNotFoundError, ProviderError } from "../../errors/index.js";

/** What a driver reports about the processes it owns, for observability and tests. */
export interface ProcessStats {
  /** Pids of the processes alive now (standbys, runs, inspections). */
  live: number[];
  /** How many processes the driver has started since it was created. */
  started: number;
}

/** A connection over one owned child process. */
export interface OwnedConnection {
  readonly pid: number;
  /** False once the process exited or closing began. */
  readonly alive: boolean;
  /** Settles when the process has exited. */
  readonly exited: Promise<unknown>;
  /** Stops the process and reaps it; idempotent. */
  close(): Promise<void>;
}

/** How {@link OwnedProcesses.open} starts one connection. */
export type StartConnection<C extends OwnedConnection> = (track: (connection: C) => void) => Promise<C>;

/**
 * The live set of one driver. A driver passes `track` as the spawn callback of its connection
 * (so a process counts as owned from its spawn, before its handshake), and `close()` stops
 * every live one.
 */
export class OwnedProcesses<C extends OwnedConnection> {
  readonly #driverName: string;
  readonly #install: string | undefined;
  readonly #live = new Map<number, C>();
  #started = 0;
  #closed = false;

  /**
   * @param driverName - Names the driver in the `driver_closed` error (`"codex: the driver is closed"`).
   * @param install - How to install the executable, added to an `ExecutableNotFoundError`.
   */
  constructor(driverName: string, install?: string) {
    this.#driverName = driverName;
    this.#install = install;
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Pids alive now and the number of starts. */
  stats(): ProcessStats {
    return { live: [...this.#live.keys()], started: this.#started };
  }

  /** Counts a spawned process as owned until it exits. */
  readonly track = (connection: C): void => {
    this.#started++;
    this.#live.set(connection.pid, connection);
    void connection.exited.then(() => this.#live.delete(connection.pid));
  };

  /**
   * Starts one connection unless the driver is closed; a connection that finished starting while
   * the driver closed is closed and refused. Rejects with `driver_closed` (before delivery), or
   * with what `start` rejected with (a missing executable explained with the install hint).
   */
  async open<T extends C>(start: (track: (connection: C) => void) => Promise<T>): Promise<T> {
    if (this.#closed) throw this.#closedError();
    const connection = await start(this.track).catch((error: unknown) => {
      throw this.#install === undefined ? error : ExecutableNotFoundError.explain(error, this.#install);
    });
    if (this.#closed) {
      await connection.close();
      throw this.#closedError();
    }
    return connection;
  }

  /** Refuses new processes and closes every live one (waiting for all, even when one fails). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#live.values()].map((connection) => connection.close()));
  }

  #closedError(): ProviderError {
    return new ProviderError(`${this.#driverName}: the driver is closed`, { code: "driver_closed", phase: "before_delivery" });
  }
}
