/** One file's change with its unified diff, coloured by line. */
import { html } from "htm/preact";
import type { VNode } from "preact";
import type { FileChange } from "../../../src/events/types.js";
import { diffStat, parseUnifiedDiff } from "../diff.js";

export function DiffView({ file }: { file: FileChange }): VNode {
  const lines = file.diff !== undefined ? parseUnifiedDiff(file.diff) : [];
  const stat = diffStat(lines);
  return html`<figure class="file-diff" data-testid="file-diff" data-path=${file.path} data-change=${file.change}>
    <figcaption>
      <span class=${`badge change-${file.change}`}>${file.change}</span>
      <code>${file.movedFrom !== undefined ? `${file.movedFrom} → ${file.path}` : file.path}</code>
      ${lines.length > 0 ? html`<span class="diff-stat"><span class="add">+${stat.added}</span> <span class="del">−${stat.removed}</span></span>` : null}
    </figcaption>
    ${lines.length > 0
      ? html`<pre class="diff" aria-label=${`diff of ${file.path}`}>${lines.map((line) => html`<span class=${`diff-line diff-${line.kind}`}>${line.text}</span>`)}</pre>`
      : null}
  </figure>`;
}
