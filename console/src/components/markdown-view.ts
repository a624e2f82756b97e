/** Sanitized markdown (see markdown.ts); the only place the console sets innerHTML. */
import { html } from "htm/preact";
import type { VNode } from "preact";
import { renderMarkdown } from "../markdown.js";

export function Markdown({ text, testid }: { text: string; testid?: string }): VNode {
  return html`<div class="markdown" data-testid=${testid} dangerouslySetInnerHTML=${{ __html: renderMarkdown(text) }}></div>`;
}
