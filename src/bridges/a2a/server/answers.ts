/**
 * Reads a client's answer to an `input-required` task from its message (see protocol.ts for the
 * accepted shapes): a data part with a decision, an option id, answers or a refusal, or plain
 * text. The run itself checks the answer against the request (`respond`/`answer` refuse what does
 * not fit); this only turns the message into one call.
 */
import type { Message } from "@a2a-js/sdk";
import type { ApprovalOption, ApprovalResponse, Question } from "../../../events/types.js";
import { ALLOW_WORDS, DENY_WORDS, type AnswerData } from "../protocol.js";

/** The request a task waits on. */
export type PendingRequest =
  | { type: "approval"; requestId: string; options: ApprovalOption[] }
  | { type: "question"; requestId: string; questions: Question[] };

export type Answer =
  | { kind: "respond"; requestId: string; decision: ApprovalResponse }
  | { kind: "answer"; requestId: string; answers: Record<string, string | string[]> }
  | { kind: "decline"; requestId: string }
  | { kind: "invalid"; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function messageData(message: Message): AnswerData | undefined {
  for (const part of message.parts) {
    if (part.content?.$case === "data" && isRecord(part.content.value)) return part.content.value as AnswerData;
  }
  return undefined;
}

export function messageText(message: Message): string {
  return message.parts
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .filter((t) => t !== "")
    .join("\n");
}

function isAnswers(value: unknown): value is Record<string, string | string[]> {
  return isRecord(value) && Object.values(value).every((v) => typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string")));
}

function fromData(data: AnswerData, pending: PendingRequest | undefined): Answer {
  const requestId = typeof data.requestId === "string" ? data.requestId : pending?.requestId;
  if (requestId === undefined) return { kind: "invalid", message: "no request is waiting for an answer" };
  if (data.declined === true) return { kind: "decline", requestId };
  if (data.answers !== undefined) return isAnswers(data.answers) ? { kind: "answer", requestId, answers: data.answers } : { kind: "invalid", message: "answers must map question ids to strings" };
  if (data.decision === "allow") {
    return { kind: "respond", requestId, decision: { decision: "allow", ...(data.scope !== undefined ? { scope: data.scope } : {}), ...(data.optionId !== undefined ? { optionId: data.optionId } : {}) } };
  }
  if (data.decision === "deny") {
    const decision = { decision: "deny" as const, ...(data.message !== undefined ? { message: data.message } : {}), ...(data.interrupt !== undefined ? { interrupt: data.interrupt } : {}), ...(data.optionId !== undefined ? { optionId: data.optionId } : {}) };
    return { kind: "respond", requestId, decision };
  }
  if (typeof data.optionId === "string") return { kind: "respond", requestId, decision: { optionId: data.optionId } };
  return { kind: "invalid", message: "the data part holds no decision, optionId, answers or declined" };
}

function fromText(text: string, pending: PendingRequest | undefined): Answer {
  if (pending === undefined) return { kind: "invalid", message: "no request is waiting for an answer" };
  const word = text.trim().toLowerCase();
  if (pending.type === "approval") {
    const option = pending.options.find((o) => o.id.toLowerCase() === word || o.label.toLowerCase() === word);
    if (option !== undefined) return { kind: "respond", requestId: pending.requestId, decision: { optionId: option.id } };
    if (ALLOW_WORDS.has(word)) return { kind: "respond", requestId: pending.requestId, decision: { decision: "allow" } };
    if (DENY_WORDS.has(word)) return { kind: "respond", requestId: pending.requestId, decision: { decision: "deny" } };
    return { kind: "invalid", message: "answer allow or deny, or name one of the offered options" };
  }
  if (pending.questions.length !== 1) return { kind: "invalid", message: "several questions wait: answer with a data part { answers: { [questionId]: value } }" };
  return { kind: "answer", requestId: pending.requestId, answers: { [pending.questions[0]!.id]: text.trim() } };
}

/** The answer `message` gives to `pending` (the request the task waits on, when known). */
export function readAnswer(message: Message, pending: PendingRequest | undefined): Answer {
  const data = messageData(message);
  if (data !== undefined) return fromData(data, pending);
  const text = messageText(message);
  if (text.trim() === "") return { kind: "invalid", message: "the message holds no answer" };
  return fromText(text, pending);
}
