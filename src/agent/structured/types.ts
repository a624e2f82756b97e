/**
 * The public vocabulary of typed structured output (issue #15 item 7): what a host passes as a
 * call's `output`, and the type `result.structured` takes from it.
 */
import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { JsonSchema } from "../../driver/vocabulary.js";

/** A Standard Schema (zod 4, valibot, ArkType, ...) or a plain JSON Schema object. */
export type OutputSchema = StandardSchemaV1 | JsonSchema;

/**
 * How the schema reaches the model.
 * - `"native"` (default): the provider's own structured-output option (Codex `outputSchema`,
 *   Claude Code `--json-schema`); a driver without one refuses the run before launch with
 *   `FeatureUnsupportedError`.
 * - `"prompted"`: always an instruction appended to the prompt, and the JSON extracted from the
 *   final message.
 * - `"auto"`: native where the driver has it, prompted otherwise.
 */
export type OutputMode = "native" | "prompted" | "auto";

/** A schema with its {@link OutputMode}. */
export interface OutputSpec<S extends OutputSchema = OutputSchema> {
  schema: S;
  mode?: OutputMode;
}

/** What a call's `output` accepts: a schema (mode `"native"`) or an {@link OutputSpec}. */
export type OutputOption = OutputSchema | OutputSpec;

/**
 * The type of `result.structured` for a call's `output`: the schema's output type for a Standard
 * Schema (e.g. `z.infer` of a zod schema), `unknown` for a JSON Schema or no `output`.
 */
export type StructuredOf<O> = O extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<O>
  : O extends { schema: infer S }
    ? S extends StandardSchemaV1
      ? StandardSchemaV1.InferOutput<S>
      : unknown
    : unknown;

/** One reason a structured value was refused: the schema's message and where in the value. */
export interface OutputIssue {
  message: string;
  /** Keys and indexes from the value's root to the offending member; empty for the root. */
  path: (string | number)[];
}
