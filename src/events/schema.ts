/**
 * The versioned schema of the wire events (zod 4), one schema per event type and their union.
 * `agentEventSchema` is for a consumer: it accepts what a later release of the same
 * {@link EVENTS_SCHEMA_VERSION} may add (unknown keys, new error and notice codes).
 * `exactAgentEventSchema` is for a producer's tests: it refuses anything this version does not
 * define. test/events/schema-types.test.ts keeps both equal to the TypeScript types.
 */
import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { NOTICE_CODES, type NoticeCode } from "./notice-codes.js";
import { EVENTS_SCHEMA_VERSION, type AgentEvent, type EventOf, type EventType } from "./types.js";
import { USAGE_KEYS } from "./usage.js";

const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];
const NOTICE_CODE_LIST = Object.keys(NOTICE_CODES) as [NoticeCode, ...NoticeCode[]];

/**
 * Builds every schema for one mode: `exact` refuses unknown keys and codes, otherwise they pass.
 * Internal (the entry exports the built schemas); tests compare its inferred types with the
 * TypeScript event types.
 */
export function buildEventSchemas(exact: boolean) {
  const obj = objectOf(exact);
  const payloads = payloadShapes(exact);
  const event = <K extends EventType>(type: K) => obj({ type: z.literal(type), ...payloads.base, ...payloads[type] });
  const events = {
    "run.started": event("run.started"),
    "thread.bound": event("thread.bound"),
    "message.delta": event("message.delta"),
    "message.completed": event("message.completed"),
    "reasoning.delta": event("reasoning.delta"),
    "reasoning.completed": event("reasoning.completed"),
    "tool.started": event("tool.started"),
    "tool.updated": event("tool.updated"),
    "tool.completed": event("tool.completed"),
    "plan.updated": event("plan.updated"),
    "approval.requested": event("approval.requested"),
    "approval.resolved": event("approval.resolved"),
    "question.requested": event("question.requested"),
    "question.resolved": event("question.resolved"),
    "usage.observed": event("usage.observed"),
    notice: event("notice"),
    "run.completed": event("run.completed"),
    "run.failed": event("run.failed"),
    "run.cancelled": event("run.cancelled"),
  };
  const union = z.discriminatedUnion("type", [
    events["run.started"],
    events["thread.bound"],
    events["message.delta"],
    events["message.completed"],
    events["reasoning.delta"],
    events["reasoning.completed"],
    events["tool.started"],
    events["tool.updated"],
    events["tool.completed"],
    events["plan.updated"],
    events["approval.requested"],
    events["approval.resolved"],
    events["question.requested"],
    events["question.resolved"],
    events["usage.observed"],
    events.notice,
    events["run.completed"],
    events["run.failed"],
    events["run.cancelled"],
  ]);
  return { events, union };
}

/** Object schemas of one mode. Typed as the exact mode in both: the consumer mode only lets more through at run time. */
function objectOf(exact: boolean) {
  return <S extends z.core.$ZodLooseShape>(shape: S) => (exact ? z.strictObject(shape) : (z.looseObject(shape) as unknown as z.ZodObject<S, z.core.$strict>));
}

/** The fields of every event (`base`) and of each event type. */
// long-function: one declarative table of the event payloads, mirroring EventPayloads in types.ts
function payloadShapes(exact: boolean) {
  const obj = objectOf(exact);
  const errorCode = exact ? z.enum(ERROR_CODE_LIST) : (z.string() as unknown as z.ZodEnum<{ [C in ErrorCode]: C }>);
  const noticeCode = exact ? z.enum(NOTICE_CODE_LIST) : (z.string() as unknown as z.ZodEnum<{ [C in NoticeCode]: C }>);
  const text = z.string();
  const count = z.number().int().nonnegative();

  const provenance = obj({ provider: text, itemId: text.optional(), messageId: text.optional(), event: text.optional() });
  const base = {
    seq: count,
    runId: text,
    threadId: text.optional(),
    at: z.number(),
    provenance: provenance.optional(),
  };
  const usage = obj(Object.fromEntries(USAGE_KEYS.map((key) => [key, z.number().optional()])) as Record<(typeof USAGE_KEYS)[number], z.ZodOptional<z.ZodNumber>>);
  const fileChange = obj({
    path: text,
    change: z.enum(["added", "modified", "deleted"]),
    movedFrom: text.optional(),
    diff: text.optional(),
  });
  const files = z.array(fileChange).optional();
  const toolStatus = z.enum(["completed", "failed", "declined", "cancelled"]);
  const approvalDecision = z.union([
    obj({ decision: z.literal("allow"), scope: z.enum(["once", "session"]).optional(), optionId: text.optional(), updatedInput: z.unknown().optional() }),
    obj({ decision: z.literal("deny"), message: text.optional(), interrupt: z.boolean().optional(), optionId: text.optional() }),
  ]);
  const resolver = z.enum(["handler", "stream", "policy", "cancel", "timeout"]);
  const question = obj({
    id: text,
    question: text,
    header: text.optional(),
    options: z.array(obj({ label: text, description: text.optional() })).optional(),
    multiSelect: z.boolean().optional(),
    allowOther: z.boolean().optional(),
    secret: z.boolean().optional(),
  });
  const runFailure = obj({
    code: errorCode,
    message: text,
    phase: z.enum(["before_delivery", "after_delivery"]),
    retryable: z.boolean(),
  });
  const resultSummary = obj({
    runId: text,
    threadId: text.optional(),
    status: z.literal("completed"),
    text,
    structured: z.unknown().optional(),
    usage: usage.optional(),
    providerSessionId: text.optional(),
    durationMs: z.number().nonnegative(),
  });
  const item = { itemId: text, text };

  const payloads = {
    "run.started": { driver: text, model: text.optional(), schemaVersion: z.number().int().positive() },
    "thread.bound": { providerSessionId: text },
    "message.delta": item,
    "message.completed": item,
    "reasoning.delta": item,
    "reasoning.completed": item,
    "tool.started": {
      callId: text,
      kind: z.enum(["command", "file_change", "mcp", "web_search", "subagent", "read", "other"]),
      name: text.optional(),
      title: text,
      command: text.optional(),
      cwd: text.optional(),
      files,
      mcp: obj({ server: text, tool: text }).optional(),
      rawInput: z.unknown().optional(),
      parentCallId: text.optional(),
    },
    "tool.updated": { callId: text, output: text.optional(), files },
    "tool.completed": {
      callId: text,
      status: toolStatus,
      output: text.optional(),
      exitCode: z.number().int().optional(),
      files,
    },
    "plan.updated": { entries: z.array(obj({ text, status: z.enum(["pending", "in_progress", "completed"]) })) },
    "approval.requested": {
      requestId: text,
      kind: z.enum(["command", "file_change", "permissions", "tool"]),
      callId: text.optional(),
      summary: text,
      options: z.array(obj({ id: text, label: text, kind: z.enum(["allow_once", "allow_always", "deny", "other"]) })),
    },
    "approval.resolved": { requestId: text, decision: approvalDecision, by: resolver },
    "question.requested": { requestId: text, questions: z.array(question) },
    "question.resolved": { requestId: text, answered: z.boolean(), by: resolver },
    "usage.observed": { usage },
    notice: {
      level: z.enum(["info", "warning"]),
      code: noticeCode,
      message: text,
      count: count.optional(),
      commands: z.array(obj({ name: text, description: text.optional(), argumentHint: text.optional() })).optional(),
    },
    "run.completed": { result: resultSummary },
    "run.failed": { error: runFailure },
    "run.cancelled": { reason: text.optional() },
  } satisfies Record<EventType, z.core.$ZodLooseShape>;
  return { base, ...payloads };
}

const consumer = buildEventSchemas(false);
const exact = buildEventSchemas(true);

/** One zod schema per event type. */
export type AgentEventSchemas = { readonly [K in EventType]: z.ZodType<EventOf<K>> };

/**
 * The schema of one wire event, for a consumer: validates every field this
 * {@link EVENTS_SCHEMA_VERSION} defines and lets through keys and codes a later release of the
 * same version may add. An event `type` it does not know fails: skip those first (`isEventType`).
 */
export const agentEventSchema: z.ZodType<AgentEvent> = consumer.union;

/** {@link agentEventSchema} for one event type. */
export const agentEventSchemas: AgentEventSchemas = consumer.events;

/** The schema of one wire event as this release emits it: unknown keys and codes fail. For a producer's tests. */
export const exactAgentEventSchema: z.ZodType<AgentEvent> = exact.union;

/** {@link exactAgentEventSchema} for one event type. */
export const exactAgentEventSchemas: AgentEventSchemas = exact.events;

/** A JSON Schema (draft 2020-12) document. */
export type JsonSchemaDocument = { [key: string]: unknown };

/**
 * The JSON Schema (draft 2020-12) of one wire event, for validators in any language: the
 * consumer schema ({@link agentEventSchema}) by default, the exact one with `{ exact: true }`.
 * Its `$id` names the schema version. A fresh object each call.
 */
export function agentEventJsonSchema(options: { exact?: boolean } = {}): JsonSchemaDocument {
  const schema = z.toJSONSchema(options.exact === true ? exactAgentEventSchema : agentEventSchema) as JsonSchemaDocument;
  return {
    $schema: schema.$schema,
    $id: `agent-adaptor/events/v${EVENTS_SCHEMA_VERSION}${options.exact === true ? "/exact" : ""}`,
    title: "AgentEvent",
    description: `One agent-adaptor run event, schemaVersion ${EVENTS_SCHEMA_VERSION}.`,
    ...schema,
  };
}
