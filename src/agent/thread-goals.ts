/**
 * A thread's native goal (`Thread.goal()`): the provider-kept objective of the thread's provider
 * conversation, read and changed outside any run through `Driver.goals`. Only what the provider
 * offers is exposed — no invented budgets or states.
 */
import type { Goal, GoalOperation, GoalResponse, GoalStatus, SettableGoalStatus } from "../driver/goals.js";
import type { Driver, ResolvedResources } from "../driver/types.js";
import { ConfigError, DriverContractError, FeatureUnsupportedError } from "../errors/index.js";
import type { Redactor } from "../redact/redact.js";
import type { ThreadRecord } from "../thread/store.js";

/** Options of every goal call. */
export interface GoalCallOptions {
  signal?: AbortSignal;
}

/**
 * The native goal of one thread's provider conversation. Every call reads or changes the goal the
 * provider keeps (there is no local copy), so two hosts see the same goal. Changes take effect on
 * the conversation's next turn; a provider may change the goal itself during a turn (it reports
 * that with the notices `goal_updated` / `goal_cleared`). A host that keeps a log of goal states
 * (a session) records what each call resolves with.
 */
export interface GoalControl {
  /** The goal, or undefined when the conversation has none (or the thread has taken no turn yet). */
  get(options?: GoalCallOptions): Promise<Goal | undefined>;
  /**
   * Sets the objective, creating the goal when there is none (active unless `status` says
   * `paused`); `tokenBudget`: the provider's token budget for it. Needs the thread's provider
   * conversation: a thread that has taken no turn is refused with `ConfigError`.
   */
  set(objective: string, options?: GoalCallOptions & { status?: SettableGoalStatus; tokenBudget?: number }): Promise<Goal>;
  /** Pauses the goal (the provider stops working towards it). */
  pause(options?: GoalCallOptions): Promise<Goal>;
  /** Makes a paused (or blocked) goal active again. */
  resume(options?: GoalCallOptions): Promise<Goal>;
  /** Sets the goal's token budget (a positive integer), or removes it with `null`. */
  budget(tokens: number | null, options?: GoalCallOptions): Promise<Goal>;
  /** Removes the goal; false when there was none. */
  clear(options?: GoalCallOptions): Promise<boolean>;
}

/** What a thread's goal control needs from its thread and agent. */
export interface GoalHost {
  driverId: string;
  /** The thread's record as stored now (its provider session id is the conversation). */
  record(): Promise<ThreadRecord>;
  /** `Driver.goals` with the agent's workspace and resources, its config checked and open. */
  call(operation: GoalOperation, providerSessionId: string | undefined, signal: AbortSignal): Promise<GoalResponse>;
}

const NEVER = new AbortController().signal;

/**
 * Probes the provider (failing closed) and resolves the thread's goal control, or undefined when
 * the driver or its provider has no goals.
 */
export async function probeGoals(host: GoalHost, options: GoalCallOptions = {}): Promise<GoalControl | undefined> {
  const signal = checkedSignal(options);
  const record = await host.record();
  const answer = await host.call({ op: "probe" }, record.providerSessionId, signal);
  return answer.supported ? new ThreadGoalControl(host) : undefined;
}

class ThreadGoalControl implements GoalControl {
  readonly #host: GoalHost;

  constructor(host: GoalHost) {
    this.#host = host;
  }

  async get(options: GoalCallOptions = {}): Promise<Goal | undefined> {
    const signal = checkedSignal(options);
    const { providerSessionId } = await this.#host.record();
    if (providerSessionId === undefined) return undefined;
    return (await this.#call({ op: "get" }, providerSessionId, signal)).goal;
  }

  async set(objective: string, options: GoalCallOptions & { status?: SettableGoalStatus; tokenBudget?: number } = {}): Promise<Goal> {
    if (typeof objective !== "string" || objective.trim() === "") throw new ConfigError("a goal's objective is a non-empty string");
    if (options.status !== undefined && options.status !== "active" && options.status !== "paused") throw new ConfigError('a goal\'s status is "active" or "paused"');
    if (options.tokenBudget !== undefined) checkBudget(options.tokenBudget);
    return this.#change({
      op: "set",
      objective,
      ...(options.status !== undefined ? { status: options.status } : {}),
      ...(options.tokenBudget !== undefined ? { tokenBudget: options.tokenBudget } : {}),
    }, options);
  }

  async pause(options: GoalCallOptions = {}): Promise<Goal> {
    return this.#change({ op: "set", status: "paused" }, options);
  }

  async resume(options: GoalCallOptions = {}): Promise<Goal> {
    return this.#change({ op: "set", status: "active" }, options);
  }

  async budget(tokens: number | null, options: GoalCallOptions = {}): Promise<Goal> {
    if (tokens !== null) checkBudget(tokens);
    return this.#change({ op: "set", tokenBudget: tokens }, options);
  }

  async clear(options: GoalCallOptions = {}): Promise<boolean> {
    const signal = checkedSignal(options);
    const { providerSessionId } = await this.#host.record();
    if (providerSessionId === undefined) return false;
    return (await this.#call({ op: "clear" }, providerSessionId, signal)).cleared === true;
  }

  async #change(operation: GoalOperation, options: GoalCallOptions): Promise<Goal> {
    const signal = checkedSignal(options);
    const { providerSessionId } = await this.#host.record();
    if (providerSessionId === undefined) {
      throw new ConfigError("a goal belongs to the thread's provider conversation, and the thread has taken no turn yet");
    }
    const answer = await this.#call(operation, providerSessionId, signal);
    if (answer.goal === undefined) throw new ConfigError("the provider has no goal to change on this conversation: set one first");
    return answer.goal;
  }

  async #call(operation: GoalOperation, providerSessionId: string, signal: AbortSignal): Promise<Extract<GoalResponse, { supported: true }>> {
    const answer = await this.#host.call(operation, providerSessionId, signal);
    if (!answer.supported) throw new FeatureUnsupportedError("goals", this.#host.driverId);
    return answer;
  }
}

function checkBudget(tokens: unknown): void {
  if (typeof tokens !== "number" || !Number.isSafeInteger(tokens) || tokens <= 0) throw new ConfigError("a goal's token budget is a positive integer");
}

function checkedSignal(options: GoalCallOptions): AbortSignal {
  const signal = options?.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new ConfigError("signal must be an AbortSignal");
  signal?.throwIfAborted();
  return signal ?? NEVER;
}

/** What {@link driverGoals} needs from the agent. */
export interface GoalDriverHost {
  driver: Driver;
  driverId: string;
  workspace: string;
  resources: ResolvedResources;
  redactor: Redactor;
  /** Throws once the agent is closing; validates the driver's config and registers its secrets. */
  ready(): void;
}

/**
 * `Driver.goals` as a thread calls it: the agent open and its config valid, the answer checked
 * against the SPI (`DriverContractError` otherwise) and redacted, a failure redacted unless it is
 * the caller's own abort reason. Undefined for a driver without goals.
 */
export function driverGoals(host: GoalDriverHost): GoalHost["call"] | undefined {
  const { driver, driverId, redactor } = host;
  if (typeof driver.goals !== "function") return undefined;
  return async (operation, providerSessionId, signal) => {
    host.ready();
    let answer: unknown;
    try {
      answer = await driver.goals!({
        operation: { ...operation },
        ...(providerSessionId !== undefined ? { providerSessionId } : {}),
        workspace: host.workspace,
        resources: structuredClone(host.resources),
      }, signal);
    } catch (error) {
      throw signal.aborted && error === signal.reason ? error : redactor.redactValue(error);
    }
    return redactor.redactValue(checkGoalResponse(driverId, operation, answer));
  };
}

const GOAL_STATUSES: readonly GoalStatus[] = ["active", "paused", "blocked", "usage_limited", "budget_limited", "complete"];

/** The driver's answer as the SPI allows it, copied; `DriverContractError` otherwise. */
export function checkGoalResponse(driverId: string, operation: GoalOperation, value: unknown): GoalResponse {
  const broken = (what: string) => new DriverContractError(driverId, `goals(${operation.op}) answered ${what}`);
  if (typeof value !== "object" || value === null) throw broken("no object");
  const answer = value as Record<string, unknown>;
  if (answer.supported === false) {
    if (typeof answer.reason !== "string") throw broken("unsupported without a reason");
    return { supported: false, reason: answer.reason };
  }
  if (answer.supported !== true) throw broken("without `supported`");
  const checked: GoalResponse = { supported: true };
  if (answer.goal !== undefined) checked.goal = checkGoal(answer.goal, broken);
  if (answer.cleared !== undefined) {
    if (typeof answer.cleared !== "boolean") throw broken("a non-boolean `cleared`");
    checked.cleared = answer.cleared;
  }
  if (operation.op === "set" && checked.goal === undefined) throw broken("no goal after setting it");
  return checked;
}

function checkGoal(value: unknown, broken: (what: string) => Error): Goal {
  if (typeof value !== "object" || value === null) throw broken("a goal that is no object");
  const goal = value as Record<string, unknown>;
  const count = (key: string) => typeof goal[key] === "number" && Number.isFinite(goal[key]) && (goal[key] as number) >= 0;
  if (typeof goal.objective !== "string") throw broken("a goal without an objective");
  if (!GOAL_STATUSES.includes(goal.status as GoalStatus)) throw broken(`a goal with an unknown status`);
  if (!count("tokensUsed") || !count("timeUsedSeconds")) throw broken("a goal without its usage");
  if (goal.tokenBudget !== undefined && !count("tokenBudget")) throw broken("a goal with an invalid token budget");
  if (typeof goal.createdAt !== "string" || typeof goal.updatedAt !== "string") throw broken("a goal without its times");
  return {
    objective: goal.objective,
    status: goal.status as GoalStatus,
    ...(goal.tokenBudget !== undefined ? { tokenBudget: goal.tokenBudget as number } : {}),
    tokensUsed: goal.tokensUsed as number,
    timeUsedSeconds: goal.timeUsedSeconds as number,
    createdAt: goal.createdAt,
    updatedAt: goal.updatedAt,
  };
}
