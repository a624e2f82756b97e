/** The sessions: state, gate, spend and queue of each; create one on an agent. */
import { html } from "htm/preact";
import type { VNode } from "preact";
import { useState } from "preact/hooks";
import { formatGate, formatTokens, formatUsd } from "../format.js";
import type { AgentInfo, SessionView } from "../wire.js";

export interface SessionListProps {
  sessions: readonly SessionView[];
  /** How many the list asked for: reaching it means older sessions are not shown. */
  limit: number;
  agents: readonly AgentInfo[];
  selected: string | undefined;
  onSelect(id: string): void;
  onCreate(agent: string): Promise<void>;
}

export function SessionList({ sessions, limit, agents, selected, onSelect, onCreate }: SessionListProps): VNode {
  const [agent, setAgent] = useState("");
  const [busy, setBusy] = useState(false);
  const chosen = agent !== "" ? agent : (agents[0]?.name ?? "");
  const create = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (chosen === "") return;
    setBusy(true);
    try {
      await onCreate(chosen);
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="sessions" aria-label="Sessions">
    <h2>Sessions</h2>
    <form class="new-session" onSubmit=${create}>
      <label for="new-session-agent">Agent</label>
      <select id="new-session-agent" data-testid="new-session-agent" value=${chosen} onChange=${(e: Event) => setAgent((e.currentTarget as HTMLSelectElement).value)}>
        ${agents.map((a) => html`<option value=${a.name}>${a.name} (${a.driver.id})</option>`)}
      </select>
      <button type="submit" class="btn btn-allow" data-testid="create-session" disabled=${busy || chosen === ""}>New session</button>
    </form>
    <ul class="session-rows">
      ${sessions.length === 0 ? html`<li class="muted">No sessions yet.</li>` : null}
      ${sessions.map(
        (s) => html`<li key=${s.id} data-testid="session-row" data-session-id=${s.id} data-state=${s.state}>
          <button type="button" class="session-select" data-testid="session-select" aria-current=${s.id === selected ? "true" : undefined} onClick=${() => onSelect(s.id)}>
            <span class="session-id">${s.id}</span>
            <span class=${`badge state-${s.state}`} data-testid="session-state">${s.state}</span>
            <span class="muted" data-testid="session-agent">${s.agent}</span>
            <span class=${`gate ${s.gate.open ? "" : "closed"}`} data-testid="session-gate">gate ${formatGate(s.gate)}</span>
            <span data-testid="session-spend">${formatUsd(s.guardrails.spentUsd)} · ${formatTokens(s.guardrails.spentTokens)}</span>
            <span data-testid="session-queued" aria-label="queued prompts">${s.queued.length} queued</span>
          </button>
        </li>`,
      )}
    </ul>
    ${sessions.length >= limit ? html`<p class="muted" data-testid="session-list-limit">Showing the newest ${limit} sessions; older ones are not listed here.</p>` : null}
  </section>`;
}
