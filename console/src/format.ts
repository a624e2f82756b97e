/** Short human forms of what the console shows: spend, gate, session notices. */
import type { GateState, SessionNotice } from "./wire.js";

export function formatUsd(usd: number): string {
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatTokens(tokens: number): string {
  if (tokens < 1000) return `${tokens} tok`;
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(1)}k tok`;
  return `${(tokens / 1_000_000).toFixed(2)}M tok`;
}

export function formatGate(gate: GateState): string {
  return gate.open ? "open" : `${gate.by}: ${gate.reason}`;
}

/** One line for a session notice. Prompt texts are not in notices, and none is added here. */
export function describeNotice(notice: SessionNotice): string {
  switch (notice.type) {
    case "session.state":
      return `state → ${notice.state}${notice.reason !== undefined ? ` (${notice.reason})` : ""}`;
    case "session.prompt_queued":
      return `prompt ${notice.promptId} queued${notice.from !== undefined ? ` from ${notice.from}` : ""}${notice.wake ? "" : " (no wake)"}`;
    case "session.prompt_dropped":
      return `prompt ${notice.promptId} dropped: ${notice.reason.replace(/_/g, " ")}`;
    case "session.run_admitted":
      return `run ${notice.runId} admitted (${notice.promptIds.length} prompt${notice.promptIds.length === 1 ? "" : "s"})`;
    case "session.steer":
      return `steer ${notice.promptId} delivered ${notice.delivery === "native" ? "to the running turn" : "with the next run"}`;
    case "session.follow_up":
      return `follow-up ${notice.promptId} ${notice.delivery === "native" ? "queued in the running turn" : "queued for the next run"}`;
    case "session.configured":
      return `configured: model ${notice.settings.model ?? "default"}, effort ${notice.settings.effort ?? "default"}`;
    case "session.gate":
      return `gate ${formatGate(notice.gate)}`;
    case "session.budget": {
      const g = notice.guardrails;
      return `spend ${formatUsd(g.spentUsd)} · ${formatTokens(g.spentTokens)}${g.tripped !== undefined ? ` — ${g.tripped.ceiling} ceiling tripped` : ""}`;
    }
    case "session.run_interrupted":
      return `run ${notice.runId} interrupted by a host restart`;
    case "session.handoff":
      return `handoff to a new thread (${notice.reason.replace(/_/g, " ")})`;
    case "session.error":
      return `error ${notice.code}: ${notice.message}`;
    default: {
      const unknown: never = notice;
      return (unknown as { type: string }).type;
    }
  }
}
