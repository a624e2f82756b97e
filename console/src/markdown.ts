/**
 * Sanitized markdown for the timeline (browser only: DOMPurify needs the DOM). Links open in a new
 * tab with `rel="noopener noreferrer"`; only http(s) and mailto links survive; no forms, styles,
 * frames or event handlers.
 */
import DOMPurify from "dompurify";
import { markdownToHtml } from "./markdown-render.js";

const SAFE_LINK = /^(https?:|mailto:)/i;

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    const href = node.getAttribute("href");
    if (href === null || !SAFE_LINK.test(href.trim())) node.removeAttribute("href");
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
  if (node.tagName === "IMG") {
    // The page's CSP blocks other origins anyway; keep the alt text, drop a remote source.
    const src = node.getAttribute("src");
    if (src !== null && !src.startsWith("data:image/")) node.removeAttribute("src");
  }
});

const CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed", "svg", "math"],
  FORBID_ATTR: ["style", "class", "id"],
  ALLOW_DATA_ATTR: false,
};

/** `markdown` as sanitized HTML, safe for `innerHTML`. */
export function renderMarkdown(markdown: string): string {
  return DOMPurify.sanitize(markdownToHtml(markdown), CONFIG);
}
