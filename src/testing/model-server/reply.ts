/**
 * Turns a scripted reply into a dialect-neutral plan (ids, argument text, usage numbers) that
 * each dialect encoder writes in its own wire shape.
 */
import type { ScriptReply } from "./script.js";
import type { ModelDialect } from "./types.js";

export interface PlannedToolCall {
  id: string;
  name: string;
  /** The argument text as sent on the wire (JSON unless the script gave raw text). */
  arguments: string;
  /** The arguments as an object, for dialects that send objects (Anthropic, Gemini). */
  argumentsObject: Record<string, unknown>;
}

export interface PlannedUsage {
  input: number;
  output: number;
  total: number;
  cached: number;
  cacheCreation: number;
  reasoning: number;
}

export interface ReplyPlan {
  /** Seed for ids, unique per request (the request index). */
  seq: number;
  model: string;
  text?: string;
  reasoning?: string;
  toolCalls: PlannedToolCall[];
  /** `undefined`: report no usage. */
  usage?: PlannedUsage;
  /** Delta size in characters; `undefined` = one delta. */
  chunkSize?: number;
}

const DEFAULT_INPUT_TOKENS = 10;
const DEFAULT_OUTPUT_TOKENS = 5;

function objectArguments(args: string | Record<string, unknown> | undefined): Record<string, unknown> {
  if (args === undefined) return {};
  if (typeof args !== "string") return args;
  try {
    const parsed = JSON.parse(args) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // raw text that is not a JSON object: wrapped below
  }
  return { input: args };
}

/** Builds the plan for one answer. */
export function planReply(
  reply: ScriptReply | undefined,
  context: { seq: number; model: string; dialect: ModelDialect },
): ReplyPlan {
  const prefix = context.dialect === "anthropic" ? "toolu" : "call";
  const toolCalls = (reply?.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `${prefix}_${context.seq}_${i}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
    argumentsObject: objectArguments(call.arguments),
  }));
  let usage: PlannedUsage | undefined;
  if (reply?.usage !== null) {
    const u = reply?.usage ?? {};
    const input = u.input_tokens ?? DEFAULT_INPUT_TOKENS;
    const output = u.output_tokens ?? DEFAULT_OUTPUT_TOKENS;
    usage = {
      input,
      output,
      total: u.total_tokens ?? input + output,
      cached: u.cached_input_tokens ?? 0,
      cacheCreation: u.cache_creation_input_tokens ?? 0,
      reasoning: u.reasoning_output_tokens ?? 0,
    };
  }
  const plan: ReplyPlan = { seq: context.seq, model: context.model, toolCalls };
  if (reply?.text !== undefined) plan.text = reply.text;
  if (reply?.reasoning !== undefined) plan.reasoning = reply.reasoning;
  if (usage) plan.usage = usage;
  if (reply?.chunkSize !== undefined) plan.chunkSize = reply.chunkSize;
  return plan;
}

/** The text the answer carries: the scripted text, or `""` when it carries nothing else. */
export function answerText(plan: ReplyPlan): string | undefined {
  if (plan.text !== undefined) return plan.text;
  return plan.toolCalls.length === 0 && plan.reasoning === undefined ? "" : undefined;
}

/** Splits text into deltas of `size` characters (code points); one delta when `size` is unset. */
export function chunks(text: string, size: number | undefined): string[] {
  if (size === undefined || text.length <= size) return [text];
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""));
  return out;
}

/** Seconds since the epoch, for `created` fields. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
