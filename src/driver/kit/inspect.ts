/**
 * Inspection over a connection the driver starts for it, and `prepare()` keeping that connection
 * as a standby. A connection that cannot be started becomes every panel unavailable (with a
 * reason code, never the path tried); only an invalid config and a closed driver are thrown.
 */
import { AdaptorError, ExecutableNotFoundError } from "../../errors/index.js";
import type { Redactor } from "../../redact/redact.js";
import { errorText } from "../json.js";
import { allUnavailable } from "../observations.js";
import type { InspectRequest, InspectResponse, PrepareRequest, PrepareResponse, StandbyHandle } from "../types.js";
import type { OwnedConnection } from "./processes.js";

/** Codes of start failures reported as they are; any other failure is `provider_error`. */
const REPORTED_START_CODES: readonly string[] = ["executable_not_found", "timeout"];

/** How one driver inspects over a connection. */
export interface ConnectionInspection<C extends OwnedConnection> {
  /** Starts a connection (through the driver's {@link OwnedProcesses.open}). */
  open(): Promise<C>;
  /** Reads every panel over the started connection. */
  inspect(connection: C): Promise<Omit<InspectResponse, "secrets">>;
  /** The secrets the inspection names (`InspectResponse.secrets`). */
  secrets: string[];
  /** Scrubs the failure message of a connection that could not be started. */
  redactor: Redactor;
  /** More start-failure codes to report as they are (e.g. `auth_required`). */
  reportedCodes?: readonly string[];
  /** The message for a start failure that is no typed error (default: its text). */
  describeUntyped?(error: unknown): string;
}

/** An inspection, and the connection it ran on when it was kept. */
export interface InspectionOutcome<C> {
  inspection: InspectResponse;
  connection?: C;
}

/**
 * Inspects over a fresh connection. With `keep`, a connection still alive afterwards is returned
 * for a standby; otherwise its stopping starts now and the reaping finishes in the background
 * (the driver's `close()` waits for it), so the caller does not pay for the process's exit.
 */
export async function inspectOverConnection<C extends OwnedConnection>(
  how: ConnectionInspection<C>,
  signal: AbortSignal,
  keep: boolean,
): Promise<InspectionOutcome<C>> {
  const secrets = how.secrets;
  let connection: C;
  try {
    connection = await how.open();
  } catch (error) {
    signal.throwIfAborted();
    if (AdaptorError.is(error) && (error.code === "config_invalid" || error.code === "driver_closed")) throw error;
    const { code, message } = startFailure(error, how);
    return { inspection: { ...allUnavailable(code, how.redactor.redactText(message)), secrets } };
  }
  try {
    const panels = await how.inspect(connection);
    if (keep && connection.alive) return { inspection: { ...panels, secrets }, connection };
    void connection.close();
    return { inspection: { ...panels, secrets } };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

function startFailure(error: unknown, how: ConnectionInspection<OwnedConnection>): { code: string; message: string } {
  // Without the path tried: a snapshot may be shown beyond the operator.
  if (error instanceof ExecutableNotFoundError) return { code: "executable_not_found", message: error.summary };
  if (AdaptorError.is(error)) {
    const reported = REPORTED_START_CODES.includes(error.code) || (how.reportedCodes ?? []).includes(error.code);
    return { code: reported ? error.code : "provider_error", message: errorText(error) };
  }
  return { code: "provider_error", message: how.describeUntyped?.(error) ?? errorText(error) };
}

/**
 * The `prepare()` answer for an inspection outcome: `ready` with a standby over the kept
 * connection, or `transient`. A prepare aborted meanwhile closes the connection and rejects.
 */
export async function keepAsStandby<C extends OwnedConnection>(
  outcome: InspectionOutcome<C>,
  signal: AbortSignal,
  standby: (connection: C) => StandbyHandle,
): Promise<PrepareResponse> {
  const { inspection, connection } = outcome;
  if (connection === undefined) return { inspection, process: "transient" };
  if (signal.aborted) {
    await connection.close();
    signal.throwIfAborted();
  }
  return { inspection, process: "ready", standby: standby(connection) };
}

/** What a driver gives {@link ConnectionInspector}: how to inspect for one request, and its standby. */
export interface InspectorSetup<C extends OwnedConnection> {
  /** The inspection for one request; `keep` is true when `prepare()` asks (the connection may become a standby). */
  inspection(request: InspectRequest, signal: AbortSignal, keep: boolean): ConnectionInspection<C>;
  /** The driver's standby over a kept connection. */
  standby(connection: C): StandbyHandle;
}

/** A driver's `inspect()` and `prepare()` over connections it starts for them. */
export class ConnectionInspector<C extends OwnedConnection> {
  readonly #setup: InspectorSetup<C>;

  constructor(setup: InspectorSetup<C>) {
    this.#setup = setup;
  }

  /** Inspects over a transient connection. */
  async inspect(request: InspectRequest, signal: AbortSignal): Promise<InspectResponse> {
    return (await inspectOverConnection(this.#setup.inspection(request, signal, false), signal, false)).inspection;
  }

  /** Inspects, and keeps the connection as the driver's standby when it is still alive. */
  async prepare(request: PrepareRequest, signal: AbortSignal): Promise<PrepareResponse> {
    const outcome = await inspectOverConnection(this.#setup.inspection(request, signal, true), signal, true);
    return keepAsStandby(outcome, signal, (connection) => this.#setup.standby(connection));
  }
}
