/**
 * Markdown in the timeline. The renderer escapes raw HTML (checked here in Node); the whole
 * pipeline with DOMPurify runs in Chromium (DOMPurify needs a real DOM), bundled as the console
 * bundles it.
 */
import { build } from "esbuild";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { markdownToHtml } from "../../../console/src/markdown-render.js";
import { describeBrowser, launchChromium } from "../browser/chromium.js";

const ATTACKS = [
  "<script>window.__pwned = 1</script>",
  '<img src="x" onerror="window.__pwned = 2">',
  "[click](javascript:window.__pwned=3)",
  '[click](JaVaScRiPt:window.__pwned=4 "t")',
  "![img](javascript:window.__pwned=5)",
  '<a href="javascript:window.__pwned=6">x</a>',
  '<iframe srcdoc="<script>parent.__pwned=7</script>"></iframe>',
  '<svg><script>window.__pwned=8</script></svg>',
  '<details open ontoggle="window.__pwned=9">',
  "[x](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0xMDwvc2NyaXB0Pg==)",
  '<form action="https://evil.example"><button>go</button></form>',
  '<div style="background:url(javascript:window.__pwned=11)">x</div>',
  "`<script>` in code stays code",
];

/** Runs in the page (the test's own typecheck has no DOM): renders each attack into the page and lists what survived. */
const CHECK_IN_PAGE = `(attacks) => {
  const out = document.getElementById("out");
  const findings = [];
  for (const attack of attacks) {
    out.innerHTML = consoleMarkdown.renderMarkdown(attack);
    for (const el of out.querySelectorAll("*")) {
      if (/^(script|iframe|form|button|style|object|embed|svg)$/i.test(el.tagName)) findings.push(attack + " -> <" + el.tagName + ">");
      for (const attr of el.attributes) {
        if (attr.name.startsWith("on") || attr.name === "style" || attr.name === "srcdoc") findings.push(attack + " -> " + attr.name);
        if ((attr.name === "href" || attr.name === "src") && !/^(https?:|mailto:)/i.test(attr.value)) findings.push(attack + " -> " + attr.name + "=" + attr.value);
      }
    }
    // Give any handler that slipped through its chance to fire.
    for (const a of out.querySelectorAll("a, img, details")) a.dispatchEvent(new MouseEvent("mouseover"));
  }
  return { findings, pwned: window.__pwned ?? null };
}`;

describe("markdown renderer (before sanitizing)", () => {
  it("renders markdown and shows raw HTML as text", () => {
    expect(markdownToHtml("**bold** and `code`")).toBe("<p><strong>bold</strong> and <code>code</code></p>\n");
    expect(markdownToHtml("<script>alert(1)</script>")).toBe("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(markdownToHtml('hi <img src=x onerror="alert(1)"> there')).toBe('<p>hi &lt;img src=x onerror=&quot;alert(1)&quot;&gt; there</p>\n');
  });

  it("keeps GFM tables, task lists and fenced code", () => {
    const html = markdownToHtml("| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n```sh\necho <hi>\n```\n");
    expect(html).toContain("<table>");
    expect(html).toContain('type="checkbox"');
    expect(html).toContain("echo &lt;hi&gt;");
  });
});

describeBrowser("markdown sanitized in the browser", (executable) => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [join(import.meta.dirname, "../../../console/src/markdown.ts")],
      bundle: true,
      write: false,
      format: "iife",
      globalName: "consoleMarkdown",
      platform: "browser",
      logLevel: "silent",
    });
    browser = await launchChromium(executable);
    page = await browser.newPage();
    await page.setContent("<!doctype html><html><body><div id=out></div></body></html>");
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("leaves no script, handler, javascript: URL, frame or form in what it renders", async () => {
    const report = (await page.evaluate(`(${CHECK_IN_PAGE})(${JSON.stringify(ATTACKS)})`)) as { findings: string[]; pwned: number | null };
    expect(report.findings).toEqual([]);
    expect(report.pwned).toBeNull();
    expect(await page.evaluate("window.__pwned ?? null")).toBeNull();
  });

  it("renders safe markdown, links opening apart with noopener", async () => {
    const markdown = "Read [the docs](https://example.org/docs) or mail [me](mailto:a@b.c).\n\n- one\n- two\n\n`x < y`";
    const html = (await page.evaluate(`consoleMarkdown.renderMarkdown(${JSON.stringify(markdown)})`)) as string;
    expect(html).toContain('<a href="https://example.org/docs" target="_blank" rel="noopener noreferrer">the docs</a>');
    expect(html).toContain('<a href="mailto:a@b.c" target="_blank" rel="noopener noreferrer">me</a>');
    expect(html).toContain("<li>one</li>");
    expect(html).toContain("<code>x &lt; y</code>");
  });
});
