/** A pending approval: what is asked, the command when the tool call is known, and one button per answer. */
import { html } from "htm/preact";
import type { VNode } from "preact";
import { useState } from "preact/hooks";
import { answerOf, approvalButtons, type ApprovalAnswer } from "../approvals.js";
import type { PendingApproval } from "../wire.js";
import type { ToolItem } from "../timeline.js";

export interface ApprovalCardProps {
  approval: PendingApproval;
  /** The tool call it is about, when the timeline has it. */
  tool?: ToolItem;
  onAnswer(requestId: string, answer: ApprovalAnswer): Promise<void>;
}

export function ApprovalCard({ approval, tool, onAnswer }: ApprovalCardProps): VNode {
  const [busy, setBusy] = useState(false);
  const [denyMessage, setDenyMessage] = useState("");
  const answer = async (value: ApprovalAnswer): Promise<void> => {
    setBusy(true);
    try {
      await onAnswer(approval.requestId, value);
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="card approval-card" data-testid="approval-card" data-request-id=${approval.requestId} aria-label="Approval requested">
    <h3><span class="badge">${approval.kind}</span> Approval requested</h3>
    <p data-testid="approval-summary">${approval.summary}</p>
    ${tool?.command !== undefined ? html`<pre class="command"><code data-testid="approval-command">$ ${tool.command}</code></pre>` : null}
    ${tool !== undefined && tool.command === undefined && tool.files.length > 0
      ? html`<ul class="files">${tool.files.map((f) => html`<li><code>${f.path}</code> (${f.change})</li>`)}</ul>`
      : null}
    <div class="buttons">
      ${approvalButtons(approval.options).map(
        (button) =>
          html`<button type="button" class=${`btn btn-${button.tone}`} data-testid="approval-option" data-option-id=${button.id} disabled=${busy} onClick=${() => answer(answerOf(button, denyMessage))}>${button.label}</button>`,
      )}
    </div>
    <label class="deny-message">Message to the agent if denied
      <input type="text" data-testid="approval-deny-message" value=${denyMessage} onInput=${(e: Event) => setDenyMessage((e.currentTarget as HTMLInputElement).value)} placeholder="optional: why, or what to do instead" />
    </label>
  </section>`;
}
