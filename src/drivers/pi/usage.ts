/**
 * Pi token usage in the canonical meaning (see `Usage`). Pi reports usage only per assistant
 * message — one model request — on `message_end`, with no per-turn or running total on the event
 * stream. The turn's figures are therefore those per-request figures over the turn's requests,
 * each request counted once; a key any request left out stays absent for the turn, so a partial
 * sum is never passed off as the whole. No `cumulative_*` and no context figures: Pi's events
 * carry none.
 */
import type { Usage } from "../../events/usage.js";

type TurnKey = "input_tokens" | "output_tokens" | "total_tokens" | "cached_input_tokens" | "cache_creation_input_tokens" | "cost_usd";
const TURN_KEYS: readonly TurnKey[] = ["input_tokens", "output_tokens", "total_tokens", "cached_input_tokens", "cache_creation_input_tokens", "cost_usd"];

/** The turn's usage over its model requests so far. */
export class PiTurnUsage {
  #requests = 0;
  #totals: Usage = {};

  /** Adds one request's usage; returns the turn's usage so far. */
  add(request: Usage): Usage {
    const next: Usage = {};
    for (const key of TURN_KEYS) {
      const value = request[key];
      const sofar = this.#requests === 0 ? 0 : this.#totals[key];
      if (value !== undefined && sofar !== undefined) next[key] = sofar + value;
    }
    this.#requests += 1;
    this.#totals = next;
    return { ...next };
  }

  get current(): Usage | undefined {
    return this.#requests === 0 ? undefined : { ...this.#totals };
  }
}
