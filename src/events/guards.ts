/**
 * Type guards for events a host receives, e.g. parsed from JSON in a browser. They check the
 * envelope (`type`, `seq`, `runId`, `at`), not every field: validate with `agentEventSchema`
 * when the sender is not trusted.
 */
import { EVENT_TYPES, type AgentEvent, type EventOf, type EventType } from "./types.js";

export { isTerminalEvent } from "./types.js";

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/** Whether `value` names an event type of this schema version. */
export function isKnownEventType(value: unknown): value is EventType {
  return typeof value === "string" && KNOWN_TYPES.has(value);
}

/** Whether `value` has the envelope of an event of a known type. */
export function isAgentEvent(value: unknown): value is AgentEvent {
  if (typeof value !== "object" || value === null) return false;
  const event = value as Record<string, unknown>;
  return (
    isKnownEventType(event.type) &&
    typeof event.seq === "number" &&
    typeof event.runId === "string" &&
    typeof event.at === "number" &&
    (event.threadId === undefined || typeof event.threadId === "string")
  );
}

/**
 * Whether `event` is of `type` (or of one of `type`'s list), narrowing it:
 * `if (isEventType(e, "tool.started")) e.callId`.
 */
export function isEventType<K extends EventType>(event: { type: string } | null | undefined, type: K | readonly K[]): event is EventOf<K> {
  if (event == null) return false;
  return typeof type === "string" ? event.type === type : (type as readonly string[]).includes(event.type);
}

/** Whether `event` is a streamed text piece (`message.delta` or `reasoning.delta`). */
export function isDeltaEvent(event: { type: string } | null | undefined): event is EventOf<"message.delta" | "reasoning.delta"> {
  return event != null && (event.type === "message.delta" || event.type === "reasoning.delta");
}

/** Whether `event` is about a tool call (`tool.started`, `tool.updated`, `tool.completed`). */
export function isToolEvent(event: { type: string } | null | undefined): event is EventOf<"tool.started" | "tool.updated" | "tool.completed"> {
  return event != null && (event.type === "tool.started" || event.type === "tool.updated" || event.type === "tool.completed");
}

/** Whether `event` asks the host for something (`approval.requested`, `question.requested`). */
export function isRequestEvent(event: { type: string } | null | undefined): event is EventOf<"approval.requested" | "question.requested"> {
  return event != null && (event.type === "approval.requested" || event.type === "question.requested");
}
