/**
 * Markdown → HTML for assistant messages, before sanitizing. Raw HTML in the markdown is shown as
 * text (escaped), never parsed, so a model's `<script>` or `<img onerror>` is just characters;
 * DOMPurify (markdown.ts) then sanitizes the result as a second line of defence.
 */
import { Marked } from "marked";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
  },
});

/** The HTML of `markdown`, raw HTML escaped. Not yet sanitized: render only through `renderMarkdown`. */
export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false });
}
