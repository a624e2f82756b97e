/** The session `/new`, `/resume` and `/fork` open when the host gives no `openSession`. */
import type { Agent } from "../../agent/agent.js";
import { createSession } from "../../session/open.js";
import type { Session } from "../../session/types.js";
import type { OpenSessionRequest } from "./types.js";

/** A new in-memory session over the request's thread (a fresh thread for `/new`). */
export function defaultOpenSession(agent: Agent): (request: OpenSessionRequest) => Promise<Session> {
  return (request) => createSession(agent, request.threadId !== undefined ? { threadId: request.threadId } : {});
}
