/**
 * The structured value of a completed run: the provider's own decoded value when it gives one
 * (Claude Code's `structured_output`), else the JSON extracted from the final message; then the
 * schema's validation. A run whose value is missing, not JSON or refused fails with
 * `OutputInvalidError` (`output_invalid`), never silently.
 */
import type { RunResponse } from "../../driver/types.js";
import { redactThenClip } from "../../redact/clip.js";
import { extractJson } from "./extract.js";
import type { ResolvedOutput } from "./resolve.js";
import type { OutputIssue } from "./types.js";

export type Decoded = { ok: true; value: unknown } | { ok: false; message: string; issues: OutputIssue[] };

const MAX_LISTED_ISSUES = 3;

/**
 * `redact`: the run's redaction, applied to each issue's message before it is cut for the summary
 * (an issue may quote the model's answer, and a secret cut in half is no longer recognised).
 */
export async function decodeStructured(output: ResolvedOutput, response: RunResponse, redact: (text: string) => string): Promise<Decoded> {
  let value: unknown;
  if (response.structured !== undefined) value = response.structured;
  else {
    const extracted = extractJson(response.text);
    if (!extracted.ok) return { ok: false, message: "structured output: the final message is not a JSON value", issues: [] };
    value = extracted.value;
  }
  const validation = await output.validate(value);
  if (validation.ok) return validation;
  return { ok: false, message: `structured output does not match the schema: ${summary(validation.issues, redact)}`, issues: validation.issues };
}

function summary(issues: readonly OutputIssue[], redact: (text: string) => string): string {
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${redactThenClip(issue.message, redact, 160)}`);
  const more = issues.length > MAX_LISTED_ISSUES ? `; and ${issues.length - MAX_LISTED_ISSUES} more` : "";
  return `${listed.join("; ")}${more}`;
}
