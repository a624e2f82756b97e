/**
 * The session's inbox: each waiting message's text (cut for the page; text nodes, never markup),
 * who queued it and what kind it is. Read again whenever the session's queued ids change.
 */
import { html } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Api } from "../api.js";
import type { QueuedPrompt } from "../wire.js";

/** Characters of a queued message shown; the whole text is in the element's title. */
export const QUEUED_TEXT_SHOWN = 200;

const KIND_TEXT: Record<QueuedPrompt["kind"], string> = { prompt: "prompt", steer: "steer", follow_up: "follow-up" };

export function clipQueued(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > QUEUED_TEXT_SHOWN ? `${flat.slice(0, QUEUED_TEXT_SHOWN - 1)}…` : flat;
}

export function QueueView({ id, queued, api }: { id: string; queued: readonly string[]; api: Api }): VNode | null {
  const [prompts, setPrompts] = useState<QueuedPrompt[]>([]);
  const key = queued.join("\n");
  useEffect(() => {
    if (queued.length === 0) {
      setPrompts([]);
      return;
    }
    let current = true;
    api.queue(id).then(
      (read) => {
        if (current) setPrompts(read);
      },
      // The ids stay shown below; the next change reads the queue again.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [id, key]);
  if (queued.length === 0) return null;
  const byId = new Map(prompts.map((p) => [p.promptId, p]));
  return html`<section class="queue" aria-label="Queued messages" data-testid="queue">
    <h3>Queued (${queued.length})</h3>
    <ol>
      ${queued.map((promptId) => {
        const p = byId.get(promptId);
        return html`<li key=${promptId} data-testid="queued-prompt" data-prompt-id=${promptId}>
          ${p === undefined
            ? html`<span class="muted">${promptId}</span>`
            : html`<span class="badge" data-testid="queued-kind">${KIND_TEXT[p.kind]}</span>
                ${p.from !== undefined ? html`<span class="muted" data-testid="queued-from">from ${p.from}</span>` : null}
                <span class="queued-text" data-testid="queued-text" title=${p.text}>${clipQueued(p.text)}</span>`}
        </li>`;
      })}
    </ol>
  </section>`;
}
