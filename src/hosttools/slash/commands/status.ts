/** `/status`: the session as it stands now, from its own status (no provider call). */
import type { Budget } from "../../../session/types.js";
import type { StatusView } from "../messages.js";
import { runSettings } from "../session-settings.js";
import { done, usage, type CommandHandler, type SlashContext } from "./context.js";

const CEILING_ORDER: readonly (keyof Budget)[] = ["sessionUsd", "runUsd", "sessionTokens", "runTokens"];

export const status: CommandHandler = async (context, line) => {
  if (line.args.length > 0) return usage(context, line);
  return done(context.messages.status(statusView(context)));
};

export function statusView(context: SlashContext): StatusView {
  const session = context.current();
  const now = session.status();
  const settings = runSettings(session);
  const { format } = context;
  const { guardrails } = now;
  const ceilings = CEILING_ORDER.flatMap((name) => {
    const value = guardrails.budget[name];
    if (value === undefined) return [];
    return [{ name, value: name.endsWith("Usd") ? format.usd(value) : format.integer(value) }];
  });
  return {
    sessionId: now.id,
    state: now.state,
    ...(now.sleepReason !== undefined ? { sleepReason: now.sleepReason } : {}),
    threadId: now.threadId,
    driver: context.agent.driver.name,
    model: settings.model !== undefined ? { value: settings.model, source: "session" } : { source: "default" },
    effort: settings.effort !== undefined ? { value: settings.effort, source: "session" } : { source: "default" },
    gate: context.messages.gate(now.gate),
    queued: now.queued.length,
    ...(now.inFlight ? { inFlightRunId: now.inFlight.runId } : {}),
    spentUsd: format.usd(guardrails.spentUsd),
    spentTokens: format.integer(guardrails.spentTokens),
    ceilings,
    ...(guardrails.tripped ? { tripped: guardrails.tripped.ceiling } : {}),
    lastSeq: now.lastSeq,
  };
}
