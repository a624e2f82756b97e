/**
 * A task waiting for input becomes the host's approval or question: the carried
 * `approval.requested` / `question.requested` of this library's server as it is, any other agent's
 * request as one free-text question holding its status message. The answer goes back as the parts
 * of the next message (see protocol.ts).
 */
import type { Part } from "@a2a-js/sdk";
import type { RunRequest } from "../../../driver/types.js";
import type { ApprovalOption, Question } from "../../../events/types.js";
import type { Step } from "./map-stream.js";
import { partsText } from "./map-stream.js";
import { dataPart, textPart } from "./parts.js";

const KINDS = new Set(["command", "file_change", "permissions", "tool"]);
const OPTION_KINDS = new Set(["allow_once", "allow_always", "deny", "other"]);

function isOption(value: unknown): value is ApprovalOption {
  const o = value as ApprovalOption;
  return typeof o === "object" && o !== null && typeof o.id === "string" && typeof o.label === "string" && OPTION_KINDS.has(o.kind);
}

function isQuestion(value: unknown): value is Question {
  const q = value as Question;
  return typeof q === "object" && q !== null && typeof q.id === "string" && typeof q.question === "string";
}

/** The parts answering the task's input request, or `undefined` when the host declined a free-text request. */
export async function answerInput(step: Extract<Step, { kind: "input" }>, request: RunRequest, fallbackId: string): Promise<Part[] | undefined> {
  const carried = step.carried;
  if (carried?.type === "approval.requested" && typeof carried.requestId === "string" && typeof carried.summary === "string" && KINDS.has(String(carried.kind))) {
    const options = Array.isArray(carried.options) ? carried.options.filter(isOption) : [];
    const decision = await request.approve({
      requestId: carried.requestId,
      kind: carried.kind as "command",
      summary: carried.summary,
      options,
      ...(typeof carried.callId === "string" ? { callId: carried.callId } : {}),
    });
    const { updatedInput: _dropped, ...sent } = decision as { updatedInput?: unknown };
    return [dataPart({ requestId: carried.requestId, ...sent })];
  }
  if (carried?.type === "question.requested" && typeof carried.requestId === "string" && Array.isArray(carried.questions) && carried.questions.every(isQuestion)) {
    const answer = await request.ask({ requestId: carried.requestId, questions: carried.questions });
    return [dataPart("declined" in answer ? { requestId: carried.requestId, declined: true } : { requestId: carried.requestId, answers: answer.answers })];
  }
  const question = partsText(step.message?.parts) || "The agent needs more input.";
  const answer = await request.ask({ requestId: fallbackId, questions: [{ id: "input", question, allowOther: true }] });
  if ("declined" in answer) return undefined;
  const value = answer.answers.input;
  return [textPart(Array.isArray(value) ? value.join("\n") : (value ?? ""))];
}
