/**
 * Checks a host's answer against the request it answers: an approval decision (or a bare offered
 * `optionId`) becomes one canonical `ApprovalDecision` whose `decision` agrees with the option's
 * kind; answers to questions must name the request's questions. A misfit is a
 * `ResponseRejectedError` (`response_invalid`) naming what is wrong, never the host's values.
 */
import { ResponseRejectedError } from "../errors/index.js";
import type { ApprovalDecision, ApprovalOption, ApprovalResponse, Question } from "../events/types.js";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The decision `response` stands for on a request offering `options`; throws `response_invalid`. */
export function normalizeDecision(requestId: string, response: ApprovalResponse, options: readonly ApprovalOption[]): ApprovalDecision {
  const invalid = (why: string) => new ResponseRejectedError("response_invalid", requestId, `the decision for ${requestId} ${why}`);
  if (!isRecord(response)) throw invalid("is not an object");
  const optionId = response.optionId;
  if (optionId !== undefined && typeof optionId !== "string") throw invalid("has an optionId that is not a string");
  const option = optionId === undefined ? undefined : options.find((o) => o.id === optionId);
  if (optionId !== undefined && option === undefined) {
    throw invalid(`selects an option the request did not offer (offered: ${options.map((o) => o.id).join(", ") || "none"})`);
  }
  if (!("decision" in response)) {
    if (option === undefined) throw invalid("needs `decision` or `optionId`");
    return fromOption(option);
  }
  if (response.decision !== "allow" && response.decision !== "deny") throw invalid('has a `decision` other than "allow" or "deny"');
  if (option !== undefined && option.kind !== "other" && (option.kind === "deny") !== (response.decision === "deny")) {
    throw invalid(`says ${response.decision} but selects the ${option.kind} option ${option.id}`);
  }
  return { ...response };
}

/** The decision an offered option stands for; an option of kind `other` is an allow. */
function fromOption(option: ApprovalOption): ApprovalDecision {
  switch (option.kind) {
    case "deny":
      return { decision: "deny", optionId: option.id };
    case "allow_always":
      return { decision: "allow", scope: "session", optionId: option.id };
    case "allow_once":
      return { decision: "allow", scope: "once", optionId: option.id };
    default:
      return { decision: "allow", optionId: option.id };
  }
}

/** Answers from the stream: every question answered, by id, with strings; throws `response_invalid`. */
export function checkAnswers(requestId: string, answers: unknown, questions: readonly Question[]): Record<string, string | string[]> {
  const invalid = (why: string) => new ResponseRejectedError("response_invalid", requestId, `the answers for ${requestId} ${why}`);
  if (!isRecord(answers)) throw invalid("are not an object keyed by question id");
  for (const id of Object.keys(answers)) {
    if (!questions.some((q) => q.id === id)) throw invalid(`name a question the request did not ask (asked: ${questions.map((q) => q.id).join(", ")})`);
  }
  const out: Record<string, string | string[]> = {};
  for (const question of questions) {
    const value = answers[question.id];
    if (value === undefined) throw invalid(`leave question ${question.id} unanswered`);
    const many = Array.isArray(value);
    if (many ? !value.every((v) => typeof v === "string") : typeof value !== "string") throw invalid(`give question ${question.id} a value that is not text`);
    if (many && value.length > 1 && question.multiSelect !== true) throw invalid(`give several values to question ${question.id}, which is not multi-select`);
    out[question.id] = many ? [...(value as string[])] : (value as string);
  }
  return out;
}
