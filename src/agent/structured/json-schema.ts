/**
 * The JSON Schema side of structured output: the schema sent to providers (from a JSON Schema as
 * given, or converted from a Standard Schema) and its validator (ajv, with the draft the schema
 * names). Every failure here is a `ConfigError`, raised before anything launches.
 */
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { z } from "zod";
import { ConfigError } from "../../errors/index.js";
import type { JsonSchema } from "../../driver/vocabulary.js";
import type { OutputIssue } from "./types.js";

type Converter = (options: { target: string }) => unknown;

/**
 * A Standard Schema's JSON Schema: Standard JSON Schema when the vendor implements it, else zod's
 * converter. The output side (what strict providers want: every property required, no extra
 * ones); the input side — what the schema accepts — when the output cannot be expressed (a transform).
 */
export function jsonSchemaOfStandard(schema: StandardSchemaV1): JsonSchema {
  const props = schema["~standard"] as StandardSchemaV1.Props & { jsonSchema?: { output?: Converter; input?: Converter } };
  const standard = props.jsonSchema;
  const zod = props.vendor === "zod" && "_zod" in schema ? (schema as unknown as z.ZodType) : undefined;
  const sides: Converter[] = [];
  if (typeof standard?.output === "function" && typeof standard.input === "function") sides.push(standard.output, standard.input);
  else if (zod !== undefined) sides.push(() => z.toJSONSchema(zod, { io: "output" }), () => z.toJSONSchema(zod, { io: "input" }));
  let converted: unknown;
  try {
    converted = convertEither(sides);
  } catch (error) {
    throw new ConfigError(`output: the ${props.vendor} schema cannot be converted to JSON Schema (${firstLine(error)})`, "config_invalid");
  }
  if (converted === undefined) {
    throw new ConfigError(
      `output: a ${props.vendor} schema offers no JSON Schema (Standard JSON Schema "~standard.jsonSchema"); pass a JSON Schema or a schema library that implements it`,
      "config_invalid",
    );
  }
  return copyJsonSchema(converted);
}

/** The first side that converts; the last one's failure when none does; undefined when there is none. */
function convertEither(sides: readonly Converter[]): unknown {
  for (const [index, side] of sides.entries()) {
    try {
      return side({ target: "draft-2020-12" });
    } catch (error) {
      if (index === sides.length - 1) throw error;
    }
  }
  return undefined;
}

/** A host's JSON Schema, copied (the host may reuse its object) and checked to be JSON. */
export function copyJsonSchema(schema: unknown): JsonSchema {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(schema)) as unknown;
  } catch {
    copy = undefined;
  }
  if (typeof copy !== "object" || copy === null || Array.isArray(copy)) throw new ConfigError("output: a JSON Schema must be a JSON object", "config_invalid");
  return copy as JsonSchema;
}

/** An ajv validator for the schema, for the draft its `$schema` names (draft-07 when it names none). */
export function compileJsonSchema(schema: JsonSchema): (value: unknown) => OutputIssue[] {
  const options = { strict: false, allErrors: true, logger: false, validateSchema: true } as const;
  const draft = typeof schema.$schema === "string" ? schema.$schema : "";
  const ajv = draft.includes("2020-12") ? new Ajv2020(options) : draft.includes("2019-09") ? new Ajv2019(options) : new Ajv(options);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema as AnySchema);
  } catch (error) {
    throw new ConfigError(`output: the JSON Schema is invalid (${firstLine(error)})`, "config_invalid");
  }
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map(issueOf));
}

function issueOf(error: ErrorObject): OutputIssue {
  const path = error.instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
  return { message: error.message ?? `fails ${error.keyword}`, path };
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
