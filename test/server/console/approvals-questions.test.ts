import { describe, expect, it } from "vitest";
import { answerOf, approvalButtons } from "../../../console/src/approvals.js";
import { buildAnswers, controlOf, hasTextField } from "../../../console/src/questions.js";
import type { Question } from "../../../console/src/wire.js";

describe("console approval buttons", () => {
  it("offers plain Allow and Deny, then every offered option by its label (Codex's labels)", () => {
    const buttons = approvalButtons([
      { id: "accept", label: "Allow once", kind: "allow_once" },
      { id: "acceptForSession", label: "Allow for this session", kind: "allow_always" },
      { id: "decline", label: "Deny", kind: "deny" },
      { id: "cancel", label: "Deny and stop the turn", kind: "deny" },
    ]);
    expect(buttons.map((b) => [b.label, b.answer])).toEqual([
      ["Allow", { decision: "allow" }],
      ["Deny", { optionId: "decline" }],
      ["Allow once", { optionId: "accept" }],
      ["Allow for this session", { optionId: "acceptForSession" }],
      ["Deny and stop the turn", { optionId: "cancel" }],
    ]);
  });

  it("uses the offered option labelled exactly Allow / Deny and never repeats a label", () => {
    const buttons = approvalButtons([
      { id: "allow", label: "Allow", kind: "allow_once" },
      { id: "always", label: "Allow for the rest of this conversation", kind: "allow_always" },
      { id: "deny", label: "Deny", kind: "deny" },
      { id: "dup", label: "Allow for the rest of this conversation", kind: "allow_always" },
    ]);
    expect(buttons.map((b) => b.label)).toEqual(["Allow", "Deny", "Allow for the rest of this conversation"]);
    expect(buttons[0]!.answer).toEqual({ optionId: "allow" });
    expect(buttons[1]!.answer).toEqual({ optionId: "deny" });
  });

  it("sends the message typed for the model with a denying button only, keeping the option it selects", () => {
    const [allow, deny, , , stop] = approvalButtons([
      { id: "accept", label: "Allow once", kind: "allow_once" },
      { id: "acceptForSession", label: "Allow for this session", kind: "allow_always" },
      { id: "decline", label: "Deny", kind: "deny" },
      { id: "cancel", label: "Deny and stop the turn", kind: "deny" },
    ]);
    expect(answerOf(deny!, "  use the staging bucket ")).toEqual({ decision: "deny", optionId: "decline", message: "use the staging bucket" });
    expect(answerOf(stop!, "no")).toEqual({ decision: "deny", optionId: "cancel", message: "no" });
    expect(answerOf(allow!, "ignored")).toEqual({ decision: "allow" });
    expect(answerOf(deny!, "   ")).toEqual({ optionId: "decline" });
    const [, plainDeny] = approvalButtons([]);
    expect(answerOf(plainDeny!, "why")).toEqual({ decision: "deny", message: "why" });
  });

  it("still offers Allow and Deny when the request lists no options", () => {
    expect(approvalButtons([]).map((b) => [b.id, b.answer])).toEqual([
      ["allow", { decision: "allow" }],
      ["deny", { decision: "deny" }],
    ]);
  });
});

describe("console question forms", () => {
  const single: Question = { id: "color", question: "Which colour?", options: [{ label: "red" }, { label: "blue" }] };
  const multi: Question = { id: "langs", question: "Which languages?", options: [{ label: "ts" }, { label: "go" }], multiSelect: true, allowOther: true };
  const text: Question = { id: "name", question: "Name?" };
  const secret: Question = { id: "token", question: "API token?", secret: true };

  it("asks each kind with its control", () => {
    expect([single, multi, text, secret].map(controlOf)).toEqual(["single", "multi", "text", "secret"]);
    expect([single, multi, text, secret].map(hasTextField)).toEqual([false, true, true, true]);
    // A secret flag on a question with options still shows the options.
    expect(controlOf({ ...single, secret: true })).toBe("single");
  });

  it("builds the answers body keyed by question id, a list only for multi-select", () => {
    const built = buildAnswers([single, multi, text, secret], {
      color: { picked: ["blue"], text: "" },
      langs: { picked: ["ts", "go"], text: " rust " },
      name: { picked: [], text: "  Ada  " },
      token: { picked: [], text: " s3cret " },
    });
    expect(built).toEqual({ answers: { color: "blue", langs: ["ts", "go", "rust"], name: "Ada", token: " s3cret " }, missing: [] });
  });

  it("lists the questions left unanswered instead of sending them", () => {
    const built = buildAnswers([single, multi, text], { langs: { picked: [], text: "  " }, name: { picked: [], text: "" } });
    expect(built).toEqual({ answers: {}, missing: ["color", "langs", "name"] });
  });
});
