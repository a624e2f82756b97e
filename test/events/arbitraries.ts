/**
 * fast-check arbitraries for every event type, as core publishes them: optional fields are
 * absent or set, never `undefined`, and codes come from the tables.
 */
import fc from "fast-check";
import { ERROR_CODES, type ErrorCode } from "../../src/errors/codes.js";
import { NOTICE_CODES, type NoticeCode } from "../../src/events/notice-codes.js";
import type { AgentEvent, EventPayloads, EventType } from "../../src/events/types.js";
import { EVENT_TYPES, EVENTS_SCHEMA_VERSION } from "../../src/events/types.js";
import { USAGE_KEYS, type Usage } from "../../src/events/usage.js";

type Shape = Record<string, fc.Arbitrary<unknown>>;

/** A record whose `optional` keys are each either absent or set. */
function rec<T>(required: Shape, optional: Shape = {}): fc.Arbitrary<T> {
  return fc.record({ ...required, ...optional }, { requiredKeys: Object.keys(required), noNullPrototype: true }) as fc.Arbitrary<T>;
}

const text = fc.string({ unit: "grapheme", maxLength: 24 });
const id = fc.string({ minLength: 1, maxLength: 12 });
const count = fc.nat({ max: 1_000_000 });
const number = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }).map((n) => (Object.is(n, -0) ? 0 : n));
/** Provider data as JSON can carry it. */
const json: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

const usage = rec<Usage>({}, Object.fromEntries(USAGE_KEYS.map((key) => [key, count])));
const fileChange = rec({ path: id, change: fc.constantFrom("added", "modified", "deleted") }, { movedFrom: id, diff: text });
const files = fc.array(fileChange, { maxLength: 3 });
const decision = fc.oneof(
  rec({ decision: fc.constant("allow") }, { scope: fc.constantFrom("once", "session"), optionId: id, updatedInput: json }),
  rec({ decision: fc.constant("deny") }, { message: text, interrupt: fc.boolean(), optionId: id }),
);
const resolver = fc.constantFrom("handler", "stream", "policy", "cancel", "timeout");
const question = rec(
  { id, question: text },
  { header: text, options: fc.array(rec({ label: text }, { description: text }), { maxLength: 3 }), multiSelect: fc.boolean(), allowOther: fc.boolean(), secret: fc.boolean() },
);
const item = { itemId: id, text };

const PAYLOADS: { [K in EventType]: fc.Arbitrary<EventPayloads[K]> } = {
  "run.started": rec({ driver: id, schemaVersion: fc.constant(EVENTS_SCHEMA_VERSION) }, { model: id }),
  "thread.bound": rec({ providerSessionId: id }),
  "message.delta": rec(item),
  "message.completed": rec(item),
  "reasoning.delta": rec(item),
  "reasoning.completed": rec(item),
  "tool.started": rec(
    { callId: id, kind: fc.constantFrom("command", "file_change", "mcp", "web_search", "subagent", "read", "other"), title: text },
    { name: id, command: text, cwd: text, files, mcp: rec({ server: id, tool: id }), rawInput: json },
  ),
  "tool.updated": rec({ callId: id }, { output: text, files }),
  "tool.completed": rec(
    { callId: id, status: fc.constantFrom("completed", "failed", "declined", "cancelled") },
    { output: text, exitCode: fc.integer({ min: -255, max: 255 }), files },
  ),
  "plan.updated": rec({ entries: fc.array(rec({ text, status: fc.constantFrom("pending", "in_progress", "completed") }), { maxLength: 4 }) }),
  "approval.requested": rec(
    {
      requestId: id,
      kind: fc.constantFrom("command", "file_change", "permissions", "tool"),
      summary: text,
      options: fc.array(rec({ id, label: text, kind: fc.constantFrom("allow_once", "allow_always", "deny", "other") }), { maxLength: 3 }),
    },
    { callId: id },
  ),
  "approval.resolved": rec({ requestId: id, decision, by: resolver }),
  "question.requested": rec({ requestId: id, questions: fc.array(question, { maxLength: 3 }) }),
  "question.resolved": rec({ requestId: id, answered: fc.boolean(), by: resolver }),
  "usage.observed": rec({ usage }),
  notice: rec(
    { level: fc.constantFrom("info", "warning"), code: fc.constantFrom(...(Object.keys(NOTICE_CODES) as NoticeCode[])), message: text },
    { count: count },
  ),
  "run.completed": rec({
    result: rec(
      { runId: id, status: fc.constant("completed"), text, durationMs: count },
      { threadId: id, structured: json, usage, providerSessionId: id },
    ),
  }),
  "run.failed": rec({
    error: rec({
      code: fc.constantFrom(...(Object.keys(ERROR_CODES) as ErrorCode[])),
      message: text,
      phase: fc.constantFrom("before_delivery", "after_delivery"),
      retryable: fc.boolean(),
    }),
  }),
  "run.cancelled": rec({}, { reason: text }),
};

const base = rec<Record<string, unknown>>(
  { seq: count, runId: id, at: number },
  { threadId: id, provenance: rec({ provider: id }, { itemId: id, messageId: id, event: id }) },
);

/** One event of `type`. */
export function eventOf(type: EventType): fc.Arbitrary<AgentEvent> {
  return fc.tuple(base, PAYLOADS[type] as fc.Arbitrary<object>).map(([b, p]) => ({ type, ...b, ...p }) as AgentEvent);
}

/** An event of any type. */
export const anyEvent: fc.Arbitrary<AgentEvent> = fc.constantFrom(...EVENT_TYPES).chain(eventOf);
