/**
 * Usage of a turn from its `result` line. `usage` is the turn's own (Claude Code adds up the
 * turn's model requests itself). `modelUsage` is the session's running total per model and
 * becomes `cumulative_*` — only when one model is listed, because adding models up would be
 * arithmetic the provider did not do. `total_cost_usd` is the session's running cost (it carries
 * over a resume), so it is `cumulative_cost_usd`: no per-turn cost is reported. Nothing is
 * computed: `total_tokens` stays absent because neither CLI reports it.
 */
import type { Usage } from "../../events/usage.js";
import { count, isObject, type ResultLine } from "./wire.js";

/** `cost`: the dialect's reading of the session's running cost (`total_cost_usd`). */
export function usageOf(result: ResultLine, cost: number | undefined): Usage | undefined {
  const usage: Usage = {};
  const turn = isObject(result.usage) ? result.usage : undefined;
  if (turn) {
    set(usage, "input_tokens", count(turn.input_tokens));
    set(usage, "output_tokens", count(turn.output_tokens));
    set(usage, "cached_input_tokens", count(turn.cache_read_input_tokens));
    set(usage, "cache_creation_input_tokens", count(turn.cache_creation_input_tokens));
  }
  const models = isObject(result.modelUsage) ? Object.values(result.modelUsage).filter(isObject) : [];
  if (models.length === 1) {
    const model = models[0]!;
    set(usage, "cumulative_input_tokens", count(model.inputTokens));
    set(usage, "cumulative_output_tokens", count(model.outputTokens));
    set(usage, "cumulative_cached_input_tokens", count(model.cacheReadInputTokens));
    set(usage, "cumulative_cache_creation_input_tokens", count(model.cacheCreationInputTokens));
    set(usage, "cumulative_reasoning_output_tokens", count(model.thinkingTokens));
    set(usage, "context_size", count(model.contextWindow) || undefined);
  }
  set(usage, "cumulative_cost_usd", cost);
  return Object.keys(usage).length > 0 ? usage : undefined;
}

function set(usage: Usage, key: keyof Usage, value: number | undefined): void {
  if (value !== undefined) usage[key] = value;
}
