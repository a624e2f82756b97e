/** The session agent's inspection: every panel with its status, reason and evidence. */
import { html } from "htm/preact";
import type { VNode } from "preact";
import type { Inspection, Observation, PanelName } from "../wire.js";

/** The panels in the order inspect/types.ts lists them (PANEL_NAMES). */
const PANELS: readonly PanelName[] = ["environment", "models", "commands", "skills", "mcp", "quota", "profile", "configuration", "auth"];

export function InspectionView({ inspection, loading, onLoad }: { inspection: Inspection | undefined; loading: boolean; onLoad(): void }): VNode {
  return html`<section class="inspection" aria-label="Inspection">
    <div class="row">
      <h3>Inspection</h3>
      <button type="button" class="btn" data-testid="inspect-button" disabled=${loading} onClick=${onLoad}>${loading ? "Inspecting…" : inspection ? "Inspect again" : "Inspect"}</button>
    </div>
    ${inspection !== undefined
      ? html`<p class="muted" data-testid="inspection-driver">${inspection.driver.name} (<code>${inspection.driver.id}</code>) over ${inspection.driver.transport}</p>
          <div class="panels">${PANELS.map((name) => html`<${Panel} key=${name} name=${name} observation=${inspection[name]} />`)}</div>`
      : null}
  </section>`;
}

function Panel({ name, observation }: { name: PanelName; observation: Observation<unknown> | undefined }): VNode {
  if (observation === undefined) return html`<div class="panel" data-testid="inspection-panel" data-panel=${name} data-status="missing"><h4>${name}</h4><span class="badge">missing</span></div>`;
  return html`<div class="panel" data-testid="inspection-panel" data-panel=${name} data-status=${observation.status}>
    <h4>${name} <span class=${`badge status-${observation.status}`} data-testid="panel-status">${observation.status}</span></h4>
    ${observation.reason !== undefined ? html`<p data-testid="panel-reason"><code>${observation.reason.code}</code> ${observation.reason.message}</p>` : null}
    ${observation.value !== undefined ? html`<details><summary>Value</summary><pre>${JSON.stringify(observation.value, null, 2)}</pre></details>` : null}
    ${observation.evidence.length > 0
      ? html`<table data-testid="panel-evidence">
          <thead><tr><th scope="col">transport</th><th scope="col">method</th><th scope="col">version</th><th scope="col">observed at</th><th scope="col">ms</th></tr></thead>
          <tbody>
            ${observation.evidence.map(
              (e) => html`<tr><td>${e.transport}</td><td><code>${e.method}</code></td><td>${e.providerVersion ?? "—"}</td><td><time datetime=${e.observedAt}>${e.observedAt}</time></td><td>${e.durationMs}</td></tr>`,
            )}
          </tbody>
        </table>`
      : html`<p class="muted">no evidence</p>`}
  </div>`;
}
