/**
 * The console's queue and its list polling in Chromium: messages held behind a closed gate are
 * shown with their text (escaped, cut for the page) and who queued them; the session list is not
 * polled while the tab is hidden and is read again as soon as it is shown (the page's clock is
 * Playwright's, so no test waits on real time).
 */
import { tmpdir } from "node:os";
import type { Browser, Request } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeBrowser, launchChromium } from "./chromium.js";
import { ensureConsoleBuilt, openConsole, startConsoleServer, type ConsoleFixture } from "./console-fixture.js";

let browser: Browser | undefined;
let fixture: ConsoleFixture | undefined;

describeBrowser("console in Chromium: the queue, and list polling (fake driver)", (executable) => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    browser = await launchChromium(executable);
    fixture = await startConsoleServer({ worker: { driver: "fake", workspace: tmpdir() } });
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it("shows each queued message's text, escaped and cut, with who queued it", async () => {
    await fixture!.api("/api/sessions", { body: { agent: "worker", id: "queue-shown" } });
    await fixture!.api("/api/sessions/queue-shown/hold", { body: { reason: "reviewing first" } });
    const markup = '<img src="x" onerror="window.__pwned = 1"> fix the <b>build</b>';
    await fixture!.api("/api/sessions/queue-shown/submit", { body: { text: markup, from: "ci-bot" } });
    await fixture!.api("/api/sessions/queue-shown/submit", { body: { text: `long ${"word ".repeat(100)}` } });

    const { context, page } = await openConsole(browser!, fixture!);
    try {
      await page.locator('[data-testid="session-row"][data-session-id="queue-shown"] [data-testid="session-select"]').click();
      const items = page.getByTestId("queue").getByTestId("queued-prompt");
      await items.nth(1).getByTestId("queued-text").waitFor();
      expect(await items.count()).toBe(2);
      expect(await items.nth(0).getByTestId("queued-text").textContent()).toBe(markup);
      expect(await items.nth(0).getByTestId("queued-from").textContent()).toBe("from ci-bot");
      expect(await page.getByTestId("queue").locator("img, b").count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      const long = (await items.nth(1).getByTestId("queued-text").textContent()) ?? "";
      expect(long).toHaveLength(200);
      expect(long.endsWith("…")).toBe(true);
      expect(await items.nth(1).getByTestId("queued-from").count()).toBe(0);

      // Resumed, the queue runs and the panel goes away.
      await fixture!.api("/api/sessions/queue-shown/resume", { body: { mode: "continue" } });
      await page.getByTestId("queue").waitFor({ state: "detached" });
    } finally {
      await context.close();
    }
  });

  it("does not poll the session list while the tab is hidden, and reads it at once when shown", async () => {
    const context = await browser!.newContext();
    try {
      const page = await context.newPage();
      await page.clock.install();
      const seen: string[] = [];
      page.on("request", (request: Request) => {
        const path = new URL(request.url()).pathname + new URL(request.url()).search;
        if (path.startsWith("/api/sessions?") || path === "/api/health") seen.push(path.startsWith("/api/health") ? "marker" : "list");
      });
      /** Every request the page made before a marker request it makes now. */
      const settled = async (): Promise<string[]> => {
        const before = seen.length;
        await page.evaluate(() => fetch("api/health"));
        await expect.poll(() => seen.slice(before).includes("marker")).toBe(true);
        return seen.filter((kind) => kind === "list");
      };
      await page.goto(fixture!.consoleUrl);
      await page.getByTestId("session-row").first().waitFor();
      const initial = (await settled()).length;
      expect(initial).toBeGreaterThanOrEqual(1);

      await page.clock.runFor(3000);
      expect((await settled()).length).toBe(initial + 1);

      const setVisibility = (state: "hidden" | "visible") =>
        page.evaluate((value) => {
          // Runs in the page (this file is typed for Node, without the DOM's globals).
          const doc = (globalThis as unknown as { document: EventTarget }).document;
          Object.defineProperty(doc, "visibilityState", { configurable: true, get: () => value });
          doc.dispatchEvent(new Event("visibilitychange"));
        }, state);
      await setVisibility("hidden");
      await page.clock.runFor(30_000);
      expect((await settled()).length).toBe(initial + 1);

      await setVisibility("visible");
      expect((await settled()).length).toBe(initial + 2);
      await page.clock.runFor(3000);
      expect((await settled()).length).toBe(initial + 3);
    } finally {
      await context.close();
    }
  });
});
