/**
 * The turn itself: `turn/start` on the bound thread, then the wait for `turn/completed`, the
 * process exiting, or a cancel. A cancel interrupts the turn (the kit's stop escalation bounds the
 * wait); a `turn/completed` read before the cancel was acted on is the outcome instead. Once
 * `turn/start` may have been written, every failure is `after_delivery` and nothing is replayed.
 */
import { interruptWithinGrace } from "../../driver/kit/connection.js";
import type { RunRequest } from "../../driver/types.js";
import { abortedReason, type TurnChannel } from "./channel.js";
import type { TurnOutcome } from "./events.js";
import { turnStartParams } from "./params.js";
import type { TurnStartResponse } from "./protocol/v2/TurnStartResponse.js";
import type { UserInput } from "./protocol/v2/UserInput.js";

/** Delivers the prompt with `turn/start`; a run cancelled meanwhile interrupts the turn it started. */
export async function startTurn(
  channel: TurnChannel,
  request: Pick<RunRequest, "effort" | "outputSchema" | "markDelivered">,
  threadId: string,
  input: UserInput[],
): Promise<void> {
  const params = turnStartParams(threadId, input, request);
  await channel.settleCodexTurns(threadId);
  channel.signal.throwIfAborted();
  request.markDelivered();
  channel.delivered = true;
  // Not cancelled locally: once written, the turn is interrupted properly instead of abandoned.
  const started = (await channel.guarded("turn/start", params, { cancellable: false })) as TurnStartResponse | undefined;
  channel.turnStarted(started?.turn?.id);
  if (channel.signal.aborted) await channel.interrupt();
}

/**
 * Asks Codex to compact the bound thread (`thread/compact/start`, `RunRequest.operation:
 * "compact"`): Codex runs the compaction as a turn of its own, whose id arrives with `turn/started`
 * (the channel takes it from there, so a cancel can interrupt it) and which ends with `turn/completed`.
 */
export async function startCompaction(channel: TurnChannel, request: Pick<RunRequest, "markDelivered">, threadId: string): Promise<void> {
  await channel.settleCodexTurns(threadId);
  channel.signal.throwIfAborted();
  request.markDelivered();
  channel.delivered = true;
  // Not cancelled locally, like turn/start: once written, the compaction is interrupted properly.
  await channel.guarded("thread/compact/start", { threadId }, { cancellable: false });
  if (channel.signal.aborted) await channel.interrupt();
}

/** Waits for the end of the turn. Resolves with `turn/completed`; rejects with the abort reason or an exit failure. */
export async function awaitTurnEnd(channel: TurnChannel): Promise<TurnOutcome> {
  const { mapper, exitWatch, connection } = channel;
  let ended = await Promise.race([mapper.outcome, exitWatch, channel.aborted]);
  // The turn had completed before the cancel was acted on: it is the outcome, not the cancel.
  if (ended === "aborted" && mapper.done) ended = await mapper.outcome;
  if (ended === "aborted") {
    // Interrupt, then a short grace; a Codex that ignores it is stopped by the group escalation afterwards.
    await interruptWithinGrace(() => channel.interrupt(), Promise.race([mapper.outcome, exitWatch]));
    // A pending approval or question is resolved as cancelled by core; let that land before the terminal.
    await interruptWithinGrace(() => channel.requestsSettled(), channel.requestsSettled());
    throw abortedReason(channel.signal);
  }
  if ("exit" in ended) {
    // A turn/completed may still sit in the pipe behind the exit.
    const late = await Promise.race([mapper.outcome, connection.peer.done.then(() => undefined)]);
    if (late === undefined) throw await channel.exitError("during the turn", ended.exit);
    return late;
  }
  return ended;
}
