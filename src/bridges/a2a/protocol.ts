/**
 * What this library's A2A server and its `a2a()` driver agree on beyond the A2A protocol itself.
 * Every A2A event the server publishes carries the canonical event it stands for under the
 * metadata key {@link EVENT_METADATA_KEY} (plain JSON, without the run-local `seq`/`runId`/`at`),
 * so an `a2a()` driver rebuilds tool calls, plans, approvals and the result's usage faithfully;
 * any other A2A client reads the standard fields (artifacts, status messages, states).
 *
 * An answer to an `input-required` task is a message on that task: a data part
 * `{ decision: "allow" | "deny", optionId?, scope?, message?, interrupt? }` or `{ optionId }` for
 * an approval, `{ answers: { [questionId]: string | string[] } }` or `{ declined: true }` for
 * questions — each with an optional `requestId` (default: the request the task waits on) — or
 * plain text: `allow` / `deny` (and yes/no), an offered option's id or label, or the answer to a
 * single question.
 */

/** The metadata key holding the canonical event an A2A event stands for. */
export const EVENT_METADATA_KEY = "agentAdaptor";

/** The artifact names the server streams model output under. */
export const MESSAGE_ARTIFACT = "message";

/** A canonical event as carried in metadata: its type and payload, nothing run-local. */
export interface CarriedEvent {
  type: string;
  [field: string]: unknown;
}

/** What an `input-required` answer's data part may hold. */
export interface AnswerData {
  requestId?: string;
  decision?: "allow" | "deny";
  optionId?: string;
  scope?: "once" | "session";
  message?: string;
  interrupt?: boolean;
  answers?: Record<string, string | string[]>;
  declined?: boolean;
}

/** Words a plain-text answer may use to allow or deny an approval. */
export const ALLOW_WORDS: ReadonlySet<string> = new Set(["allow", "approve", "approved", "yes", "y", "ok", "accept"]);
export const DENY_WORDS: ReadonlySet<string> = new Set(["deny", "denied", "reject", "no", "n", "decline"]);

/** The carried canonical event of an A2A event's (or message's) metadata, if it has one. */
export function carriedEvent(metadata: unknown): CarriedEvent | undefined {
  if (typeof metadata !== "object" || metadata === null) return undefined;
  const value = (metadata as Record<string, unknown>)[EVENT_METADATA_KEY];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const type = (value as Record<string, unknown>).type;
  return typeof type === "string" ? (value as CarriedEvent) : undefined;
}
