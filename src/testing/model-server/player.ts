/**
 * Decides how each model request is answered: by an auxiliary rule of the script, by a
 * built-in auxiliary answer, by the current scripted turn, or refused with the step it missed.
 * Pure logic with the script's position as its only state; no HTTP here.
 */
import { detectBuiltinAuxiliary } from "./auxiliary.js";
import { lastUserText } from "./capture.js";
import { TurnCursor, describeStep, ruleMatches } from "./matcher.js";
import type { MatchSubject } from "./matcher.js";
import type { ModelScript, ScriptFault, ScriptReply } from "./script.js";
import type { ModelDialect, NormalizedRequest } from "./types.js";

/** How to answer one model request. */
export type Decision =
  | {
      kind: "answer";
      reply?: ScriptReply;
      fault?: ScriptFault;
      /** Set for auxiliary answers: which rule answered. */
      auxiliaryReason?: string;
      /** Set for scripted turns. */
      nth?: number;
      matchedTurn?: number;
    }
  | {
      kind: "refuse";
      nth: number;
      code: "script_unmatched" | "script_exhausted";
      /** One-line explanation naming the request and the step(s) it was expected to match. */
      error: string;
      /** Machine-readable detail added to the error body as `script`. */
      detail: Record<string, unknown>;
    };

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export class ScriptPlayer {
  readonly #script: ModelScript;
  readonly #cursor: TurnCursor;
  #modelTurns = 0;

  constructor(script: ModelScript) {
    this.#script = script;
    this.#cursor = new TurnCursor(script.turns);
  }

  /** Indexes of turns that have not answered any request yet. */
  unusedTurns(): number[] {
    return this.#cursor.unused();
  }

  decide(requestIndex: number, dialect: ModelDialect, request: NormalizedRequest, body: unknown): Decision {
    const subject: MatchSubject = { nth: this.#modelTurns + 1, dialect, messages: request.messages };
    if (request.model !== undefined) subject.model = request.model;

    const rules = this.#script.auxiliary?.rules ?? [];
    const ruleIndex = rules.findIndex((rule) => ruleMatches(rule.match, subject));
    const rule = rules[ruleIndex];
    if (rule) {
      const decision: Decision = { kind: "answer", auxiliaryReason: `auxiliary.rules[${ruleIndex}]` };
      if (rule.reply) decision.reply = rule.reply;
      if (rule.fault) decision.fault = rule.fault;
      return decision;
    }
    if (this.#script.auxiliary?.builtin !== false) {
      const side = detectBuiltinAuxiliary(dialect, request, body);
      if (side) return { kind: "answer", reply: side.reply, auxiliaryReason: side.reason };
    }

    const nth = ++this.#modelTurns;
    const selection = this.#cursor.select(subject);
    if (selection.kind === "matched") {
      const decision: Decision = { kind: "answer", nth, matchedTurn: selection.index };
      if (selection.turn.reply) decision.reply = selection.turn.reply;
      if (selection.turn.fault) decision.fault = selection.turn.fault;
      return decision;
    }
    const seen = `request ${requestIndex} (${dialect}, nth ${nth}, last user text ${JSON.stringify(clip(lastUserText(request)))})`;
    if (selection.kind === "exhausted") {
      return {
        kind: "refuse",
        nth,
        code: "script_exhausted",
        error: `script exhausted: all ${this.#script.turns.length} turns were used; ${seen} was not expected`,
        detail: { reason: "exhausted", request: requestIndex },
      };
    }
    const expected = selection.expected.flatMap((index) => {
      const turn = this.#script.turns[index];
      return turn ? [{ index, turn }] : [];
    });
    const steps = expected.map(({ index, turn }) => describeStep("turns", index, turn)).join(" or ");
    return {
      kind: "refuse",
      nth,
      code: "script_unmatched",
      error: `${seen} did not match the expected step ${steps}`,
      detail: {
        reason: "unmatched",
        request: requestIndex,
        expected: expected.map(({ index, turn }) => ({
          turn: index,
          ...(turn.label === undefined ? {} : { label: turn.label }),
          match: turn.match ?? {},
        })),
      },
    };
  }
}
