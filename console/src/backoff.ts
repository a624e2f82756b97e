/** Reconnect delays: exponential from `baseMs`, capped at `maxMs`, with "equal jitter" so viewers do not reconnect in step. */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** A number in [0, 1); `Math.random` in the browser, fixed in tests. */
  random: () => number;
}

export const DEFAULT_BACKOFF: Omit<BackoffOptions, "random"> = { baseMs: 500, maxMs: 15_000 };

/** The delay before reconnect attempt `attempt` (0 = the first retry), ms. */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const exp = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(attempt, 30));
  const half = exp / 2;
  return Math.round(half + half * options.random());
}
