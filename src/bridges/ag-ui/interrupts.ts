/**
 * Approvals and questions as AG-UI interrupts, and a resume entry back as the answer: the
 * paused AG-UI run ends with `RUN_FINISHED` `{ outcome: { type: "interrupt" } }` naming the
 * request, and the next run's `resume` entry (`interruptId` = the request id) answers it through
 * the run's own `respond()` / `answer()` / `decline()`.
 */
import { z } from "zod";
import type { RunStream } from "../../agent/run-stream.js";
import type { ApprovalResponse, EventOf } from "../../events/types.js";
import type { AgUiInterrupt } from "./events.js";

export const APPROVAL_REASON = "tool_approval";
export const QUESTION_REASON = "user_input";

/** The interrupt standing for one pending request. `tools`: the calls this translator announced. */
export function interruptOf(
  request: EventOf<"approval.requested"> | EventOf<"question.requested">,
  tools: ReadonlyMap<string, unknown>,
  expiresAt: Date | undefined,
): AgUiInterrupt {
  const expiry = expiresAt ? { expiresAt: expiresAt.toISOString() } : {};
  if (request.type === "question.requested") {
    const ids = request.questions.map((question) => question.id);
    const answerSchema = { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] };
    return {
      id: request.requestId,
      reason: QUESTION_REASON,
      message: request.questions.map((question) => question.question).join("\n"),
      responseSchema: {
        type: "object",
        properties: { answers: { type: "object", properties: Object.fromEntries(ids.map((id) => [id, answerSchema])), required: ids } },
        required: ["answers"],
      },
      metadata: { questions: structuredClone(request.questions) },
      ...expiry,
    };
  }
  const optionIds = request.options.map((option) => option.id);
  return {
    id: request.requestId,
    reason: APPROVAL_REASON,
    message: request.summary,
    ...(request.callId !== undefined && tools.has(request.callId) ? { toolCallId: request.callId } : {}),
    responseSchema: {
      type: "object",
      properties: {
        decision: { enum: ["allow", "deny"] },
        ...(optionIds.length > 0 ? { optionId: { enum: optionIds } } : {}),
        scope: { enum: ["once", "session"] },
        message: { type: "string" },
        interrupt: { type: "boolean" },
      },
      anyOf: [{ required: ["decision"] }, ...(optionIds.length > 0 ? [{ required: ["optionId"] }] : [])],
    },
    metadata: { kind: request.kind, options: structuredClone(request.options) },
    ...expiry,
  };
}

const approvalPayload = z.union([
  z.boolean(),
  z.strictObject({ decision: z.literal("allow"), scope: z.enum(["once", "session"]).optional(), optionId: z.string().optional(), updatedInput: z.unknown().optional() }),
  z.strictObject({ decision: z.literal("deny"), message: z.string().optional(), interrupt: z.boolean().optional(), optionId: z.string().optional() }),
  z.strictObject({ optionId: z.string() }),
]);

const answers = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
const questionPayload = z.union([z.strictObject({ answers }), answers]);

/** A resume entry this bridge cannot apply: the endpoint answers 400 with this message. */
export class ResumeRejected extends Error {}

/** What a resume entry answers with, checked before anything reaches the run. */
export type ResumeAnswer =
  | { kind: "approval"; response: ApprovalResponse }
  | { kind: "answers"; answers: Record<string, string | string[]> }
  | { kind: "decline" };

/** The answer a resume entry gives the interrupt of `reason`; throws {@link ResumeRejected} on a payload that does not fit. */
export function resumeAnswer(reason: string, entry: { interruptId: string; status: "resolved" | "cancelled"; payload?: unknown }): ResumeAnswer {
  if (reason === APPROVAL_REASON) {
    if (entry.status === "cancelled") return { kind: "approval", response: { decision: "deny" } };
    const parsed = approvalPayload.safeParse(entry.payload);
    if (!parsed.success) throw new ResumeRejected(`resume ${entry.interruptId}: expected true, false, { decision, optionId?, ... } or { optionId }`);
    const response = typeof parsed.data === "boolean" ? { decision: parsed.data ? "allow" : "deny" } : parsed.data;
    return { kind: "approval", response: response as ApprovalResponse };
  }
  if (entry.status === "cancelled") return { kind: "decline" };
  const parsed = questionPayload.safeParse(entry.payload);
  if (!parsed.success) throw new ResumeRejected(`resume ${entry.interruptId}: expected { answers: { <question id>: string | string[] } }`);
  const given = "answers" in parsed.data && typeof parsed.data.answers === "object" && !Array.isArray(parsed.data.answers) ? parsed.data.answers : parsed.data;
  return { kind: "answers", answers: given as Record<string, string | string[]> };
}

/** Delivers a checked answer to the run; `ResponseRejectedError` propagates (the caller decides). */
export function deliverAnswer(stream: RunStream, requestId: string, answer: ResumeAnswer): void {
  if (answer.kind === "approval") stream.respond(requestId, answer.response);
  else if (answer.kind === "answers") stream.answer(requestId, answer.answers);
  else stream.decline(requestId);
}
