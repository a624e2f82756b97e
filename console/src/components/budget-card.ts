/** A tripped spend ceiling: new runs are refused until a session ceiling is raised or a run ceiling cleared. */
import { html } from "htm/preact";
import type { VNode } from "preact";
import { useState } from "preact/hooks";
import type { Guardrails } from "../wire.js";
import { formatTokens, formatUsd } from "../format.js";

export interface BudgetCardProps {
  guardrails: Guardrails;
  onRaise(amount: { usd?: number; tokens?: number }): Promise<void>;
  onResetRun(): Promise<void>;
}

export function BudgetCard({ guardrails, onRaise, onResetRun }: BudgetCardProps): VNode | null {
  const [usd, setUsd] = useState("");
  const [tokens, setTokens] = useState("");
  const [busy, setBusy] = useState(false);
  const tripped = guardrails.tripped;
  if (tripped === undefined) return null;
  const act = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    try {
      await work();
      setUsd("");
      setTokens("");
    } catch {
      // The app shows the refusal.
    } finally {
      setBusy(false);
    }
  };
  const runCeiling = tripped.ceiling === "runUsd" || tripped.ceiling === "runTokens";
  const amount = (): { usd?: number; tokens?: number } => ({
    ...(Number(usd) > 0 ? { usd: Number(usd) } : {}),
    ...(Number.isSafeInteger(Number(tokens)) && Number(tokens) > 0 ? { tokens: Number(tokens) } : {}),
  });
  const b = guardrails.budget;
  return html`<section class="card budget-card" data-testid="budget-card" data-ceiling=${tripped.ceiling} aria-label="Budget">
    <h3>Budget: the <code>${tripped.ceiling}</code> ceiling is tripped</h3>
    <p>New runs are refused until ${runCeiling ? "the run ceiling is cleared" : "the session ceiling is raised above the spend"}.
      Spent ${formatUsd(guardrails.spentUsd)} · ${formatTokens(guardrails.spentTokens)}${b.sessionUsd !== undefined ? `; session ceiling ${formatUsd(b.sessionUsd)}` : ""}${b.sessionTokens !== undefined ? `; session ceiling ${formatTokens(b.sessionTokens)}` : ""}.</p>
    ${runCeiling
      ? html`<div class="buttons"><button type="button" class="btn btn-allow" data-testid="reset-run-ceiling" disabled=${busy} onClick=${() => act(onResetRun)}>Reset run ceiling</button></div>`
      : html`<form class="row" onSubmit=${(e: Event) => (e.preventDefault(), act(() => onRaise(amount())))}>
          ${b.sessionUsd !== undefined
            ? html`<label for="budget-usd">Add USD</label><input id="budget-usd" data-testid="budget-usd" type="number" min="0" step="any" value=${usd} onInput=${(e: Event) => setUsd((e.currentTarget as HTMLInputElement).value)} />`
            : null}
          ${b.sessionTokens !== undefined
            ? html`<label for="budget-tokens">Add tokens</label><input id="budget-tokens" data-testid="budget-tokens" type="number" min="0" step="1" value=${tokens} onInput=${(e: Event) => setTokens((e.currentTarget as HTMLInputElement).value)} />`
            : null}
          <button type="submit" class="btn btn-allow" data-testid="raise-budget" disabled=${busy}>Raise budget</button>
        </form>`}
  </section>`;
}
