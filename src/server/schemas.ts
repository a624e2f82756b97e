/**
 * The request and response schemas of the HTTP API. Every route is declared with these, so
 * requests are validated and the OpenAPI document is generated from the same definitions.
 * Shapes owned by the library (an inspection, a history page, events) are passed through as
 * objects: their own schemas live with the library (docs/agent-event.schema.json).
 */
import { z } from "@hono/zod-openapi";

export type { PendingApproval, PendingQuestion, QueuedPromptView, SessionView, ThreadView } from "./public-types.js";

const object = z.record(z.string(), z.unknown());

export const errorSchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      details: z
        .object({ mismatches: z.array(z.object({ dimension: z.string(), setting: z.string(), recorded: z.string(), current: z.string() })) })
        .optional(),
    }),
  })
  .openapi("Error");

export const okSchema = z.object({ ok: z.literal(true) }).openapi("Ok");

export const healthSchema = z
  .object({ ok: z.literal(true), version: z.string(), uptimeMs: z.number(), sessions: z.number().int() })
  .openapi("Health");

export const agentViewSchema = z
  .object({ name: z.string(), driver: z.object({ id: z.string(), name: z.string() }), workspace: z.string() })
  .openapi("AgentView");
export const agentListSchema = z.object({ agents: z.array(agentViewSchema) }).openapi("AgentList");

export const inspectionSchema = object.openapi("Inspection", { description: "The agent's live inspection (see docs/api.md, Inspection)." });

const gateSchema = z.union([
  z.object({ open: z.literal(true) }),
  z.object({ open: z.literal(false), by: z.enum(["hold", "pause"]), reason: z.string(), since: z.string() }),
]);

const budgetSchema = z.object({
  sessionUsd: z.number().optional(),
  runUsd: z.number().optional(),
  sessionTokens: z.number().optional(),
  runTokens: z.number().optional(),
});

export const sessionStateSchema = z.enum(["created", "running", "idle", "sleeping", "archived"]);

export const sessionViewSchema = z
  .object({
    id: z.string(),
    agent: z.string(),
    state: sessionStateSchema,
    sleepReason: z.string().optional(),
    gate: gateSchema,
    guardrails: z.object({
      spentUsd: z.number(),
      spentTokens: z.number(),
      budget: budgetSchema,
      tripped: z.object({ ceiling: z.string(), at: z.string(), runId: z.string().optional() }).optional(),
    }),
    queued: z.array(z.string()),
    inFlight: z.object({ runId: z.string(), promptIds: z.array(z.string()) }).optional(),
    settings: z.object({ model: z.string().optional(), effort: z.string().optional() }),
    threadId: z.string(),
    lastSeq: z.number().int(),
    nativeCommands: z.array(z.object({ name: z.string(), description: z.string().optional(), argumentHint: z.string().optional() })).optional(),
    live: z.boolean().openapi({ description: "Whether this server drives the session now (it is opened on demand)." }),
    createdAt: z.string(),
    updatedAt: z.string(),
    metadata: z.record(z.string(), z.string()),
  })
  .openapi("SessionView");

export const sessionListSchema = z.object({ sessions: z.array(sessionViewSchema) }).openapi("SessionList");

const limit = z.coerce.number().int().min(1).max(1000).optional();

// Strict queries: a misspelt parameter (`?stat=running`) would otherwise widen the answer silently.
export const sessionListQuery = z.object({ state: sessionStateSchema.optional(), limit }).strict();

export const createSessionBody = z
  .object({
    agent: z.string().min(1),
    id: z.string().min(1).max(512).optional(),
    idleSleepMs: z.number().int().min(0).optional(),
    budget: budgetSchema.strict().optional(),
    metadata: z.record(z.string(), z.string()).optional(),
    model: z.string().min(1).optional(),
    effort: z.string().min(1).optional(),
  })
  .strict()
  .openapi("CreateSession");

export const idParams = z.object({ id: z.string().min(1).openapi({ param: { name: "id", in: "path" } }) });
export const nameParams = z.object({ name: z.string().min(1).openapi({ param: { name: "name", in: "path" } }) });
export const requestParams = z.object({
  id: z.string().min(1).openapi({ param: { name: "id", in: "path" } }),
  requestId: z.string().min(1).openapi({ param: { name: "requestId", in: "path" } }),
});

const text = z.string().min(1);
export const submitBody = z.object({ text, wake: z.boolean().optional(), from: z.string().min(1).optional() }).strict().openapi("Submit");
export const submitResponse = z.object({ promptId: z.string() }).openapi("Submitted");
export const textBody = z.object({ text }).strict().openapi("Text");
export const steerResponse = z.object({ delivery: z.enum(["native", "next_run"]) }).openapi("Steered");
export const reasonBody = z.object({ reason: z.string().min(1) }).strict().openapi("Reason");
export const wasRunningSchema = z.object({ wasRunning: z.boolean() }).openapi("WasRunning");
export const resumeBody = z
  .object({ mode: z.enum(["continue", "steer", "abandon"]), message: z.string().min(1).optional() })
  .strict()
  .openapi("Resume");

export const budgetBody = z
  .object({
    usd: z.number().positive().optional().openapi({ description: "Raise the session cost ceiling (`budget.sessionUsd`) by this many USD." }),
    tokens: z.number().int().positive().optional().openapi({ description: "Raise the session token ceiling (`budget.sessionTokens`) by this many tokens." }),
  })
  .strict()
  .refine((body) => body.usd !== undefined || body.tokens !== undefined, { message: "give usd, tokens or both" })
  .openapi("AddBudget");

const setting = z.union([z.string().min(1), z.null()]).optional();
export const configureBody = z
  .object({
    model: setting.openapi({ description: "The model of later runs; null: back to the agent's default." }),
    effort: setting.openapi({ description: "The effort of later runs; null: back to the agent's default." }),
  })
  .strict()
  .refine((body) => body.model !== undefined || body.effort !== undefined, { message: "give model, effort or both" })
  .openapi("Configure");

export const approvalBody = z
  .union([
    z.object({ decision: z.literal("allow"), scope: z.enum(["once", "session"]).optional(), optionId: z.string().min(1).optional() }).strict(),
    z.object({ decision: z.literal("deny"), message: z.string().optional(), interrupt: z.boolean().optional(), optionId: z.string().min(1).optional() }).strict(),
    z.object({ optionId: z.string().min(1) }).strict(),
  ])
  .openapi("ApprovalAnswer");

export const questionBody = z
  .union([
    z.object({ answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])) }).strict(),
    z.object({ decline: z.literal(true) }).strict(),
  ])
  .openapi("QuestionAnswer");

export const pendingApprovalSchema = z
  .object({
    runId: z.string(),
    seq: z.number().int(),
    requestId: z.string(),
    kind: z.string(),
    callId: z.string().optional(),
    summary: z.string(),
    options: z.array(z.object({ id: z.string(), label: z.string(), kind: z.string() })),
  })
  .openapi("PendingApproval");

export const pendingQuestionSchema = z
  .object({ runId: z.string(), seq: z.number().int(), requestId: z.string(), questions: z.array(object) })
  .openapi("PendingQuestion");

export const pendingSchema = z.object({ approvals: z.array(pendingApprovalSchema), questions: z.array(pendingQuestionSchema) }).openapi("Pending");

export const queuedPromptSchema = z
  .object({
    promptId: z.string(),
    kind: z.enum(["prompt", "steer", "follow_up"]),
    from: z.string().optional().openapi({ description: "Who queued it (the submit's `from`), when given." }),
    queuedAt: z.string(),
    text: z.string().openapi({ description: "The message, cut at 2000 characters (then `truncated`)." }),
    truncated: z.boolean().optional(),
    inputCount: z.number().int(),
  })
  .openapi("QueuedPrompt");

export const queueSchema = z.object({ prompts: z.array(queuedPromptSchema) }).openapi("Queue");

export const eventsQuery = z
  .object({
    after: z.coerce.number().int().min(0).optional().openapi({ description: "Resume after this session seq (the Last-Event-ID header wins when both are sent)." }),
  })
  .strict();

export const threadViewSchema = z
  .object({
    id: z.string(),
    driver: z.string(),
    workspace: z.string(),
    providerSessionId: z.string().optional(),
    parentId: z.string().optional(),
    metadata: z.record(z.string(), z.string()),
    leased: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("ThreadView");

export const threadListSchema = z.object({ threads: z.array(threadViewSchema) }).openapi("ThreadList");
export const threadListQuery = z.object({ agent: z.string().min(1).optional(), limit }).strict();
export const historyQuery = z.object({ limit, before: z.coerce.number().int().min(1).optional() }).strict();
export const historyPageSchema = z
  .object({ turns: z.array(object), nextBefore: z.number().int().optional() })
  .openapi("HistoryPage");
