/** The session's model and effort for its later runs, as its status reports them (`configure` sets them). */
import type { Session, SessionSettings } from "../../session/types.js";

/** What the session passes as `model` / `effort` to its next run (absent: the agent's default). */
export function runSettings(session: Session): SessionSettings {
  return { ...session.status().settings };
}
