/**
 * The structured value of a completed run: the provider's own decoded value when it gives one
 * (Claude Code's `structured_output`), else the JSON extracted from the final message; then the
 * schema's validation. A run whose value is missing, not JSON or refused fails with
 * `OutputInvalidError` (`output_invalid`), never silently.
 */
import type { RunResponse } from "../../driver/types.js";
import { extractJson } from "./extract.js";
import type { ResolvedOutput } from "./resolve.js";
import type { OutputIssue } from "./types.js";

export type Decoded = { ok: true; value: unknown } | { ok: false; message: string; issues: OutputIssue[] };

const MAX_LISTED_ISSUES = 3;

export async function decodeStructured(output: ResolvedOutput, response: RunResponse): Promise<Decoded> {
  let value: unknown;
  if (response.structured !== undefined) value = response.structured;
  else {
    const extracted = extractJson(response.text);
    if (!extracted.ok) return { ok: false, message: "structured output: the final message is not a JSON value", issues: [] };
    value = extracted.value;
  }
  const validation = await output.validate(value);
  if (validation.ok) return validation;
  return { ok: false, message: `structured output does not match the schema: ${summary(validation.issues)}`, issues: validation.issues };
}

function summary(issues: readonly OutputIssue[]): string {
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${clip(issue.message)}`);
  const more = issues.length > MAX_LISTED_ISSUES ? `; and ${issues.length - MAX_LISTED_ISSUES} more` : "";
  return `${listed.join("; ")}${more}`;
}

function clip(text: string): string {
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}
