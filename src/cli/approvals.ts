/**
 * Who answers an approval the CLI sees: the `--approve` / `--deny` policy of a script, a person
 * at the terminal through a select prompt of the offered options, or — with neither — a denial
 * with a line on stderr saying why, so a run without a terminal never waits for an answer.
 */
import select from "@inquirer/select";
import type { ApprovalOption, ApprovalResponse } from "../events/types.js";
import { interactive } from "./terminal.js";

export type ApprovalPolicy = "approve" | "deny" | "ask";

export interface ApprovalPrompt {
  kind: string;
  summary: string;
  options: readonly ApprovalOption[];
}

/** Whether a prompt was abandoned by Ctrl-C (inquirer's `ExitPromptError`) or by the signal (`AbortPromptError`). */
export function promptAbandoned(error: unknown): boolean {
  return error instanceof Error && (error.name === "ExitPromptError" || error.name === "AbortPromptError");
}

/**
 * The answer under `policy`. Only `ask` on a terminal shows a prompt; its Ctrl-C or `signal`
 * rejects (see {@link promptAbandoned}).
 */
export async function decideApproval(request: ApprovalPrompt, policy: ApprovalPolicy, signal: AbortSignal): Promise<ApprovalResponse> {
  if (policy === "approve") return { decision: "allow" };
  if (policy === "deny") return { decision: "deny", message: "denied by the --deny policy" };
  if (!interactive()) {
    process.stderr.write(`approval denied (no terminal to ask; pass --approve or --deny): ${request.kind}: ${oneLine(request.summary)}\n`);
    return { decision: "deny", message: "no one was there to approve it" };
  }
  return promptApproval(request, signal);
}

/**
 * The select prompt, drawn on stderr so stdout stays the results. It is cleared when done — a
 * prompt withdrawn because the request was answered elsewhere leaves nothing behind — and the
 * choice is written as one line.
 */
export async function promptApproval(request: ApprovalPrompt, signal: AbortSignal): Promise<ApprovalResponse> {
  const context = { output: process.stderr, signal, clearPromptOnDone: true };
  const message = `Approve ${request.kind}: ${oneLine(request.summary)}`;
  const choices =
    request.options.length > 0
      ? request.options.map((option) => ({ name: option.label, value: option.id }))
      : [{ name: "Allow", value: "allow" }, { name: "Deny", value: "deny" }];
  const chosen = await select({ message, choices }, context);
  process.stderr.write(`${message}: ${choices.find((choice) => choice.value === chosen)?.name ?? chosen}\n`);
  if (request.options.length > 0) return { optionId: chosen };
  return { decision: chosen === "allow" ? "allow" : "deny" };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
