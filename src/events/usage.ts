/**
 * Token and cost usage with canonical snake_case keys. Every field is optional: absent means the
 * provider did not report it. Nothing is inferred, summed across provider threads or recomputed.
 */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  cached_input_tokens?: number;
  cache_creation_input_tokens?: number;
  reasoning_output_tokens?: number;
  /** Only when the provider reports a native cumulative snapshot. */
  cumulative_input_tokens?: number;
  cumulative_output_tokens?: number;
  cumulative_total_tokens?: number;
  cumulative_cached_input_tokens?: number;
  cumulative_cache_creation_input_tokens?: number;
  cumulative_reasoning_output_tokens?: number;
  context_used?: number;
  context_size?: number;
  /** Only when the provider reports cost. */
  cost_usd?: number;
}

export const USAGE_KEYS: readonly (keyof Usage)[] = [
  "input_tokens",
  "output_tokens",
  "total_tokens",
  "cached_input_tokens",
  "cache_creation_input_tokens",
  "reasoning_output_tokens",
  "cumulative_input_tokens",
  "cumulative_output_tokens",
  "cumulative_total_tokens",
  "cumulative_cached_input_tokens",
  "cumulative_cache_creation_input_tokens",
  "cumulative_reasoning_output_tokens",
  "context_used",
  "context_size",
  "cost_usd",
];
