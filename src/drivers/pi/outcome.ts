/**
 * The outcome of a Pi turn that reached `agent_end`: the response, and the terminal its last
 * assistant message's `stopReason` calls for (a failed model call fails the run, `aborted` is a
 * cancel Pi made itself, anything else completes it).
 */
import type { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import type { RunResponse } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import { stderrExcerpt, str } from "../../driver/json.js";
import type { PiEventMapper } from "./events.js";
import type { PiConnection } from "./rpc.js";

/** Pi's error texts that name a retryable condition (its own auto-retry matches the same). */
const RETRYABLE = /\b(429|5\d\d)\b|overloaded|rate.?limit|timeout|timed out|network|ECONNRESET|ECONNREFUSED|fetch failed/i;

export async function endedTurn(connection: PiConnection, mapper: PiEventMapper, emitter: OrderedEmitter, sessionId: string | undefined): Promise<RunResponse> {
  const emit = emitter.emit;
  await emitter.settled();
  await mapper.finish();
  await emitter.drain();
  const last = mapper.lastAssistant ?? {};
  const stopReason = str(last.stopReason);
  const response: RunResponse = { text: mapper.finalText, raw: { stopReason: stopReason ?? null, sessionId: sessionId ?? null } };
  if (sessionId !== undefined) response.providerSessionId = sessionId;
  const usage = mapper.usage;
  if (usage !== undefined) response.usage = usage;
  const tail = stderrExcerpt(connection.process.stderrTail(), 4000);
  if (tail !== "") response.stderrTail = tail;
  await connection.flushMalformed();
  if (stopReason === "error") {
    const message = str(last.errorMessage) ?? "the model call failed";
    throw new ProviderError(`pi: ${message}`, { code: "provider_error", retryable: RETRYABLE.test(message), phase: "after_delivery" });
  }
  if (stopReason === "aborted") {
    await emit({ type: "run.cancelled", reason: "pi ended the turn as aborted" });
    return response;
  }
  if (stopReason !== "stop" && stopReason !== undefined) {
    await emit({ type: "notice", level: "warning", code: "stop_reason", message: `the turn ended with stopReason ${stopReason}` });
  }
  // Announced the moment it is known, so a cancel arriving while the process retires cannot rewrite it.
  await emit({ type: "run.completed", provenance: { provider: "pi", event: "agent_end" } });
  return response;
}
