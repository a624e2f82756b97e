/**
 * Argument validation of a tool call: the model's JSON is checked against the tool's zod schema,
 * and a mismatch comes back as an error outcome naming each problem, so the model can retry.
 */
import type { z } from "zod";

import { redactThenClip } from "../../../redact/clip.js";
import type { ToolOutcome } from "./types.js";

/** The arguments as the model sent them: an object, or its JSON text. */
function asObject(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  if (args.trim() === "") return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** The parsed arguments, or the error outcome to return. */
export function parseArgs<T>(tool: string, schema: z.ZodType<T>, args: unknown): { value: T } | { error: ToolOutcome } {
  const result = schema.safeParse(asObject(args));
  if (result.success) return { value: result.data };
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join(".") : "arguments";
    return `${where}: ${issue.message}`;
  });
  return { error: failure(`invalid arguments for ${tool}: ${problems.join("; ")}`) };
}

/** An error outcome the model sees. */
export function failure(output: string): ToolOutcome {
  return { output, isError: true };
}

/** A string field of arguments that may be invalid, for titles. */
export function field(args: unknown, name: string): string | undefined {
  const object = asObject(args);
  if (typeof object !== "object" || object === null) return undefined;
  const value = (object as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/** `text` on one line, redacted by `redact`, then cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 120, redact: (text: string) => string = (t) => t): string {
  return redactThenClip(text.replace(/\s+/g, " ").trim(), redact, max);
}
