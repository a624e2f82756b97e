/**
 * Question forms: how each question is asked, and the answers body built from what was entered.
 * A question with options is a radio group (checkboxes when `multiSelect`), plus a text field when
 * `allowOther`; without options it is a text field, masked when `secret`.
 */
import type { Question } from "./wire.js";

export type QuestionControl = "single" | "multi" | "text" | "secret";

export function controlOf(question: Question): QuestionControl {
  if (question.options !== undefined && question.options.length > 0) return question.multiSelect === true ? "multi" : "single";
  return question.secret === true ? "secret" : "text";
}

/** Whether a free-text field is shown (besides options, when `allowOther`). */
export function hasTextField(question: Question): boolean {
  const control = controlOf(question);
  return control === "text" || control === "secret" || question.allowOther === true;
}

/** What was entered for one question: the options picked and the text typed. */
export interface Entered {
  picked: string[];
  text: string;
}

/**
 * The answers body (`{ answers }`): a multi-select answers a list, anything else one string
 * (the text typed wins over a picked option when both are given for `allowOther`). Questions with
 * nothing entered are listed in `missing`.
 */
export function buildAnswers(questions: readonly Question[], entered: Readonly<Record<string, Entered>>): { answers: Record<string, string | string[]>; missing: string[] } {
  const answers: Record<string, string | string[]> = {};
  const missing: string[] = [];
  for (const question of questions) {
    const value = entered[question.id] ?? { picked: [], text: "" };
    const text = controlOf(question) === "secret" ? value.text : value.text.trim();
    if (controlOf(question) === "multi") {
      const list = text !== "" ? [...value.picked, text] : value.picked;
      if (list.length === 0) missing.push(question.id);
      else answers[question.id] = list;
    } else if (text !== "") answers[question.id] = text;
    else if (value.picked[0] !== undefined) answers[question.id] = value.picked[0];
    else missing.push(question.id);
  }
  return { answers, missing };
}
