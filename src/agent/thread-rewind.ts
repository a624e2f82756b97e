/**
 * `Thread.rewind(turn)`: the thread's conversation goes back to the end of one of its turns. The
 * driver makes a copy of the provider session without the later turns (the original session, the
 * pre-rewind transcript, stays), the thread moves to the copy, and the history gets an entry
 * saying so (`rewoundTo`), so a reader of `history()` sees which turns left the conversation.
 * Done as the lease holder, like a run: a busy thread is refused.
 */
import { randomUUID } from "node:crypto";
import type { RewindRequest } from "../driver/types.js";
import { ConfigError, FeatureUnsupportedError, ThreadBusyError, ThreadNotFoundError } from "../errors/index.js";
import type { AgentEvent } from "../events/types.js";
import type { Redactor } from "../redact/redact.js";
import { providerStateHandle } from "./provider-state.js";
import type { HistoryTurn, NewHistoryTurn, ThreadCheckpoint, ThreadRecord, ThreadStore } from "../thread/store.js";

/** What a rewind needs from its agent. */
export interface RewindHost {
  store: ThreadStore;
  driverId: string;
  workspace: string;
  instanceId: string;
  leaseTtlMs: number;
  /** The driver's `rewind`, when it has one. */
  rewind?: (request: RewindRequest, signal: AbortSignal) => Promise<{ providerSessionId: string }>;
  /** The agent's redactor, for the provider state the rewind writes; absent: no provider state. */
  redactor?: Redactor;
  /** Wraps a store call (an untyped failure becomes `store_failed`). */
  stored<T>(call: Promise<T>): Promise<T>;
}

/** Every history entry of a thread, oldest first. */
async function wholeHistory(host: RewindHost, id: string): Promise<HistoryTurn[]> {
  const all: HistoryTurn[] = [];
  let before: number | undefined;
  do {
    const page = await host.stored(host.store.history(id, { limit: 1000, ...(before !== undefined ? { before } : {}) }));
    all.push(...page.turns);
    before = page.nextBefore;
  } while (before !== undefined);
  return all.reverse();
}

/** The run turns still in the conversation: earlier rewinds' dropped turns (and their entries) left out. */
export function liveTurns(history: readonly HistoryTurn[]): HistoryTurn[] {
  let live: HistoryTurn[] = [];
  for (const entry of history) {
    if (entry.rewoundTo !== undefined) live = live.filter((t) => t.turn <= entry.rewoundTo!);
    else live.push(entry);
  }
  return live;
}

function checkTurn(turn: unknown): number {
  if (typeof turn !== "number" || !Number.isSafeInteger(turn) || turn < 0) throw new ConfigError("rewind: the turn is a non-negative integer (0: before the first turn)");
  return turn;
}

function rewindEntry(threadId: string, turn: number, dropped: readonly HistoryTurn[]): NewHistoryTurn {
  const runId = `rewind_${randomUUID()}`;
  const now = new Date();
  const numbers = dropped.map((t) => t.turn).join(", ");
  const notice: AgentEvent = {
    type: "notice",
    level: "info",
    code: "thread_rewound",
    message: `rewound to turn ${turn}: turn${dropped.length === 1 ? "" : "s"} ${numbers} left the conversation`,
    seq: 0,
    runId,
    threadId,
    at: now.getTime(),
  };
  return { runId, status: "completed", startedAt: now.toISOString(), endedAt: now.toISOString(), prompt: "", inputs: [], events: [notice], rewoundTo: turn };
}

/** The checkpoint of a conversation that ends with `kept`'s last turn. */
function checkpointOf(kept: readonly HistoryTurn[]): ThreadCheckpoint {
  const last = kept.at(-1);
  const checkpoint: ThreadCheckpoint = { turns: kept.filter((t) => t.status === "completed").length };
  if (last !== undefined) {
    checkpoint.lastStatus = last.status;
    checkpoint.lastRunId = last.runId;
  }
  return checkpoint;
}

/**
 * Rewinds thread `id` to the end of its turn `turn` (a history turn number; 0 goes back before
 * the first). Returns the updated record; rewinding to the last turn changes nothing.
 */
export async function rewindThread(host: RewindHost, id: string, turn: unknown, signal?: AbortSignal): Promise<ThreadRecord> {
  const target = checkTurn(turn);
  signal?.throwIfAborted();
  if (host.rewind === undefined) throw new FeatureUnsupportedError("rewind", host.driverId);
  const owner = `${host.instanceId}/${randomUUID()}`;
  if (!(await host.stored(host.store.acquireLease(id, owner, host.leaseTtlMs)))) throw new ThreadBusyError();
  try {
    const record = await host.stored(host.store.get(id));
    if (!record) throw new ThreadNotFoundError();
    const live = liveTurns(await wholeHistory(host, id));
    if (target > 0 && !live.some((t) => t.turn === target)) {
      throw new ConfigError(`rewind: turn ${target} is not a turn of this thread's conversation (see history(); a turn an earlier rewind dropped cannot be returned to)`);
    }
    const kept = live.filter((t) => t.turn <= target);
    const dropped = live.filter((t) => t.turn > target);
    if (dropped.length === 0 || record.providerSessionId === undefined) {
      await host.store.releaseLease(id, owner);
      return record;
    }
    const request: RewindRequest = { providerSessionId: record.providerSessionId, dropRunIds: dropped.map((t) => t.runId), workspace: record.workspace };
    const providerState = host.redactor === undefined ? undefined : providerStateHandle(host.store, id, owner, host.redactor);
    if (providerState !== undefined) request.providerState = providerState;
    const copy = await host.rewind(request, signal ?? new AbortController().signal);
    if (typeof copy?.providerSessionId !== "string" || copy.providerSessionId === "") throw new ConfigError(`rewind: driver ${host.driverId} returned no session id`);
    await host.stored(host.store.appendTurn(id, owner, rewindEntry(id, target, dropped)));
    const saved = await host.stored(host.store.saveCheckpoint(id, owner, { providerSessionId: copy.providerSessionId, checkpoint: checkpointOf(kept) }));
    await host.stored(host.store.releaseLease(id, owner));
    return (await host.stored(host.store.get(id))) ?? saved;
  } catch (error) {
    await host.store.releaseLease(id, owner).catch(() => undefined);
    throw error;
  }
}
