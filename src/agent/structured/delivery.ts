/**
 * How a run's structured output reaches the model, decided before anything launches: the
 * driver's native option, or the prompted instruction; a native-only request to a driver without
 * one is refused (`FeatureUnsupportedError`) instead of being silently dropped.
 */
import type { RunRequest, RunResponse } from "../../driver/types.js";
import type { JsonSchema } from "../../driver/vocabulary.js";
import { FeatureUnsupportedError, OutputInvalidError } from "../../errors/index.js";
import type { Redactor } from "../../redact/redact.js";
import type { RunFailure } from "../../events/types.js";
import type { Decoded } from "./decode.js";
import { promptedInstruction } from "./prompted.js";
import type { ResolvedOutput } from "./resolve.js";

export type OutputDelivery = "native" | "prompted";

export function outputDelivery(output: ResolvedOutput, nativeSupported: boolean, driverId: string): OutputDelivery {
  if (output.mode === "prompted") return "prompted";
  if (nativeSupported) return "native";
  if (output.mode === "auto") return "prompted";
  throw new FeatureUnsupportedError('structured output (pass output: { schema, mode: "prompted" } to ask for it in the prompt)', driverId);
}

/** The run request carrying the schema: natively as `outputSchema`, or as the prompt's instruction. */
export function deliverOutput(request: RunRequest, output: ResolvedOutput, delivery: OutputDelivery): void {
  if (delivery === "native") request.outputSchema = structuredClone(output.jsonSchema);
  else request.prompt = `${request.prompt}${promptedInstruction(output.jsonSchema)}`;
}

/** The failure of a run whose answer is not the structured output asked for, redacted. */
export function outputFailure(
  decoded: Extract<Decoded, { ok: false }>,
  response: RunResponse,
  partial: { runId: string; providerSessionId?: string },
  redactor: Redactor,
): { failure: RunFailure; error: OutputInvalidError } {
  const message = redactor.redactText(decoded.message);
  // The provider's own decoded value, when it gave one, is the raw answer; else the final message.
  const raw = response.structured !== undefined ? JSON.stringify(response.structured) : response.text;
  const issues = decoded.issues.map((issue) => ({ message: redactor.redactText(issue.message), path: issue.path }));
  const error = new OutputInvalidError(message, { ...partial, text: redactor.redactText(raw) }, issues);
  return { failure: { code: "output_invalid", message, phase: "after_delivery", retryable: true }, error };
}

/** A provider that validates its model's answer itself gave up on it (Claude Code's retries). */
export function providerGaveUp(failure: RunFailure): boolean {
  return failure.code === "structured_output_failed";
}

/** `output_invalid` for a provider that gave up: its message (redacted) says why; no issues of the schema's own. */
export function givenUpFailure(
  providerMessage: string,
  partial: { runId: string; text: string; providerSessionId?: string },
  redactor: Redactor,
): { failure: RunFailure; error: OutputInvalidError } {
  const message = redactor.redactText(`structured output: the provider refused the model's answers until it gave up: ${providerMessage}`);
  const error = new OutputInvalidError(message, { ...partial, text: redactor.redactText(partial.text) });
  return { failure: { code: "output_invalid", message, phase: "after_delivery", retryable: true }, error };
}

/** The schema a run sends natively, if it does (for the driver's standby decision); never throws. */
export function nativeOutputSchema(output: ResolvedOutput | undefined, nativeSupported: boolean): JsonSchema | undefined {
  if (output === undefined || !nativeSupported || output.mode === "prompted") return undefined;
  return structuredClone(output.jsonSchema);
}
