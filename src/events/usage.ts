/**
 * Token and cost usage with canonical snake_case keys, one meaning per key on every driver.
 *
 * Three scopes, never mixed in one key:
 * - **Turn** (the plain keys): everything the provider spent on this run's turn, over all of its
 *   model requests (a turn with one tool call is two requests, and the turn's `input_tokens` is the
 *   input of both). Taken from the provider's own per-turn figure where it has one (Claude's
 *   `result.usage`, ACP's `PromptResponse.usage`, Gemini's `_meta.quota.token_count`), otherwise
 *   from the growth of its own running total during the turn (Codex) or its per-request figures,
 *   each request counted once (Pi).
 * - **Cumulative** (`cumulative_*`): the provider's own running total for its conversation, as it
 *   reports it; never added up by the library, and absent when the provider has none.
 * - **Context** (`context_used`, `context_size`): the context window as last reported.
 *
 * Every field is optional: absent means the provider did not report it (nothing is inferred).
 * Token counts are the provider's own: whether `input_tokens` includes cache reads follows the
 * provider's API (OpenAI-style APIs include them, Anthropic's lists them apart), so
 * `cached_input_tokens` is always reported separately when known.
 *
 * A `usage.observed` event carries the fields the provider just reported, each with its current
 * value for the turn (never an increment): keep the latest value per key. `Result.usage` is that
 * merge at the end of the turn.
 */
export interface Usage {
  /** Input (prompt) tokens of all of this turn's model requests. */
  input_tokens?: number;
  /** Output tokens of all of this turn's model requests, reasoning included. */
  output_tokens?: number;
  /** The provider's own total for this turn; never computed by the library. */
  total_tokens?: number;
  /** Input tokens of this turn served from the provider's prompt cache. */
  cached_input_tokens?: number;
  /** Input tokens of this turn written to the provider's prompt cache. */
  cache_creation_input_tokens?: number;
  /** Output tokens of this turn spent on reasoning (part of `output_tokens`). */
  reasoning_output_tokens?: number;
  /** The provider's running total of input tokens for its conversation (all turns so far). */
  cumulative_input_tokens?: number;
  /** The provider's running total of output tokens for its conversation. */
  cumulative_output_tokens?: number;
  /** The provider's running total of all tokens for its conversation. */
  cumulative_total_tokens?: number;
  /** The provider's running total of cache-read input tokens for its conversation. */
  cumulative_cached_input_tokens?: number;
  /** The provider's running total of cache-write input tokens for its conversation. */
  cumulative_cache_creation_input_tokens?: number;
  /** The provider's running total of reasoning tokens for its conversation. */
  cumulative_reasoning_output_tokens?: number;
  /** Tokens in the context window, as the provider last reported it. */
  context_used?: number;
  /** Size of the context window in tokens, as the provider last reported it. */
  context_size?: number;
  /** What this turn cost in US dollars, when the provider reports a per-turn or per-request cost. */
  cost_usd?: number;
  /**
   * The provider's running cost in US dollars for its conversation, as it reports it (some
   * agents count only since their process loaded the conversation: see the driver's docs).
   */
  cumulative_cost_usd?: number;
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
  "cumulative_cost_usd",
];
