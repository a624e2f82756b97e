/**
 * Codex's offered decisions become options with stable ids, and a decision selecting one by id is
 * answered with that decision exactly as Codex offered it (the prefix amendment included); questions
 * keep Codex's free-text and secret flags (issue #15 item 4).
 */
import { describe, expect, it } from "vitest";
import { commandDecision, mapQuestions, offeredDecisions, v2Decision } from "../../../src/drivers/codex/approvals.js";

const AMEND = { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["npm", "test"] } };

describe("codex approval options", () => {
  const offered = offeredDecisions(["accept", AMEND, "decline", "cancel"]);

  it("lists the offered decisions with their ids, kinds and what an amendment remembers", () => {
    expect(offered.options).toEqual([
      { id: "accept", label: "Allow once", kind: "allow_once" },
      { id: "acceptWithExecpolicyAmendment", label: "Allow and remember the command prefix `npm test`", kind: "allow_always" },
      { id: "decline", label: "Deny", kind: "deny" },
      { id: "cancel", label: "Deny and stop the turn", kind: "deny" },
    ]);
  });

  it("answers a selected option verbatim, amendment included; without an id by kind", () => {
    expect(commandDecision({ decision: "allow", scope: "session", optionId: "acceptWithExecpolicyAmendment" }, offered)).toEqual(AMEND);
    expect(commandDecision({ decision: "deny", optionId: "cancel" }, offered)).toBe("cancel");
    expect(commandDecision({ decision: "deny", message: "no" }, offered)).toBe("decline");
    expect(commandDecision({ decision: "allow" }, offered)).toBe("accept");
    expect(v2Decision({ decision: "allow", optionId: "acceptForSession" }, offeredDecisions(undefined).options)).toBe("acceptForSession");
  });

  it("keeps isOther and isSecret on questions", () => {
    const questions = mapQuestions({
      questions: [
        { id: "a", header: "Name", question: "Pick", isOther: true, isSecret: false, options: [{ label: "x", description: "the x" }] },
        { id: "b", header: "", question: "Token?", isOther: false, isSecret: true, options: null },
      ],
    } as never);
    expect(questions).toEqual([
      { id: "a", header: "Name", question: "Pick", allowOther: true, options: [{ label: "x", description: "the x" }], multiSelect: false },
      { id: "b", question: "Token?", secret: true, multiSelect: false },
    ]);
  });
});
