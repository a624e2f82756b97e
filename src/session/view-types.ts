/**
 * The plain shapes a session shows the outside: its state, gate, guardrails, settings, status and
 * notices. Types only, and nothing here may reach a Node-only module: the browser console imports
 * them as the attach server sends them (console/src/wire.ts). src/session/types.ts re-exports them.
 */
import type { NativeCommandInfo } from "../events/types.js";
import type { BudgetCeiling, ErrorCode } from "../errors/index.js";

/** Where a session stands. `running ⇄ idle` as runs start and end; `sleeping` wakes on input; `archived` is final. */
export type SessionState = "created" | "running" | "idle" | "sleeping" | "archived";

/** Why a session sleeps. */
export type SleepReason = "manual" | "idle_timeout" | "restart_failure";

/**
 * The admission gate: whether a queued prompt may start a run. Closed by a person
 * (`interruptAndHold`, `pause`) and opened only by `resume` — never by injected input.
 */
export type GateState = { open: true } | { open: false; by: "hold" | "pause"; reason: string; since: string };

/** Spend ceilings from provider-reported figures only (no price tables). Absent = no ceiling. */
export interface Budget {
  /** Cost ceiling for the whole session, USD; raised by `addBudget`. */
  sessionUsd?: number;
  /** Cost ceiling for one run, USD: a run that reports more is cancelled with `cost_ceiling`. */
  runUsd?: number;
  /** Token ceiling (input + output as reported) for the whole session. */
  sessionTokens?: number;
  /** Token ceiling for one run. */
  runTokens?: number;
}

/** Guardrail state as it survives restarts. Spend is never reset. */
export interface Guardrails {
  /** Provider-reported cost of every run so far, USD. */
  spentUsd: number;
  /** Provider-reported tokens of every run so far. */
  spentTokens: number;
  /** The configured ceilings, `sessionUsd` already raised by every `addBudget`. */
  budget: Budget;
  /**
   * The provider's running cost of the current conversation (`usage.cumulative_cost_usd`) at the
   * end of the last run that reported one: where a provider reports only that running total
   * (Claude Code), a run's cost is its growth over this.
   */
  conversationCostUsd?: { threadId: string; usd: number };
  /**
   * Set while a ceiling is tripped: new runs are refused with `BudgetExhaustedError` until a
   * session ceiling is raised (`addBudget`) or a run ceiling cleared (`resetRunCeiling`). `runId`:
   * the run that crossed it.
   */
  tripped?: { ceiling: BudgetCeiling; at: string; runId?: string };
}

/** The model and effort a session passes to each run it starts (`configure`); absent: the agent's default. */
export interface SessionSettings {
  model?: string;
  effort?: string;
}

/** Events the session itself adds to its log, beside the runs' canonical events. */
export type SessionNotice =
  | { type: "session.state"; state: SessionState; reason?: SleepReason | string }
  | { type: "session.prompt_queued"; promptId: string; from?: string; wake: boolean }
  | { type: "session.prompt_dropped"; promptId: string; reason: "inbox_full" | "abandoned" | "inputs_lost" }
  | { type: "session.run_admitted"; runId: string; promptIds: string[]; from?: string }
  | { type: "session.steer"; promptId: string; delivery: "native" | "next_run" }
  | { type: "session.follow_up"; promptId: string; delivery: "native" | "next_run" }
  /** `configure` changed the model or effort of later runs; `settings`: what they are now. */
  | { type: "session.configured"; settings: SessionSettings }
  | { type: "session.gate"; gate: GateState }
  | { type: "session.budget"; guardrails: Guardrails }
  | { type: "session.run_interrupted"; runId: string; code: "host_restart" }
  | { type: "session.handoff"; fromThreadId: string; toThreadId: string; reason: "provider_session_missing" | "clear" }
  /** A failure of the session itself (a run that could not start, a store write that failed); `promptIds`: the prompts it took. */
  | { type: "session.error"; code: ErrorCode; message: string; promptIds?: string[] };

export interface SessionStatus {
  id: string;
  state: SessionState;
  sleepReason?: SleepReason;
  gate: GateState;
  guardrails: Guardrails;
  queued: string[];
  inFlight?: { runId: string; promptIds: string[] };
  /** The model and effort of later runs (`configure`). */
  settings: SessionSettings;
  threadId: string;
  lastSeq: number;
  /**
   * The provider's own commands as last advertised for the current thread's conversation in this
   * process (ACP agents advertise theirs per session, in `available_commands` notices); absent until
   * a run of the session has seen such a list, and after `clear` or a handoff.
   */
  nativeCommands?: NativeCommandInfo[];
}
