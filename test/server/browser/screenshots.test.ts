/**
 * The screenshot check the browser tests rely on can fail: a blank page is refused, a page with
 * text and colour passes, and bytes that are not a PNG are rejected.
 */
import { rm } from "node:fs/promises";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeBrowser, launchChromium } from "./chromium.js";
import { saveConsoleScreenshot, summarizePng } from "./screenshots.js";

let browser: Browser | undefined;

describeBrowser("console screenshots: the non-empty render check", (executable) => {
  beforeAll(async () => {
    browser = await launchChromium(executable);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("refuses a blank page and accepts a rendered one", async () => {
    const page = await browser!.newPage({ viewport: { width: 800, height: 600 } });
    try {
      await page.setContent("<html><body style='background:#fff'></body></html>");
      await expect(saveConsoleScreenshot(page, "self-check-blank")).rejects.toThrow(/nothing rendered|looks blank/);

      await page.setContent(
        "<html><body style='font:16px sans-serif'><h1>Sessions</h1><ul>" +
          Array.from({ length: 12 }, (_, i) => `<li style='color:hsl(${i * 30},70%,40%)'>session ${i}: running, $0.00${i}</li>`).join("") +
          "</ul></body></html>",
      );
      const { bytes, summary } = await saveConsoleScreenshot(page, "self-check-rendered");
      expect(summary).toMatchObject({ width: 800, height: 600 });
      expect(bytes).toBeGreaterThan(8 * 1024);
      expect(summary.colours).toBeGreaterThan(24);
    } finally {
      await page.close();
      await rm(new URL("../../../artifacts/console/self-check-blank.png", import.meta.url), { force: true });
      await rm(new URL("../../../artifacts/console/self-check-rendered.png", import.meta.url), { force: true });
    }
  });
});

it("the check rejects bytes that are not a PNG", () => {
  expect(() => summarizePng(Buffer.from("GIF89a not a png"))).toThrow(/signature/);
});
