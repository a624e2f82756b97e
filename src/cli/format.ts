/** Human-readable renderings of events and inspections for the terminal. */
import type { AgentEvent } from "../events/types.js";
import { PANEL_NAMES, type Inspection, type Observation } from "../inspect/types.js";
import type { SessionNotice } from "../session/types.js";
import { renderTable } from "./table.js";
import { colorsFor, type Colors } from "./terminal.js";

const clip = (text: string, max = 160) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** One line per event; deltas are shown as they stream by the caller instead. */
export function describeEvent(event: AgentEvent): string {
  const head = `#${event.seq} ${event.type}`;
  switch (event.type) {
    case "run.started":
      return `${head} driver=${event.driver}${event.model ? ` model=${event.model}` : ""}`;
    case "thread.bound":
      return `${head} session=${event.providerSessionId}`;
    case "message.delta":
    case "reasoning.delta":
    case "message.completed":
    case "reasoning.completed":
      return `${head} ${clip(event.text)}`;
    case "tool.started":
      // The command line itself where the title is something else ("Run shell command").
      return `${head} [${event.kind}] ${clip(event.title)}${event.command && event.command !== event.title ? `: ${clip(event.command)}` : ""}`;
    case "tool.updated":
      return `${head} ${event.callId}${event.output ? ` ${clip(event.output)}` : ""}`;
    case "tool.completed":
      return `${head} ${event.callId} ${event.status}${event.exitCode !== undefined ? ` exit=${event.exitCode}` : ""}`;
    case "plan.updated":
      return `${head} ${event.entries.map((e) => `[${e.status}] ${e.text}`).join("; ")}`;
    case "approval.requested":
      return `${head} ${event.kind}: ${clip(event.summary)}`;
    case "approval.resolved":
      return `${head} ${event.decision.decision} (by ${event.by})`;
    case "question.requested":
      return `${head} ${event.questions.map((q) => q.question).join(" / ")}`;
    case "question.resolved":
      return `${head} ${event.answered ? "answered" : "declined"}`;
    case "usage.observed":
      return `${head} ${Object.entries(event.usage).map(([k, v]) => `${k}=${v}`).join(" ")}`;
    case "notice":
      return `${head} ${event.level} ${event.code}: ${clip(event.message)}`;
    case "run.completed":
      return `${head} in ${event.result.durationMs} ms`;
    case "run.failed":
      return `${head} ${event.error.code} (${event.error.phase}${event.error.retryable ? ", retryable" : ""}): ${event.error.message}`;
    case "run.cancelled":
      return `${head}${event.reason ? ` ${event.reason}` : ""}`;
  }
}

function summarize(panel: string, observation: Observation<unknown>): string {
  const value = observation.value;
  if (observation.status !== "observed") return "";
  if (Array.isArray(value)) {
    const ids = value.map((v) => (typeof v === "object" && v && ("id" in v || "name" in v) ? String((v as { id?: string; name?: string }).id ?? (v as { name?: string }).name) : "?"));
    return `${value.length}: ${clip(ids.join(", "), 80)}`;
  }
  if (panel === "environment" && value && typeof value === "object") {
    const env = value as { version?: string; executablePath?: string; protocolVersion?: string };
    return [env.version && `version ${env.version}`, env.protocolVersion && `protocol ${env.protocolVersion}`].filter(Boolean).join(", ");
  }
  if (panel === "auth" && value && typeof value === "object") {
    const auth = value as { signedIn?: boolean; method?: string };
    return `${auth.signedIn ? "signed in" : "signed out"}${auth.method ? ` (${auth.method})` : ""}`;
  }
  return clip(JSON.stringify(value), 80);
}

/** A table: panel, status, what was observed or why not, and the evidence behind it. */
export function formatInspection(inspection: Inspection, colors: Colors = colorsFor({})): string {
  const rows: string[][] = [];
  for (const panel of PANEL_NAMES) {
    const o = inspection[panel];
    const detail = o.status === "observed" ? summarize(panel, o) : `${o.reason?.code}: ${clip(o.reason?.message ?? "", 70)}`;
    const evidence = o.evidence.map((e) => `${e.transport} ${e.method}${e.providerVersion ? `@${e.providerVersion}` : ""} (${e.durationMs} ms)`).join("; ");
    rows.push([panel, o.status, detail, evidence || "-"]);
  }
  const header = `driver: ${inspection.driver.id} (${inspection.driver.name}, ${inspection.driver.transport})`;
  return `${header}\n${renderTable(["panel", "status", "detail", "evidence"], rows, colors)}`;
}

/** One line per session notice (`attach`). */
export function describeSessionNotice(notice: SessionNotice): string {
  switch (notice.type) {
    case "session.state":
      return `${notice.type} ${notice.state}${notice.reason ? ` (${notice.reason})` : ""}`;
    case "session.prompt_queued":
      return `${notice.type} ${notice.promptId}${notice.from ? ` from ${notice.from}` : ""}`;
    case "session.prompt_dropped":
      return `${notice.type} ${notice.promptId} ${notice.reason}`;
    case "session.run_admitted":
      return `${notice.type} ${notice.runId} (${notice.promptIds.join(", ")})`;
    case "session.steer":
    case "session.follow_up":
      return `${notice.type} ${notice.promptId} ${notice.delivery}`;
    case "session.configured":
      return `${notice.type} ${Object.entries(notice.settings).map(([k, v]) => `${k}=${v}`).join(" ")}`;
    case "session.gate":
      return `${notice.type} ${notice.gate.open ? "open" : `closed by ${notice.gate.by}: ${clip(notice.gate.reason)}`}`;
    case "session.budget":
      return `${notice.type} spent $${notice.guardrails.spentUsd.toFixed(4)}, ${notice.guardrails.spentTokens} tokens${notice.guardrails.tripped ? `, tripped: ${notice.guardrails.tripped.ceiling}` : ""}`;
    case "session.run_interrupted":
      return `${notice.type} ${notice.runId} ${notice.code}`;
    case "session.handoff":
      return `${notice.type} ${notice.fromThreadId} -> ${notice.toThreadId} (${notice.reason})`;
    case "session.error":
      return `${notice.type} ${notice.code}: ${clip(notice.message)}`;
  }
}
