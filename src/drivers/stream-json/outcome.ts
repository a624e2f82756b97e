/**
 * A stream-json turn's outcome from its `result` line: the response, its usage, and a success
 * announced as `run.completed` at once; a turn the CLI left without a `result` failed with its exit.
 */
import type { EventSink, RunResponse } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import { redactThenClip } from "../../redact/clip.js";
import { isFailure, resultFailure } from "./failure.js";
import type { Launcher } from "./launcher.js";
import { describeExit, type StreamJsonProcess } from "./process.js";
import type { TurnMapper } from "./turn.js";
import { usageOf } from "./usage.js";
import { str, type Json, type ResultLine } from "./wire.js";

/** The turn's outcome from its `result` line; a success is announced as `run.completed` at once. */
export async function complete(launcher: Launcher, proc: StreamJsonProcess, mapper: TurnMapper, sink: EventSink): Promise<RunResponse> {
  const { dialect } = launcher;
  const result = mapper.result;
  if (!result) {
    const exit = await proc.ended;
    const hint = lastLine(proc.stderrTail(), (t) => launcher.redactor.redactText(t));
    throw new ProviderError(`the CLI ${describeExit(exit)} before the turn finished${hint ? ` (${hint})` : ""}`, {
      code: "provider_exited",
      phase: "after_delivery",
    });
  }
  await mapper.closeOpenItems();
  const usage = usageOf(result, dialect.costOf(result));
  if (usage) await sink.emit({ type: "usage.observed", usage });
  if (isFailure(result)) throw resultFailure(dialect, result, mapper.assistantError, (t) => launcher.redactor.redactText(t));
  const text = typeof result.result === "string" ? result.result : (mapper.lastText ?? "");
  const response: RunResponse = { text, raw: rawOf(result) };
  if (usage) response.usage = usage;
  if (result.structured_output !== undefined) response.structured = result.structured_output;
  const sessionId = mapper.sessionId ?? str(result.session_id);
  if (sessionId !== undefined) response.providerSessionId = sessionId;
  await sink.emit({ type: "run.completed", provenance: { provider: dialect.id, event: "result" } });
  return response;
}

function rawOf(result: ResultLine): Json {
  const raw: Json = {};
  for (const key of ["type", "subtype", "is_error", "num_turns", "duration_ms", "stop_reason", "terminal_reason", "session_id", "total_cost_usd"] as const) {
    if (result[key as keyof ResultLine] !== undefined) raw[key] = result[key as keyof ResultLine];
  }
  return raw;
}

/** The last line of `text`, redacted before it is cut: a secret across the cut would leave its front. */
function lastLine(text: string, redact: (text: string) => string): string | undefined {
  const line = text.trim().split("\n").at(-1)?.trim();
  return line ? redactThenClip(line, redact, 300) : undefined;
}
