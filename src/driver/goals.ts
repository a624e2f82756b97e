/**
 * Native goals (DESIGN §10): a provider-kept objective a conversation works towards, with the
 * provider's own accounting. Only what a provider offers is modelled — no invented budgets or
 * states. The SPI half is `Driver.goals` (its request, `GoalRequest`, is in types.ts); the host half
 * is `GoalControl` (`Thread.goal()`).
 */

/**
 * A goal's state as the provider reports it. `blocked`, `usage_limited`, `budget_limited` and
 * `complete` are set by the provider; a host sets only `active` and `paused`.
 */
export type GoalStatus = "active" | "paused" | "blocked" | "usage_limited" | "budget_limited" | "complete";

/** The statuses a host may set. */
export type SettableGoalStatus = "active" | "paused";

/** A provider conversation's goal. */
export interface Goal {
  objective: string;
  status: GoalStatus;
  /** The provider's token budget for the goal; absent: none. */
  tokenBudget?: number;
  /** Tokens the provider counted against the goal so far. */
  tokensUsed: number;
  /** Seconds the provider counted against the goal so far. */
  timeUsedSeconds: number;
  /** ISO-8601. */
  createdAt: string;
  /** ISO-8601. */
  updatedAt: string;
}

/**
 * One goal operation. `probe` asks whether the provider has goals at all (failing closed: any
 * answer but "supported" is unsupported); `set` changes only the fields given (`tokenBudget: null`
 * removes the budget); `set` with an `objective` on a conversation without a goal creates one.
 */
export type GoalOperation =
  | { op: "probe" }
  | { op: "get" }
  | { op: "set"; objective?: string; status?: SettableGoalStatus; tokenBudget?: number | null }
  | { op: "clear" };

/** The answer: unsupported with the provider's reason, or the goal as it now stands. */
export type GoalResponse =
  | { supported: false; reason: string }
  | {
      supported: true;
      /** The goal after the operation (`get`, `set`); absent when the conversation has none. */
      goal?: Goal;
      /** `clear`: whether there was a goal to clear. */
      cleared?: boolean;
    };
