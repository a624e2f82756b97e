/**
 * Zod validation that fails with a `ConfigError` naming the path of each bad field. Messages
 * never carry a field's value (it could be a secret: an MCP header, an environment variable);
 * the one exception is a short value refused by an enumeration, which names a mode, not data.
 */
import { z } from "zod";
import { ConfigError } from "../errors/index.js";

const MAX_REPORTED_ISSUES = 3;
const ENUM_VALUE = /^[\w .:/-]{0,40}$/;

/** `mcp[0].env.TOKEN` from `["mcp", 0, "env", "TOKEN"]`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Of a union's branches, the one whose issues reach deepest: the shape the caller meant. */
function closestBranch(branches: z.core.$ZodIssue[][]): z.core.$ZodIssue[] {
  const depth = (issues: z.core.$ZodIssue[]) => Math.max(0, ...issues.map((issue) => issue.path.length));
  return branches.reduce((best, branch) => (depth(branch) > depth(best) ? branch : best), branches[0] ?? []);
}

function describe(issue: z.core.$ZodIssue): string[] {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => `${fieldPath([...issue.path, key])}: unknown key`);
  }
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    return closestBranch(issue.errors).flatMap((inner) => describe({ ...inner, path: [...issue.path, ...inner.path] }));
  }
  let message = issue.message.replace(/^Invalid input: /, "");
  if (issue.code === "invalid_type" && issue.input === undefined) message = "required";
  if (issue.code === "invalid_value") {
    message = `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(" | ")}`;
    if (typeof issue.input === "string" && ENUM_VALUE.test(issue.input)) message += `, got ${JSON.stringify(issue.input)}`;
  }
  const where = fieldPath(issue.path);
  return [where === "" ? message : `${where}: ${message}`];
}

/**
 * Parses `value` with `schema`: the parsed copy, or a `ConfigError` (`config_invalid`) whose
 * message starts with `prefix` and names the bad fields.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix = ""): z.output<S> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.flatMap(describe);
  const shown = problems.slice(0, MAX_REPORTED_ISSUES).join("; ");
  const more = problems.length > MAX_REPORTED_ISSUES ? ` (and ${problems.length - MAX_REPORTED_ISSUES} more)` : "";
  throw new ConfigError(`${prefix}${shown}${more}`);
}

/** A non-empty string. */
export const nonEmptyString = z.string().min(1, "expected a non-empty string");

/** An absolute http(s) URL. */
export const httpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}, "expected an http(s) URL");

/** An environment variable name. */
export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name");

/** Explicit child variables; `undefined` removes one. */
export const childEnvSchema = z.record(z.string(), z.string().optional());

/** A plain object whose values are strings. */
export const stringRecord = z.record(z.string(), z.string());

/** A JSON value (no functions, symbols, bigints, non-finite numbers or cycles), within depth. */
export function isJsonValue(value: unknown, depth = 0, seen = new Set<object>()): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || seen.has(value)) return false;
  if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return false;
  seen.add(value);
  const ok = Object.values(value).every((item) => isJsonValue(item, depth + 1, seen));
  seen.delete(value);
  return ok;
}

/** A JSON object (such as a JSON Schema document), copied by parsing. */
export const jsonObject = z
  .custom<{ [key: string]: unknown }>(
    (value) => typeof value === "object" && value !== null && !Array.isArray(value) && isJsonValue(value),
    "expected a JSON object",
  )
  .transform((value) => structuredClone(value));

/** A function (handlers). */
export function functionOf<F extends (...args: never[]) => unknown>() {
  return z.custom<F>((value) => typeof value === "function", "expected a function");
}
