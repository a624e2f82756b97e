/**
 * Cost and token ceilings (DESIGN §10) from provider-reported figures only: a run's cost is the
 * `cost_usd` its provider reported for the turn or, where the provider reports only its running
 * total for the conversation (`cumulative_cost_usd`, Claude Code), that total's growth during the
 * run; its tokens are `input_tokens + output_tokens` as reported. Nothing is priced or estimated, so a provider that reports no cost never trips a cost
 * ceiling. Pure functions over {@link Guardrails}; the session persists what they return.
 */
import { BudgetExhaustedError, ConfigError, type BudgetCeiling } from "../errors/index.js";
import type { Usage } from "../events/usage.js";
import type { Budget, Guardrails } from "./types.js";

/** What one run has spent so far, as its provider reported it. */
export interface RunSpend {
  usd?: number;
  tokens?: number;
}

const CEILING_KEYS = ["sessionUsd", "runUsd", "sessionTokens", "runTokens"] as const;

/** Throws `ConfigError` unless every ceiling is a finite number ≥ 0. */
export function checkBudget(budget: Budget | undefined): void {
  if (budget === undefined) return;
  if (typeof budget !== "object" || budget === null) throw new ConfigError("budget must be an object");
  for (const key of Object.keys(budget)) {
    if (!(CEILING_KEYS as readonly string[]).includes(key)) throw new ConfigError(`budget.${key} is not a ceiling (sessionUsd, runUsd, sessionTokens, runTokens)`);
    const value = budget[key as keyof Budget];
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < 0)) {
      throw new ConfigError(`budget.${key} must be a finite number of at least 0`);
    }
  }
}

export function initialGuardrails(budget: Budget | undefined, now = new Date()): Guardrails {
  const guardrails: Guardrails = { spentUsd: 0, spentTokens: 0, budget: { ...budget } };
  // A session ceiling of 0 is reached before any spend (as `settleRun` counts spend >= ceiling): no run may start.
  const ceiling: BudgetCeiling | undefined = budget?.sessionUsd === 0 ? "sessionUsd" : budget?.sessionTokens === 0 ? "sessionTokens" : undefined;
  if (ceiling !== undefined) guardrails.tripped = { ceiling, at: now.toISOString() };
  return guardrails;
}

/**
 * The run's spend from the usage its provider reported (the latest value per key). A running
 * total is measured from the conversation's total at the previous run's end (none: from 0; a
 * total below it means the provider restarted its count, so all of it is this run's).
 */
export function spendOf(usage: Usage | undefined, guardrails?: Guardrails, threadId?: string): RunSpend {
  const spend: RunSpend = {};
  if (usage?.cost_usd !== undefined) spend.usd = usage.cost_usd;
  else if (usage?.cumulative_cost_usd !== undefined) {
    const base = guardrails?.conversationCostUsd?.threadId === threadId ? guardrails?.conversationCostUsd?.usd ?? 0 : 0;
    spend.usd = usage.cumulative_cost_usd >= base ? usage.cumulative_cost_usd - base : usage.cumulative_cost_usd;
  }
  if (usage?.input_tokens !== undefined || usage?.output_tokens !== undefined) spend.tokens = (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0);
  return spend;
}

/** The ceiling a run in flight has crossed with what it spent so far, if any: the run is then cancelled. */
export function crossedInRun(guardrails: Guardrails, run: RunSpend): BudgetCeiling | undefined {
  const { budget } = guardrails;
  if (run.usd !== undefined) {
    if (budget.sessionUsd !== undefined && guardrails.spentUsd + run.usd > budget.sessionUsd) return "sessionUsd";
    if (budget.runUsd !== undefined && run.usd > budget.runUsd) return "runUsd";
  }
  if (run.tokens !== undefined) {
    if (budget.sessionTokens !== undefined && guardrails.spentTokens + run.tokens > budget.sessionTokens) return "sessionTokens";
    if (budget.runTokens !== undefined && run.tokens > budget.runTokens) return "runTokens";
  }
  return undefined;
}

/**
 * The guardrails after a run ended: its spend added (never reset), and a ceiling tripped when the
 * run went past a run ceiling or the session's spend reached a session ceiling. A session ceiling
 * wins over a run ceiling (raising it is what lets the next run start).
 */
export function settleRun(guardrails: Guardrails, run: RunSpend, runId: string, now: Date, conversation?: { threadId: string; usage: Usage }): Guardrails {
  const next: Guardrails = structuredClone(guardrails);
  const total = conversation?.usage.cumulative_cost_usd;
  if (total !== undefined) next.conversationCostUsd = { threadId: conversation!.threadId, usd: total };
  next.spentUsd += run.usd ?? 0;
  next.spentTokens += run.tokens ?? 0;
  const { budget } = next;
  const session: BudgetCeiling | undefined =
    budget.sessionUsd !== undefined && next.spentUsd >= budget.sessionUsd ? "sessionUsd"
    : budget.sessionTokens !== undefined && next.spentTokens >= budget.sessionTokens ? "sessionTokens"
    : undefined;
  const perRun: BudgetCeiling | undefined =
    budget.runUsd !== undefined && (run.usd ?? 0) > budget.runUsd ? "runUsd"
    : budget.runTokens !== undefined && (run.tokens ?? 0) > budget.runTokens ? "runTokens"
    : undefined;
  const ceiling = session ?? perRun;
  if (ceiling !== undefined && next.tripped?.ceiling !== ceiling) next.tripped = { ceiling, at: now.toISOString(), runId };
  return next;
}

/** The refusal of a new run while a ceiling is tripped. */
export function admissionError(guardrails: Guardrails): BudgetExhaustedError | undefined {
  const tripped = guardrails.tripped;
  if (!tripped) return undefined;
  const how = tripped.ceiling.startsWith("session") ? "raise it with addBudget()" : "clear it with resetRunCeiling()";
  return new BudgetExhaustedError(tripped.ceiling, `the session's ${tripped.ceiling} ceiling is tripped: ${how}`);
}

/** `addBudget`: the ceilings raised; a tripped session ceiling cleared once spend is below it again. */
export function raiseBudget(guardrails: Guardrails, amount: number | { usd?: number; tokens?: number }): Guardrails {
  const { usd, tokens } = typeof amount === "number" ? { usd: amount, tokens: undefined } : (amount ?? {});
  const positive = (value: unknown) => typeof value === "number" && Number.isFinite(value) && value > 0;
  if ((usd === undefined && tokens === undefined) || (usd !== undefined && !positive(usd)) || (tokens !== undefined && !positive(tokens))) {
    throw new ConfigError("addBudget takes an amount greater than 0 (USD, or { usd, tokens })");
  }
  const next: Guardrails = structuredClone(guardrails);
  if (usd !== undefined) {
    if (next.budget.sessionUsd === undefined) throw new ConfigError("the session has no cost ceiling (budget.sessionUsd) to raise");
    next.budget.sessionUsd += usd;
  }
  if (tokens !== undefined) {
    if (next.budget.sessionTokens === undefined) throw new ConfigError("the session has no token ceiling (budget.sessionTokens) to raise");
    next.budget.sessionTokens += tokens;
  }
  const ceiling = next.tripped?.ceiling;
  if (ceiling === "sessionUsd" && next.spentUsd < next.budget.sessionUsd!) delete next.tripped;
  else if (ceiling === "sessionTokens" && next.spentTokens < next.budget.sessionTokens!) delete next.tripped;
  // The other session ceiling may be reached too (one trip is recorded at a time): it trips now.
  if (next.tripped === undefined) {
    const reached: BudgetCeiling | undefined =
      next.budget.sessionUsd !== undefined && next.spentUsd >= next.budget.sessionUsd ? "sessionUsd"
      : next.budget.sessionTokens !== undefined && next.spentTokens >= next.budget.sessionTokens ? "sessionTokens"
      : undefined;
    if (reached !== undefined && ceiling !== undefined) next.tripped = { ceiling: reached, at: new Date().toISOString() };
  }
  return next;
}

/** `resetRunCeiling`: a tripped run ceiling cleared; a session ceiling stays. */
export function resetRunCeiling(guardrails: Guardrails): Guardrails {
  const next: Guardrails = structuredClone(guardrails);
  if (next.tripped?.ceiling === "runUsd" || next.tripped?.ceiling === "runTokens") delete next.tripped;
  return next;
}
