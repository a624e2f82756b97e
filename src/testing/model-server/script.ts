/**
 * The declarative scenario a scripted model server plays. A script is plain JSON: it can live
 * in a file (`agent-adaptor testing model-server --script file.json`) or be built in a test.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { ConfigError } from "../../errors/index.js";

const nonNegativeInt = z.int().min(0);
const dialectSchema = z.enum(["responses", "chat", "anthropic", "gemini"]);

/**
 * When a turn (or auxiliary rule) applies. Every field given must hold; an empty or absent
 * rule matches any request.
 */
export const matchRuleSchema = z.strictObject({
  /** 1-based position of the request among model-turn requests (auxiliary ones not counted). */
  nth: z.int().min(1).optional(),
  /** Substring of {@link lastUserText}: the latest user text, tool results and reminders excluded. */
  lastUserTextContains: z.string().optional(),
  /** The request carries, after the last assistant message, a tool result for this call id. */
  toolResultFor: z.string().min(1).optional(),
  /**
   * `true`: the request's last message (trailing `system` messages aside) carries a tool result,
   * i.e. the model is called back after a tool ran rather than for a new prompt; `false`: it does not.
   */
  endsWithToolResult: z.boolean().optional(),
  /** The request's dialect, or one of several. */
  dialect: z.union([dialectSchema, z.array(dialectSchema).min(1)]).optional(),
  /** Substring of the system prompt (all `system` messages joined). */
  systemTextContains: z.string().optional(),
  /** Exact model id the request asks for. */
  model: z.string().min(1).optional(),
});

/** A tool call the model makes. */
export const toolCallSchema = z.strictObject({
  /** Call id; default `call_<request>_<n>` (`toolu_…` for Anthropic). */
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  /** Arguments as an object, or as raw text sent verbatim (e.g. deliberately invalid JSON). */
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
});

/** Token usage reported with the answer; each value is written as-is into the dialect's fields. */
export const usageSchema = z.strictObject({
  input_tokens: nonNegativeInt.optional(),
  output_tokens: nonNegativeInt.optional(),
  total_tokens: nonNegativeInt.optional(),
  cached_input_tokens: nonNegativeInt.optional(),
  cache_creation_input_tokens: nonNegativeInt.optional(),
  reasoning_output_tokens: nonNegativeInt.optional(),
});

/** What the model answers. */
export const replySchema = z.strictObject({
  text: z.string().optional(),
  /** Split text, reasoning and tool arguments into deltas of this many characters (default: one delta). */
  chunkSize: z.int().min(1).optional(),
  reasoning: z.string().optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  /** Omitted: `{input_tokens: 10, output_tokens: 5}`. `null`: report no usage at all. */
  usage: usageSchema.nullable().optional(),
});

/** How the answer misbehaves. */
export const faultSchema = z
  .strictObject({
    /** Answer this HTTP status with an error body in the request's dialect (or `body`). */
    status: z.int().min(400).max(599).optional(),
    /** Error body for `status`: JSON value, or a string sent verbatim. */
    body: z.unknown().optional(),
    /** Extra response headers for `status`, e.g. `{"retry-after": "0"}`. */
    headers: z.record(z.string(), z.string()).optional(),
    /** Destroy the connection after this many SSE events (non-streaming: before any byte). */
    cutAfterEvents: nonNegativeInt.optional(),
    /** Wait this long before the first byte. */
    delayMs: z.number().min(0).optional(),
    /** Wait this long between SSE events. */
    dripMs: z.number().min(0).optional(),
  })
  .refine((f) => Object.values(f).some((v) => v !== undefined), { message: "a fault needs at least one field" })
  .refine((f) => !(f.status !== undefined && f.cutAfterEvents !== undefined), {
    message: "a fault cannot have both `status` and `cutAfterEvents`",
  })
  .refine((f) => f.status !== undefined || (f.body === undefined && f.headers === undefined), {
    message: "`body` and `headers` only apply together with `status`",
  });

const needsAnswer = (t: { reply?: unknown; fault?: unknown }): boolean => t.reply !== undefined || t.fault !== undefined;

/** One step of the scenario. */
export const turnSchema = z
  .strictObject({
    /** Free text naming the step in errors and docs. */
    label: z.string().optional(),
    match: matchRuleSchema.optional(),
    reply: replySchema.optional(),
    fault: faultSchema.optional(),
    /**
     * `true`: the step is not consumed; it keeps answering while it matches, and the first
     * request it does not match is tried against the next step. A number: at most that many times.
     */
    repeat: z.union([z.boolean(), z.int().min(1)]).optional(),
  })
  .refine(needsAnswer, { message: "a turn needs a `reply` or a `fault`" });

/** A rule answering side requests anywhere in the conversation without consuming a turn. */
export const auxiliaryRuleSchema = z
  .strictObject({
    label: z.string().optional(),
    match: matchRuleSchema,
    reply: replySchema.optional(),
    fault: faultSchema.optional(),
  })
  .refine(needsAnswer, { message: "an auxiliary rule needs a `reply` or a `fault`" });

/** The whole scenario. */
export const modelScriptSchema = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  /** Model ids listed by `GET /v1/models` (default: ids named in `match.model`, else one default id). */
  models: z.array(z.string().min(1)).optional(),
  /** Extra fields of a listed model's OpenAI-dialect entry, by id (e.g. `{ context_length: 4096 }`), in the listing and `GET /v1/models/{id}`. */
  modelInfo: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  turns: z.array(turnSchema),
  auxiliary: z
    .strictObject({
      /** Built-in detection of known side requests (default `true`). */
      builtin: z.boolean().optional(),
      rules: z.array(auxiliaryRuleSchema).optional(),
    })
    .optional(),
});

export type ModelScript = z.infer<typeof modelScriptSchema>;
export type ScriptTurn = z.infer<typeof turnSchema>;
export type ScriptMatchRule = z.infer<typeof matchRuleSchema>;
export type ScriptReply = z.infer<typeof replySchema>;
export type ScriptToolCall = z.infer<typeof toolCallSchema>;
export type ScriptUsage = z.infer<typeof usageSchema>;
export type ScriptFault = z.infer<typeof faultSchema>;
export type ScriptAuxiliaryRule = z.infer<typeof auxiliaryRuleSchema>;

/** The model id used when neither the request nor the script names one. */
export const DEFAULT_MODEL_ID = "scripted-model";

/**
 * Validates a script. Throws a `ConfigError` (`config_invalid`) listing every problem with its
 * path, e.g. `✖ Invalid input: expected string, received number → at turns[0].reply.text`.
 */
export function parseModelScript(input: unknown): ModelScript {
  const result = modelScriptSchema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(`invalid model script:\n${z.prettifyError(result.error)}`, "config_invalid", {
      cause: result.error,
    });
  }
  return result.data;
}

/** Reads and validates a script file (JSON). */
export async function loadModelScript(file: string): Promise<ModelScript> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    // The path stays out of the message; the cause keeps it for debugging.
    const reason = (cause as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigError(`cannot read the model script file (${reason})`, "config_invalid", { cause });
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (cause) {
    throw new ConfigError(`model script is not valid JSON: ${(cause as Error).message}`, "config_invalid", { cause });
  }
  return parseModelScript(json);
}

/** The model ids the script lists, or names in its match rules, or the default id. */
export function scriptModels(script: ModelScript): string[] {
  if (script.models && script.models.length > 0) return [...script.models];
  const named = new Set<string>();
  for (const step of [...script.turns, ...(script.auxiliary?.rules ?? [])]) {
    if (step.match?.model) named.add(step.match.model);
  }
  return named.size > 0 ? [...named] : [DEFAULT_MODEL_ID];
}
