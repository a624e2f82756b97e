/**
 * An initialized, unbound CLI process kept by `prepare()`: `initialize` was answered, no user
 * message was sent, so no session exists yet. The first compatible run claims it and sends its
 * prompt; the process then serves that run only and is retired with it.
 */
import { ClaimableStandby } from "../../driver/kit/standby.js";
import type { StreamJsonProcess } from "./process.js";

export class StreamJsonStandby extends ClaimableStandby<StreamJsonProcess> {}
