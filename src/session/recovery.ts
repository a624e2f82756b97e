/**
 * Restart recovery (issue #18 item 9): a session reopened from its record after its host died.
 * The run the record has in flight is recorded as interrupted (`host_restart`) and never
 * replayed; queued prompts whose inputs lived only in the dead process are dropped
 * (`inputs_lost`); the gate, the guardrails and the rest of the queue stay as recorded.
 */
import { Inbox } from "./inbox.js";
import { restoredState } from "./lifecycle.js";
import type { SessionNotice, SessionRecord, SessionState } from "./types.js";

export interface Recovered {
  inbox: Inbox;
  state: SessionState;
  /** What the session logs, in order, before anything else. */
  notices: SessionNotice[];
  /** Whether the record must be rewritten (a run was in flight or prompts were dropped). */
  changed: boolean;
}

export function recover(record: SessionRecord): Recovered {
  const inbox = new Inbox(record.settings.inboxCap, record.queue);
  const notices: SessionNotice[] = [];
  if (record.inFlight) notices.push({ type: "session.run_interrupted", runId: record.inFlight.runId, code: "host_restart" });
  // Nothing of this process's inputs survives: every entry that had some lost them.
  for (const entry of inbox.dropLostInputs()) notices.push({ type: "session.prompt_dropped", promptId: entry.promptId, reason: "inputs_lost" });
  const state = restoredState(record.state);
  if (state !== record.state) notices.push({ type: "session.state", state, reason: "host_restart" });
  return { inbox, state, notices, changed: notices.length > 0 };
}
