/**
 * The session's model and effort for its later runs: read from its status and changed with
 * `configure`. Kept in one place: the rest of the slash tool never reaches into the session.
 */
import type { Session } from "../../session/types.js";

export interface RunSettings {
  model?: string;
  effort?: string;
}

type Configurable = Session & { configure(settings: { model?: string | null; effort?: string | null }): Promise<unknown> };

/** Whether the session can change the model and effort of its later runs. */
export function canConfigure(session: Session): session is Configurable {
  return typeof (session as Partial<Configurable>).configure === "function";
}

/** What the session passes as `model` / `effort` to its next run (absent: the agent's default). */
export function runSettings(session: Session): RunSettings {
  const settings = (session.status() as { settings?: unknown }).settings;
  if (typeof settings !== "object" || settings === null) return {};
  const { model, effort } = settings as Record<string, unknown>;
  return { ...(typeof model === "string" ? { model } : {}), ...(typeof effort === "string" ? { effort } : {}) };
}
