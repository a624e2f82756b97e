/**
 * The lifecycle a process-backed driver shares: the processes it owns, `inspect()` and
 * `prepare()` over connections it starts for them, its process stats and `close()`. A driver
 * extends it with its descriptor, config, runs and what its inspection reads.
 */
import type { InspectRequest, InspectResponse, PrepareRequest, PrepareResponse, StandbyHandle } from "../types.js";
import { ConnectionInspector, type ConnectionInspection } from "./inspect.js";
import { OwnedProcesses, type OwnedConnection, type ProcessStats } from "./processes.js";

/** The shared half of a driver whose every connection is a child process it owns. */
export abstract class ProcessBackedDriver<C extends OwnedConnection> {
  /** Every process the driver started and has not reaped; start connections through `owned.open`. */
  protected readonly owned: OwnedProcesses<C>;
  readonly #inspector: ConnectionInspector<C>;

  /**
   * @param driverName - Names the driver in its `driver_closed` errors.
   * @param install - How to install the executable, added to an `ExecutableNotFoundError`.
   */
  protected constructor(driverName: string, install?: string) {
    this.owned = new OwnedProcesses<C>(driverName, install);
    this.#inspector = new ConnectionInspector<C>({
      inspection: (request, signal, keep) => this.inspection(request, signal, keep),
      standby: (connection) => this.standby(connection),
    });
  }

  /** How to inspect for one request; `keep` is true when `prepare()` asks. */
  protected abstract inspection(request: InspectRequest, signal: AbortSignal, keep: boolean): ConnectionInspection<C>;

  /** The driver's standby over a connection `prepare()` kept. */
  protected abstract standby(connection: C): StandbyHandle;

  /** Zero-prompt inspection over a transient connection. */
  inspect(request: InspectRequest, signal: AbortSignal): Promise<InspectResponse> {
    return this.#inspector.inspect(request, signal);
  }

  /** Inspection whose connection is kept as a standby when it is still alive. */
  prepare(request: PrepareRequest, signal: AbortSignal): Promise<PrepareResponse> {
    return this.#inspector.prepare(request, signal);
  }

  /** Processes the driver owns now and has started. */
  processes(): ProcessStats {
    return this.owned.stats();
  }

  /** Refuses new processes and reaps every live one. */
  close(): Promise<void> {
    return this.owned.close();
  }
}
