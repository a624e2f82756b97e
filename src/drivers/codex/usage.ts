/**
 * Codex token usage in the canonical meaning (see `Usage`). `thread/tokenUsage/updated` carries
 * `last` (the latest model request only) and `total` (Codex's own running total for the thread).
 * The turn's figures are how much Codex's `total` grew during the turn: exact, whatever the
 * number of model requests, and never a sum of ours. `total` itself is `cumulative_*`.
 *
 * After `thread/resume` Codex replays the thread's last snapshot before the turn starts: that
 * snapshot is the turn's starting point, not a request of this turn. Without one (a new thread,
 * or a warm connection), the first update of the turn is its first request, so the start is that
 * update's `total` minus its `last`.
 */
import type { Usage } from "../../events/usage.js";
import { num, open, type Lenient, type Unchecked } from "../../driver/lens.js";
import type { ThreadTokenUsage } from "./protocol/v2/ThreadTokenUsage.js";
import type { TokenUsageBreakdown } from "./protocol/v2/TokenUsageBreakdown.js";

type Breakdown = Lenient<TokenUsageBreakdown>;
type Counts = Partial<Record<keyof TokenUsageBreakdown, number>>;

/** Codex's breakdown field → canonical key (without the `cumulative_` prefix). */
const FIELDS: readonly (readonly [keyof TokenUsageBreakdown, "input_tokens" | "output_tokens" | "total_tokens" | "cached_input_tokens" | "cache_creation_input_tokens" | "reasoning_output_tokens"])[] = [
  ["inputTokens", "input_tokens"],
  ["outputTokens", "output_tokens"],
  ["totalTokens", "total_tokens"],
  ["cachedInputTokens", "cached_input_tokens"],
  ["cacheWriteInputTokens", "cache_creation_input_tokens"],
  ["reasoningOutputTokens", "reasoning_output_tokens"],
];

function counts(b: Breakdown | undefined): Counts {
  const out: Counts = {};
  if (b === undefined) return out;
  for (const [field] of FIELDS) {
    const n = num(b[field]);
    if (n !== undefined) out[field] = n;
  }
  return out;
}

/** `total − last`: the thread's total before the request `last` describes. */
function before(total: Counts, last: Counts): Counts {
  const out: Counts = {};
  for (const [field] of FIELDS) {
    const t = total[field];
    const l = last[field];
    if (t !== undefined && l !== undefined) out[field] = t - l;
  }
  return out;
}

/** Follows one turn's `thread/tokenUsage/updated` notifications. */
export class CodexTurnUsage {
  #turnStarted = false;
  /** Codex's `total` when the turn started. */
  #start: Counts | undefined;
  /** The latest usage of this turn, in canonical keys. */
  current: Usage | undefined;

  /** `turn/started`: updates from now on describe this turn's requests. */
  turnStarted(): void {
    this.#turnStarted = true;
  }

  /** Maps one notification; `undefined` when it says nothing about this turn. */
  observe(tokenUsage: Unchecked<ThreadTokenUsage> | undefined): Usage | undefined {
    const reported = open(tokenUsage);
    if (reported === undefined) return undefined;
    const total = counts(open(reported.total));
    if (!this.#turnStarted) {
      // The snapshot replayed on resume: where this turn starts from.
      this.#start = total;
      return undefined;
    }
    this.#start ??= before(total, counts(open(reported.last)));
    const usage = turnUsage(total, this.#start);
    const window = num(reported.modelContextWindow);
    if (window !== undefined) usage.context_size = window;
    if (Object.keys(usage).length === 0) return undefined;
    this.current = usage;
    return usage;
  }
}

/** The turn's growth of `total` (absent where Codex left a number out or it shrank), and `total` as `cumulative_*`. */
function turnUsage(total: Counts, start: Counts): Usage {
  const usage: Usage = {};
  for (const [field, key] of FIELDS) {
    const now = total[field];
    const from = start[field];
    if (now !== undefined && from !== undefined && now >= from) usage[key] = now - from;
  }
  for (const [field, key] of FIELDS) {
    const now = total[field];
    if (now !== undefined) usage[`cumulative_${key}`] = now;
  }
  return usage;
}
