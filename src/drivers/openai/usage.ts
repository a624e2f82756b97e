/**
 * Token usage in the canonical meaning (see `Usage`). The endpoint reports usage per model
 * request; the turn's figures are those over the turn's requests, each counted once, and a key
 * any request left out stays absent for the turn. This driver is the agent, so its conversation's
 * running totals (`cumulative_*`) are its own: the stored turns' figures plus this turn's.
 * `context_used` is the last request's input and output (what the next request starts from);
 * `context_size` the configured `contextWindow`.
 */
import type { Usage } from "../../events/usage.js";
import type { TurnTokens } from "./conversation.js";
import type { RequestUsage } from "./wire/types.js";

const KEYS = ["input", "output", "total", "cached", "reasoning", "cost"] as const;
type Key = (typeof KEYS)[number];

const TURN_NAME: Record<Key, keyof Usage> = {
  input: "input_tokens",
  output: "output_tokens",
  total: "total_tokens",
  cached: "cached_input_tokens",
  reasoning: "reasoning_output_tokens",
  cost: "cost_usd",
};
const CUMULATIVE_NAME: Record<Key, keyof Usage> = {
  input: "cumulative_input_tokens",
  output: "cumulative_output_tokens",
  total: "cumulative_total_tokens",
  cached: "cumulative_cached_input_tokens",
  reasoning: "cumulative_reasoning_output_tokens",
  cost: "cumulative_cost_usd",
};

/** Sums `b` into `a` key by key; a key missing from either stays absent (a partial sum is never shown as whole). */
function sum(a: TurnTokens | undefined, b: TurnTokens): TurnTokens {
  if (a === undefined) return { ...b };
  const out: TurnTokens = {};
  for (const key of KEYS) if (a[key] !== undefined && b[key] !== undefined) out[key] = a[key] + b[key];
  return out;
}

/** The figures of several turns together; unknown (undefined) when one of them has none. */
export function sumTurns(turns: readonly (TurnTokens | undefined)[]): TurnTokens | undefined {
  let total: TurnTokens | undefined;
  for (const tokens of turns) {
    if (tokens === undefined) return undefined;
    total = sum(total, tokens);
  }
  return total;
}

/** One turn's usage, request by request. */
export class TurnUsage {
  readonly #before: TurnTokens | undefined;
  #contextSize: number | undefined;
  #turn: TurnTokens | undefined;
  #context: number | undefined;

  /** `previous`: the usage of the conversation's earlier turns. */
  constructor(previous: readonly (TurnTokens | undefined)[], contextSize: number | undefined) {
    let before: TurnTokens | undefined;
    let complete = true;
    for (const tokens of previous) {
      if (tokens === undefined) complete = false;
      else before = sum(before, tokens);
    }
    // A turn without figures (an endpoint that reported none) makes every running total unknown.
    this.#before = complete ? before : {};
    this.#contextSize = contextSize;
  }

  /** The context window, once it is known (looked up after the turn started). */
  set contextSize(size: number | undefined) {
    this.#contextSize = size;
  }

  /** Adds one request; returns the usage to report now. */
  add(request: RequestUsage, options: { context?: boolean } = {}): Usage {
    this.#turn = sum(this.#turn, request);
    // A side request (a compaction's summary) is paid for but is not what the next request starts from.
    if (request.input !== undefined && options.context !== false) this.#context = request.input + (request.output ?? 0);
    return this.current()!;
  }

  /** The turn's figures so far, for the stored conversation. */
  get tokens(): TurnTokens | undefined {
    return this.#turn === undefined ? undefined : { ...this.#turn };
  }

  current(): Usage | undefined {
    if (this.#turn === undefined) return undefined;
    const usage: Usage = {};
    for (const key of KEYS) {
      const turn = this.#turn[key];
      if (turn === undefined) continue;
      usage[TURN_NAME[key]] = turn;
      const before = this.#before === undefined ? 0 : this.#before[key];
      if (before !== undefined) usage[CUMULATIVE_NAME[key]] = before + turn;
    }
    if (this.#context !== undefined) usage.context_used = this.#context;
    if (this.#contextSize !== undefined) usage.context_size = this.#contextSize;
    return usage;
  }
}
