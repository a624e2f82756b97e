/**
 * Render a run in a browser from its events alone. The server side sends each `AgentEvent` of
 * `agent.stream()` as one JSON line (`JSON.stringify(event) + "\n"`, no conversion needed: events
 * are plain data); this side imports only `agent-adaptor/events`, which has no Node import and
 * compiles under `lib: ["dom"]`.
 *
 *   npm run build && npx tsc -p examples   (then bundle it for the page with any bundler)
 */
import {
  EVENTS_SCHEMA_VERSION,
  agentEventSchema,
  initialRunState,
  isEventType,
  isKnownEventType,
  reduceRunEvent,
  type RunState,
} from "agent-adaptor/events";

/** Follows one run's NDJSON event stream at `url`, calling `render` with each new state. */
export async function followRun(url: string, render: (state: RunState) => void): Promise<RunState> {
  const response = await fetch(url);
  if (!response.ok || response.body === null) throw new Error(`event stream: HTTP ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let state = initialRunState();
  let buffered = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return state;
    buffered += value;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "") continue;
      const next = reduceLine(state, line);
      if (next !== state) render((state = next));
    }
  }
}

/** One received line folded into the state; what this version cannot read is skipped. */
function reduceLine(state: RunState, line: string): RunState {
  const data: unknown = JSON.parse(line);
  // A later release may add event types under the same schema version: skip those.
  if (!isKnownEventType((data as { type?: unknown }).type)) return state;
  const parsed = agentEventSchema.safeParse(data);
  if (!parsed.success) throw new Error(`not an agent event: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  const event = parsed.data;
  if (isEventType(event, "run.started") && event.schemaVersion > EVENTS_SCHEMA_VERSION) {
    throw new Error(`events of schema version ${event.schemaVersion}; this page reads ${EVENTS_SCHEMA_VERSION}`);
  }
  return reduceRunEvent(state, event);
}

/** What a page would show: the answer so far, each tool call, and what waits for the user. */
export function describe(state: RunState): string {
  const lines = state.messages.map((m) => m.text);
  for (const tool of state.tools) {
    const exit = tool.exitCode === undefined ? "" : ` (exit ${tool.exitCode})`;
    lines.push(`[${tool.kind}] ${tool.title}: ${tool.status}${exit}${tool.files.map((f) => `\n  ${f.change} ${f.path}`).join("")}`);
  }
  for (const approval of state.pendingApprovals) lines.push(`approve? ${approval.summary} [${approval.options.map((o) => o.id).join(" / ")}]`);
  if (state.status !== "running" && state.status !== "pending") lines.push(`— ${state.status}`);
  return lines.join("\n");
}
