/**
 * Events as a bridge's remote client reads them. A run's failure and a session's error are
 * written for the host and may name the workspace, a store file or an executable; every bridge
 * that sends them to a client sends this form, with host paths read as `<path>` (as in the
 * attach server's answers and the A2A server's task failures).
 */
import type { AgentEvent } from "../../events/types.js";
import { hidePaths } from "../../redact/hide-paths.js";
import type { SessionNotice } from "../../session/types.js";

/** An error's text as a remote client may read it: host paths hidden. */
export function clientErrorText(message: string): string {
  return hidePaths(message);
}

/**
 * `event` with the host paths of its error text hidden (`run.failed`'s `error.message`,
 * `session.error`'s `message`); any other event, or one with nothing to hide, is returned as is.
 */
export function clientEvent<E extends AgentEvent | SessionNotice>(event: E): E {
  if (event.type === "run.failed") {
    const failed = event as Extract<AgentEvent, { type: "run.failed" }>;
    const message = clientErrorText(failed.error.message);
    return message === failed.error.message ? event : ({ ...failed, error: { ...failed.error, message } } as E);
  }
  if (event.type === "session.error") {
    const error = event as Extract<SessionNotice, { type: "session.error" }>;
    const message = clientErrorText(error.message);
    return message === error.message ? event : ({ ...error, message } as E);
  }
  return event;
}
