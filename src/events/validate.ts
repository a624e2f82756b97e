/**
 * Shape checks for what a driver emits. A driver bug must surface as `DriverContractError`
 * at the boundary, not as a malformed event deep inside a host.
 */
import { DriverContractError } from "../errors/index.js";

/** Event types a driver may emit, with the string fields each must carry. */
const DRIVER_EVENT_FIELDS: Record<string, readonly string[]> = {
  "thread.bound": ["providerSessionId"],
  "message.delta": ["itemId", "text"],
  "message.completed": ["itemId", "text"],
  "reasoning.delta": ["itemId", "text"],
  "reasoning.completed": ["itemId", "text"],
  "tool.started": ["callId", "kind", "title"],
  "tool.updated": ["callId"],
  "tool.completed": ["callId", "status"],
  "plan.updated": [],
  "approval.requested": ["requestId", "kind", "summary"],
  "approval.resolved": ["requestId"],
  "question.requested": ["requestId"],
  "question.resolved": ["requestId"],
  "usage.observed": [],
  notice: ["level", "code", "message"],
  "run.completed": [],
  "run.failed": [],
  "run.cancelled": [],
};

export const DRIVER_TERMINAL_TYPES: ReadonlySet<string> = new Set(["run.completed", "run.failed", "run.cancelled"]);

/** Throws `DriverContractError` unless `event` is a well-formed driver event. */
export function assertDriverEvent(driverId: string, event: unknown): asserts event is { type: string } {
  if (typeof event !== "object" || event === null) throw new DriverContractError(driverId, "emitted a non-object event");
  const type = (event as { type?: unknown }).type;
  // Fast path for the most frequent events.
  if (
    (type === "message.delta" || type === "reasoning.delta") &&
    typeof (event as { itemId?: unknown }).itemId === "string" &&
    typeof (event as { text?: unknown }).text === "string"
  ) {
    return;
  }
  if (typeof type !== "string") throw new DriverContractError(driverId, "emitted an event without a type");
  const fields = DRIVER_EVENT_FIELDS[type];
  if (!fields) throw new DriverContractError(driverId, `emitted an unknown event type "${type.slice(0, 64)}"`);
  for (const field of fields) {
    if (typeof (event as Record<string, unknown>)[field] !== "string") {
      throw new DriverContractError(driverId, `emitted ${type} without a string "${field}"`);
    }
  }
  if (type === "plan.updated" && !Array.isArray((event as { entries?: unknown }).entries)) {
    throw new DriverContractError(driverId, "emitted plan.updated without entries");
  }
  if (type === "usage.observed" && typeof (event as { usage?: unknown }).usage !== "object") {
    throw new DriverContractError(driverId, "emitted usage.observed without usage");
  }
  if (type === "run.failed") {
    const error = (event as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof error?.code !== "string" || typeof error.message !== "string") {
      throw new DriverContractError(driverId, "emitted run.failed without error.code and error.message");
    }
  }
}
