/**
 * An initialized, unbound CLI process kept by `prepare()`: `initialize` was answered, no user
 * message was sent, so no session exists yet. The first compatible run claims it and sends its
 * prompt; the process then serves that run only and is retired with it.
 */
import { ClaimableStandby } from "../../driver/kit/standby.js";
import type { HostToolsEndpoint } from "../../driver/types.js";
import type { StreamJsonProcess } from "./process.js";

export class StreamJsonStandby extends ClaimableStandby<StreamJsonProcess> {
  /** The host-tools endpoint the process registered at start, if any. */
  get hostTools(): HostToolsEndpoint | undefined {
    return this.connection.hostTools;
  }
}

/**
 * A thread's warm writer (`RunResponse.writer`): a CLI process whose completed turn left it in
 * `session`; the thread's next user line continues that session, with no spawn and no `--resume`.
 */
export class StreamJsonWriter extends ClaimableStandby<StreamJsonProcess> {
  constructor(process: StreamJsonProcess, owner: object, readonly session: string) {
    super(process, owner);
  }

  /** The host-tools endpoint the process registered at start, if any. */
  get hostTools(): HostToolsEndpoint | undefined {
    return this.connection.hostTools;
  }
}
