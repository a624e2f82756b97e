/**
 * Codex's native thread goals (`thread/goal/get`, `thread/goal/set`, `thread/goal/clear`) for
 * `Driver.goals`. The goal lives in the Codex home, not in a loaded thread, so each call runs on a
 * short-lived app-server that never loads the thread (loading it would let Codex continue an active
 * goal on its own, outside any run). The probe fails closed: only an answer, or "thread not found"
 * for a thread this Codex does not know, says the method exists.
 */
import type { Goal, GoalResponse, GoalStatus } from "../../driver/goals.js";
import type { GoalRequest } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import { JsonRpcError } from "../../process/index.js";
import type { CodexConnection } from "./connection.js";
import type { ThreadGoal } from "./protocol/v2/ThreadGoal.js";
import type { ThreadGoalClearResponse } from "./protocol/v2/ThreadGoalClearResponse.js";
import type { ThreadGoalGetResponse } from "./protocol/v2/ThreadGoalGetResponse.js";
import type { ThreadGoalSetParams } from "./protocol/v2/ThreadGoalSetParams.js";
import type { ThreadGoalSetResponse } from "./protocol/v2/ThreadGoalSetResponse.js";
import type { ThreadGoalStatus } from "./protocol/v2/ThreadGoalStatus.js";

/** A thread id no Codex home holds: the probe of a thread that has taken no turn yet asks about it. */
const NO_THREAD = "00000000-0000-0000-0000-000000000000";

const STATUS: Record<ThreadGoalStatus, GoalStatus> = {
  active: "active",
  paused: "paused",
  blocked: "blocked",
  usageLimited: "usage_limited",
  budgetLimited: "budget_limited",
  complete: "complete",
};

/** Codex answered with an error because it does not know the method at all (an older app-server). */
function unknownMethod(error: unknown): boolean {
  return error instanceof JsonRpcError && (error.rpcCode === -32601 || /unknown variant|method not found/i.test(error.message));
}

function threadMissing(error: unknown): boolean {
  return error instanceof JsonRpcError && /thread not found|no rollout found|not found/i.test(error.message);
}

/** Runs one goal operation on `connection` (initialized, no thread loaded). */
export async function goalOperation(connection: CodexConnection, request: GoalRequest, signal: AbortSignal): Promise<GoalResponse> {
  const { operation } = request;
  const threadId = request.providerSessionId ?? NO_THREAD;
  try {
    switch (operation.op) {
      case "probe":
        await connection.request<ThreadGoalGetResponse>("thread/goal/get", { threadId }, signal);
        return { supported: true };
      case "get":
        return answered((await connection.request<ThreadGoalGetResponse>("thread/goal/get", { threadId }, signal))?.goal);
      case "set": {
        const params: ThreadGoalSetParams = { threadId, origin: "user" };
        if (operation.objective !== undefined) params.objective = operation.objective;
        if (operation.status !== undefined) params.status = operation.status;
        if (operation.tokenBudget !== undefined) params.tokenBudget = operation.tokenBudget;
        return answered((await connection.request<ThreadGoalSetResponse>("thread/goal/set", params, signal))?.goal);
      }
      case "clear": {
        const cleared = await connection.request<ThreadGoalClearResponse>("thread/goal/clear", { threadId, origin: "user" }, signal);
        return { supported: true, cleared: cleared?.cleared === true };
      }
    }
  } catch (error) {
    if (unknownMethod(error)) return { supported: false, reason: `this codex app-server has no thread goals (${(error as Error).message.slice(0, 120)})` };
    if (operation.op === "probe" && threadMissing(error)) return { supported: true };
    throw refusal(operation.op, error);
  }
}

function refusal(op: string, error: unknown): unknown {
  if (!(error instanceof JsonRpcError)) return error;
  return new ProviderError(`codex refused the goal ${op}: ${error.message}`, {
    code: threadMissing(error) ? "provider_session_not_found" : "provider_error",
    phase: "before_delivery",
    cause: error,
  });
}

function answered(goal: ThreadGoal | null | undefined): GoalResponse {
  if (goal === null || goal === undefined) return { supported: true };
  return { supported: true, goal: canonicalGoal(goal) };
}

/** Codex's goal in the canonical shape: snake_case statuses, ISO times, no null budget. */
export function canonicalGoal(goal: ThreadGoal): Goal {
  const status = STATUS[goal.status];
  if (status === undefined || typeof goal.objective !== "string") {
    throw new ProviderError("codex: a thread goal the protocol does not allow", { code: "malformed_response", phase: "before_delivery" });
  }
  return {
    objective: goal.objective,
    status,
    ...(typeof goal.tokenBudget === "number" ? { tokenBudget: goal.tokenBudget } : {}),
    tokensUsed: nonNegative(goal.tokensUsed),
    timeUsedSeconds: nonNegative(goal.timeUsedSeconds),
    createdAt: isoFromSeconds(goal.createdAt),
    updatedAt: isoFromSeconds(goal.updatedAt),
  };
}

function nonNegative(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function isoFromSeconds(value: unknown): string {
  const seconds = typeof value === "number" && Number.isFinite(value) ? value : 0;
  return new Date(seconds * 1000).toISOString();
}
