/**
 * A warm connection kept by `prepare()` that exactly one run of the driver that made it may
 * claim. Drivers extend it with what their standby can tell or serve (e.g. which runs it fits).
 */
import type { StandbyHandle } from "../types.js";
import type { OwnedConnection } from "./processes.js";

/** A standby over one connection, claimable once, by its owner only, while the process lives. */
export class ClaimableStandby<C extends OwnedConnection> implements StandbyHandle {
  readonly #connection: C;
  readonly #owner: object;
  #claimed = false;

  /**
   * @param connection - The initialized connection the standby keeps.
   * @param owner - The driver that made it; only it may claim the standby.
   */
  constructor(connection: C, owner: object) {
    this.#connection = connection;
    this.#owner = owner;
  }

  get pid(): number {
    return this.#connection.pid;
  }

  isAlive(): boolean {
    return this.#connection.alive;
  }

  /** Whether a run already claimed the connection. */
  get claimed(): boolean {
    return this.#claimed;
  }

  /** Whether `owner` is the driver that made this standby. */
  ownedBy(owner: object): boolean {
    return owner === this.#owner;
  }

  /** Hands the connection to one run of its owner; undefined when claimed, gone or not the owner's. */
  claim(owner: object): C | undefined {
    if (owner !== this.#owner || this.#claimed || !this.#connection.alive) return undefined;
    this.#claimed = true;
    return this.#connection;
  }

  close(): Promise<void> {
    return this.#connection.close();
  }

  /** The kept connection, for a driver's read-only queries on it. */
  protected get connection(): C {
    return this.#connection;
  }
}
