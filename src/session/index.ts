/** Sessions (DESIGN §10): the long-lived conversation an operator or an autonomous host drives. */
export { createSession, openSession } from "./open.js";
export { DEFAULT_IDLE_SLEEP_MS, DEFAULT_INBOX_CAP, DEFAULT_OWNER_TTL_MS, MIN_IDLE_SLEEP_MS } from "./lifecycle.js";
export type {
  Budget,
  GateState,
  Guardrails,
  NewSessionRecord,
  OpenSessionOptions,
  QueuedPrompt,
  ResumeOptions,
  Session,
  SessionEvent,
  SessionNotice,
  SessionOptions,
  SessionPatch,
  SessionRecord,
  SessionRunOptions,
  SessionSettings,
  SessionState,
  SessionStatus,
  SessionStore,
  SleepReason,
  SubmitOptions,
} from "./types.js";
