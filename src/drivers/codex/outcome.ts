/**
 * A finished turn as the run's response and terminal event: closes what the turn left open, turns
 * a failed turn into its typed error, reads the answer (core decodes structured output from it), and announces
 * `run.completed` — or `run.cancelled` for a turn Codex interrupted itself.
 */
import type { RunResponse } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import type { DriverEvent } from "../../events/types.js";
import type { CodexConnection } from "./connection.js";
import { stderrExcerpt, turnFailure } from "./errors.js";
import type { TurnMapper, TurnOutcome } from "./events.js";

/** Resolves with the response once the terminal event is queued; rejects with the turn's failure. */
export async function finishTurn(
  outcome: TurnOutcome,
  mapper: TurnMapper,
  connection: CodexConnection,
  emit: (event: DriverEvent) => Promise<void>,
  threadEcho: Record<string, unknown> | undefined,
): Promise<RunResponse> {
  const { turn, fatal } = outcome;
  const status = turn.status;
  await mapper.closeOpenItems();
  if (status === "failed") throw turnFailure(turn.error ?? fatal, "after_delivery");
  const text = mapper.finalText(turn.items);
  const response: RunResponse = {
    text,
    providerSessionId: mapper.threadId!,
    raw: { threadId: mapper.threadId, thread: threadEcho, turn: { id: turn.id, status, durationMs: turn.durationMs ?? undefined } },
  };
  const tail = stderrExcerpt(connection.process.stderrTail(), 4000);
  if (tail !== "") response.stderrTail = tail;
  if (mapper.usage !== undefined) response.usage = { ...mapper.usage };
  if (status === "interrupted") {
    // Codex stopped the turn itself (e.g. an approval answered "deny and stop").
    await emit({ type: "run.cancelled", reason: "the Codex turn was interrupted" });
    return response;
  }
  if (status !== "completed") {
    throw new ProviderError(`codex: the turn ended with an unexpected status ${String(status)}`, { code: "malformed_response", phase: "after_delivery" });
  }
  // Announced the moment it is known, so a cancel arriving while the process retires cannot rewrite it.
  await emit({ type: "run.completed", provenance: { provider: "codex", event: "turn/completed" } });
  return response;
}
