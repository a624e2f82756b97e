/**
 * The buttons of an approval card: "Allow" and "Deny" always (a plain decision, or the offered
 * option that carries exactly that label), then every other offered option by its own label.
 * Labels are unique on the card, so a button is found by its name alone.
 */
import type { ApprovalOption } from "./wire.js";

/** What a button POSTs to /approvals/:requestId. */
export type ApprovalAnswer = { decision: "allow" } | { decision: "deny"; message?: string; optionId?: string } | { optionId: string };

export interface ApprovalButton {
  label: string;
  /** `allow` / `deny` for the plain decisions, else the option's id. */
  id: string;
  tone: "allow" | "deny" | "other";
  answer: ApprovalAnswer;
}

export function approvalButtons(options: readonly ApprovalOption[]): ApprovalButton[] {
  const byLabel = (label: string): ApprovalOption | undefined => options.find((o) => o.label === label);
  const allow = byLabel("Allow");
  const deny = byLabel("Deny");
  const buttons: ApprovalButton[] = [
    allow ? { label: "Allow", id: allow.id, tone: "allow", answer: { optionId: allow.id } } : { label: "Allow", id: "allow", tone: "allow", answer: { decision: "allow" } },
    deny ? { label: "Deny", id: deny.id, tone: "deny", answer: { optionId: deny.id } } : { label: "Deny", id: "deny", tone: "deny", answer: { decision: "deny" } },
  ];
  const seen = new Set(["Allow", "Deny"]);
  for (const option of options) {
    if (seen.has(option.label)) continue;
    seen.add(option.label);
    buttons.push({ label: option.label, id: option.id, tone: option.kind === "deny" ? "deny" : option.kind === "other" ? "other" : "allow", answer: { optionId: option.id } });
  }
  return buttons;
}

/**
 * The answer a button sends, with the message typed for the model on a denying one (it reaches the
 * model where the provider has a field for it); an offered option stays selected by its id.
 */
export function answerOf(button: ApprovalButton, denyMessage: string): ApprovalAnswer {
  const message = denyMessage.trim();
  if (button.tone !== "deny" || message === "") return button.answer;
  return "optionId" in button.answer ? { decision: "deny", optionId: button.answer.optionId, message } : { decision: "deny", message };
}
