/** The live timeline: one list item per timeline item, re-rendered only when that item changed. */
import { html } from "htm/preact";
import { Component, type VNode } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";
import type { TimelineItem, ToolItem, UsageItem } from "../timeline.js";
import { describeNotice, formatTokens, formatUsd } from "../format.js";
import { DiffView } from "./diff-view.js";
import { Markdown } from "./markdown-view.js";

export function TimelineView({ items }: { items: readonly TimelineItem[] }): VNode {
  const list = useRef<HTMLOListElement>(null);
  const pinned = useRef(true);
  // Follow the tail while the reader is at the bottom; leave the scroll alone once they scroll up.
  useLayoutEffect(() => {
    const el = list.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });
  const onScroll = (): void => {
    const el = list.current;
    if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  };
  return html`<ol class="timeline" aria-label="Timeline" data-testid="timeline" ref=${list} onScroll=${onScroll} tabindex="0">
    ${items.length === 0 ? html`<li class="empty">No events yet.</li>` : items.map((item) => html`<${Item} key=${item.key} item=${item} />`)}
  </ol>`;
}

class Item extends Component<{ item: TimelineItem }> {
  override shouldComponentUpdate(next: { item: TimelineItem }): boolean {
    return next.item !== this.props.item;
  }
  override render(): VNode {
    const item = this.props.item;
    const status = "phase" in item ? item.phase : "status" in item ? item.status : undefined;
    const callId = item.kind === "tool" ? item.callId : undefined;
    return html`<li class=${`item item-${item.kind}`} data-testid="timeline-item" data-kind=${item.kind} data-seq=${item.seq} data-status=${status} data-call-id=${callId}>${body(item)}</li>`;
  }
}

function body(item: TimelineItem): VNode {
  switch (item.kind) {
    case "run":
      return html`<div class="run-line">
        <span class=${`badge run-${item.phase}`}>run ${item.phase}</span>
        ${item.driver !== undefined ? html`<span class="muted">${item.driver}${item.model !== undefined ? ` · ${item.model}` : ""}</span>` : null}
        ${item.durationMs !== undefined ? html`<span class="muted">${(item.durationMs / 1000).toFixed(1)} s</span>` : null}
        ${item.error !== undefined ? html`<span class="error-text"><code>${item.error.code}</code> ${item.error.message}</span>` : null}
        ${item.reason !== undefined ? html`<span class="muted">${item.reason}</span>` : null}
      </div>`;
    case "message":
      return html`<div class="bubble"><${Markdown} text=${item.text} testid="message-body" /></div>`;
    case "reasoning":
      return html`<details class="reasoning"><summary>Reasoning${item.done ? "" : "…"}</summary><${Markdown} text=${item.text} testid="reasoning-body" /></details>`;
    case "tool":
      return html`<${ToolView} item=${item} />`;
    case "plan":
      return html`<div class="plan"><div class="label">Plan</div>
        <ul data-testid="plan">
          ${item.entries.map(
            (entry) => html`<li data-status=${entry.status}>
              <label><input type="checkbox" disabled checked=${entry.status === "completed"} /> <span class=${`plan-${entry.status}`}>${entry.text}</span></label>
              ${entry.status === "in_progress" ? html` <span class="badge">in progress</span>` : null}
            </li>`,
          )}
        </ul></div>`;
    case "usage":
      return html`<${UsageView} item=${item} />`;
    case "notice":
      return html`<div class=${`notice notice-${item.level}`}><span class="badge">${item.level}</span> <code>${item.code}</code> ${item.message}${item.count !== undefined && item.count > 1 ? ` (×${item.count})` : ""}</div>`;
    case "approval":
      return html`<div class="approval-line"><span class="badge">approval</span> ${item.summary}
        ${item.resolution !== undefined ? html` → <strong data-testid="approval-outcome">${item.resolution.outcome}</strong> <span class="muted">by ${item.resolution.by}</span>` : html` <span class="muted">waiting</span>`}</div>`;
    case "question":
      return html`<div class="question-line"><span class="badge">question</span> ${item.prompts.join(" · ")}
        ${item.resolution !== undefined ? html` → <strong>${item.resolution.answered ? "answered" : "declined"}</strong> <span class="muted">by ${item.resolution.by}</span>` : html` <span class="muted">waiting</span>`}</div>`;
    case "session":
      return html`<div class="session-line" data-notice=${item.notice.type}><span class="muted">${describeNotice(item.notice)}</span></div>`;
  }
}

function ToolView({ item }: { item: ToolItem }): VNode {
  return html`<div class="tool" data-call-id=${item.callId}>
    <div class="tool-head">
      <span class="badge">${item.toolKind}</span>
      <span data-testid="tool-title">${item.title}</span>
      <span class=${`badge tool-${item.status}`}>${item.status}</span>
      ${item.exitCode !== undefined ? html`<span class=${`badge ${item.exitCode === 0 ? "ok" : "bad"}`} data-testid="tool-exit-code">exit ${item.exitCode}</span>` : null}
    </div>
    ${item.command !== undefined ? html`<pre class="command"><code data-testid="tool-command">$ ${item.command}</code></pre>` : null}
    ${item.cwd !== undefined ? html`<div class="muted">in <code>${item.cwd}</code></div>` : null}
    ${item.mcp !== undefined ? html`<div class="muted">MCP <code>${item.mcp.server}</code> / <code>${item.mcp.tool}</code></div>` : null}
    ${item.output !== ""
      ? html`<details class="tool-output" open=${item.output.length < 2000}><summary>Output${item.outputDropped > 0 ? ` (first ${item.outputDropped} characters not kept)` : ""}</summary><pre data-testid="tool-output">${item.output}</pre></details>`
      : null}
    ${item.files.map((file) => html`<${DiffView} key=${file.path} file=${file} />`)}
  </div>`;
}

function UsageView({ item }: { item: UsageItem }): VNode {
  const u = item.usage;
  const parts: string[] = [];
  if (u.input_tokens !== undefined) parts.push(`in ${formatTokens(u.input_tokens)}`);
  if (u.cached_input_tokens !== undefined) parts.push(`cached ${formatTokens(u.cached_input_tokens)}`);
  if (u.output_tokens !== undefined) parts.push(`out ${formatTokens(u.output_tokens)}`);
  if (u.reasoning_output_tokens !== undefined) parts.push(`reasoning ${formatTokens(u.reasoning_output_tokens)}`);
  if (u.context_used !== undefined) parts.push(`context ${formatTokens(u.context_used)}${u.context_size !== undefined ? ` / ${formatTokens(u.context_size)}` : ""}`);
  if (u.cost_usd !== undefined) parts.push(`cost ${formatUsd(u.cost_usd)}`);
  else if (u.cumulative_cost_usd !== undefined) parts.push(`conversation cost ${formatUsd(u.cumulative_cost_usd)}`);
  return html`<div class="usage" data-testid="usage"><span class="badge">usage</span> ${parts.join(" · ") || "reported"}</div>`;
}
