/**
 * A call's `output` (or the deprecated `outputSchema`) resolved once, when the call's settings
 * are merged: the JSON Schema for the provider, the mode, and the validator of the decoded value.
 * A schema that cannot be used is a `ConfigError` then, before anything launches.
 */
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { ConfigError } from "../../errors/index.js";
import type { JsonSchema } from "../../driver/vocabulary.js";
import { compileJsonSchema, copyJsonSchema, jsonSchemaOfStandard } from "./json-schema.js";
import type { OutputIssue, OutputMode, OutputOption, OutputSpec } from "./types.js";

const MODES: Record<OutputMode, true> = { native: true, prompted: true, auto: true };

/** The outcome of validating a decoded value: the schema's output value, or why it was refused. */
export type Validation = { ok: true; value: unknown } | { ok: false; issues: OutputIssue[] };

export interface ResolvedOutput {
  readonly mode: OutputMode;
  /** What providers are sent (native) or shown (prompted). */
  readonly jsonSchema: JsonSchema;
  validate(value: unknown): Promise<Validation>;
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return typeof props === "object" && props !== null && typeof (props as { validate?: unknown }).validate === "function";
}

/** `{ schema, mode? }` and nothing else: a spec, not a JSON Schema (which has no `schema` keyword). */
export function isOutputSpec(value: unknown): value is OutputSpec {
  if (typeof value !== "object" || value === null || Array.isArray(value) || isStandardSchema(value)) return false;
  const keys = Object.keys(value);
  return keys.includes("schema") && keys.every((key) => key === "schema" || key === "mode");
}

/** Whether `value` has the shape of an `output` option (its schema is checked by {@link resolveOutput}). */
export function isOutputOption(value: unknown): value is OutputOption {
  if (isStandardSchema(value) || isOutputSpec(value)) return true;
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Resolves `output`; throws `ConfigError` for a mode or schema that cannot be used. */
export function resolveOutput(option: OutputOption): ResolvedOutput {
  const spec: OutputSpec = isOutputSpec(option) ? option : { schema: option };
  const mode = spec.mode ?? "native";
  if (!Object.hasOwn(MODES, mode)) throw new ConfigError(`output.mode must be "native", "prompted" or "auto"`, "config_invalid");
  const { schema } = spec;
  if (isStandardSchema(schema)) {
    const jsonSchema = jsonSchemaOfStandard(schema);
    return { mode, jsonSchema, validate: (value) => validateStandard(schema, value) };
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new ConfigError("output must be a Standard Schema (zod, valibot, ...), a JSON Schema object or { schema, mode }", "config_invalid");
  }
  const jsonSchema = copyJsonSchema(schema);
  const check = compileJsonSchema(jsonSchema);
  return {
    mode,
    jsonSchema,
    validate: async (value) => {
      const issues = check(value);
      return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
    },
  };
}

async function validateStandard(schema: StandardSchemaV1, value: unknown): Promise<Validation> {
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema["~standard"].validate(value);
  } catch (error) {
    // A throwing refinement or transform refuses the value; the run still ends with its terminal.
    const message = error instanceof Error ? error.message.split("\n")[0]! : "the schema threw";
    return { ok: false, issues: [{ message: `the schema threw: ${message}`, path: [] }] };
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, issues: result.issues.map((issue) => ({ message: issue.message, path: (issue.path ?? []).map(pathKey) })) };
}

function pathKey(segment: PropertyKey | StandardSchemaV1.PathSegment): string | number {
  const key = typeof segment === "object" ? segment.key : segment;
  return typeof key === "number" ? key : String(key);
}
