/**
 * Turn selection. Turns are consumed in order: each model-turn request is matched against the
 * current step only, so a script reads top to bottom like the conversation it scripts.
 */
import { endsWithToolResult, lastUserText, pendingToolResults, systemText } from "./capture.js";
import type { ScriptMatchRule, ScriptTurn } from "./script.js";
import type { CapturedMessage, ModelDialect } from "./types.js";

/** What a match rule looks at. */
export interface MatchSubject {
  nth: number;
  dialect: ModelDialect;
  model?: string;
  messages: readonly CapturedMessage[];
}

/** Whether every field of the rule holds for the request. An absent rule matches anything. */
export function ruleMatches(rule: ScriptMatchRule | undefined, subject: MatchSubject): boolean {
  if (!rule) return true;
  if (rule.nth !== undefined && rule.nth !== subject.nth) return false;
  if (rule.dialect !== undefined) {
    const dialects = Array.isArray(rule.dialect) ? rule.dialect : [rule.dialect];
    if (!dialects.includes(subject.dialect)) return false;
  }
  if (rule.model !== undefined && rule.model !== subject.model) return false;
  if (rule.lastUserTextContains !== undefined && !lastUserText(subject).includes(rule.lastUserTextContains)) {
    return false;
  }
  if (rule.systemTextContains !== undefined && !systemText(subject).includes(rule.systemTextContains)) return false;
  if (rule.toolResultFor !== undefined && !pendingToolResults(subject).includes(rule.toolResultFor)) return false;
  if (rule.endsWithToolResult !== undefined && rule.endsWithToolResult !== endsWithToolResult(subject)) return false;
  return true;
}

/** `turns[2] "label" {"toolResultFor":"call_1"}` — how errors name a step. */
export function describeStep(prefix: string, index: number, step: { label?: string; match?: ScriptMatchRule }): string {
  const label = step.label === undefined ? "" : ` ${JSON.stringify(step.label)}`;
  return `${prefix}[${index}]${label} ${JSON.stringify(step.match ?? {})}`;
}

/** The outcome of selecting a turn for a request. */
export type TurnSelection =
  | { kind: "matched"; index: number; turn: ScriptTurn }
  | { kind: "unmatched"; expected: number[] }
  | { kind: "exhausted" };

/**
 * Walks the script. A plain step is consumed by the first request it matches. A `repeat`
 * step stays current while it matches (up to its count when it is a number); a request it
 * does not match is tried against the following step, which then becomes current.
 */
export class TurnCursor {
  #position = 0;
  readonly #uses: number[];

  constructor(readonly turns: readonly ScriptTurn[]) {
    this.#uses = turns.map(() => 0);
  }

  /** 0-based index of the step the next request is matched against. */
  get position(): number {
    return this.#position;
  }

  /** Indexes of the steps that never answered a request. */
  unused(): number[] {
    return this.#uses.flatMap((n, i) => (n === 0 ? [i] : []));
  }

  select(subject: MatchSubject): TurnSelection {
    const current = this.turns[this.#position];
    if (current === undefined) return { kind: "exhausted" };
    if (ruleMatches(current.match, subject)) return this.#take(this.#position, current);
    if (!current.repeat) return { kind: "unmatched", expected: [this.#position] };
    const nextIndex = this.#position + 1;
    const next = this.turns[nextIndex];
    if (next === undefined) return { kind: "unmatched", expected: [this.#position] };
    if (!ruleMatches(next.match, subject)) return { kind: "unmatched", expected: [this.#position, nextIndex] };
    this.#position = nextIndex;
    return this.#take(nextIndex, next);
  }

  #take(index: number, turn: ScriptTurn): TurnSelection {
    const uses = (this.#uses[index] ?? 0) + 1;
    this.#uses[index] = uses;
    const stays = turn.repeat === true || (typeof turn.repeat === "number" && uses < turn.repeat);
    if (!stays) this.#position = index + 1;
    return { kind: "matched", index, turn };
  }
}
