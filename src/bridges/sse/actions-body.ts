/**
 * The body of an answer posted to the actions endpoint, validated with zod. Exactly one answer:
 * a decision, an offered option, an AI SDK style `approved`, answers to questions, or a decline.
 */
import { z } from "zod";
import type { ApprovalResponse } from "../../events/types.js";

const target = {
  runId: z.string().min(1).max(200).optional(),
  sessionId: z.string().min(1).max(200).optional(),
  requestId: z.string().min(1).max(200),
};

const allow = z.strictObject({
  ...target,
  decision: z.literal("allow"),
  scope: z.enum(["once", "session"]).optional(),
  optionId: z.string().min(1).optional(),
  updatedInput: z.unknown().optional(),
});
const deny = z.strictObject({
  ...target,
  decision: z.literal("deny"),
  message: z.string().optional(),
  interrupt: z.boolean().optional(),
  optionId: z.string().min(1).optional(),
});
const option = z.strictObject({ ...target, optionId: z.string().min(1) });
/** The AI SDK's tool approval response (`addToolApprovalResponse({ id, approved, reason })`). */
const approved = z.strictObject({ ...target, approved: z.boolean(), reason: z.string().optional() });
const answers = z.strictObject({ ...target, answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])) });
const decline = z.strictObject({ ...target, decline: z.literal(true) });

const actionBodySchema = z
  .union([allow, deny, option, approved, answers, decline])
  .refine((body) => body.runId !== undefined || body.sessionId !== undefined, { message: "runId or sessionId is required" });

/** A validated answer. */
export type ActionBody = z.infer<typeof actionBodySchema>;

/** What the body asks for, in the stream's terms. */
export type ParsedAction =
  | { kind: "respond"; requestId: string; response: ApprovalResponse }
  | { kind: "answer"; requestId: string; answers: Record<string, string | string[]> }
  | { kind: "decline"; requestId: string };

export interface ActionTarget {
  runId?: string;
  sessionId?: string;
}

/** Validate `value`; the issues name paths and expectations only, never the values sent. */
export function parseActionBody(value: unknown): { ok: true; target: ActionTarget; action: ParsedAction } | { ok: false; issues: { path: string; message: string }[] } {
  const parsed = actionBodySchema.safeParse(value);
  if (!parsed.success) {
    return { ok: false, issues: parsed.error.issues.slice(0, 10).map((issue) => ({ path: issue.path.join("."), message: issue.message })) };
  }
  const body = parsed.data;
  const targetOf: ActionTarget = { ...(body.runId !== undefined ? { runId: body.runId } : {}), ...(body.sessionId !== undefined ? { sessionId: body.sessionId } : {}) };
  return { ok: true, target: targetOf, action: actionOf(body) };
}

function actionOf(body: ActionBody): ParsedAction {
  const requestId = body.requestId;
  if ("answers" in body) return { kind: "answer", requestId, answers: body.answers };
  if ("decline" in body) return { kind: "decline", requestId };
  if ("approved" in body) {
    const response: ApprovalResponse = body.approved ? { decision: "allow" } : { decision: "deny", ...(body.reason !== undefined ? { message: body.reason } : {}) };
    return { kind: "respond", requestId, response };
  }
  if ("decision" in body) {
    const { runId: _r, sessionId: _s, requestId: _q, ...decision } = body;
    return { kind: "respond", requestId, response: decision as ApprovalResponse };
  }
  return { kind: "respond", requestId, response: { optionId: body.optionId } };
}
