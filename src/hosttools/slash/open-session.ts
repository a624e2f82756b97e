/** The session `/new`, `/resume` and `/fork` open when the host gives no `openSession`. */
import type { Agent } from "../../agent/agent.js";
import { ConfigError } from "../../errors/index.js";
import type { Session } from "../../session/types.js";
import type { OpenSessionRequest } from "./types.js";

export function defaultOpenSession(_agent: Agent): (request: OpenSessionRequest) => Promise<Session> {
  return async () => {
    throw new ConfigError("createSlashCommands: pass openSession to open sessions");
  };
}
