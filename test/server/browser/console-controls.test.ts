/**
 * The console's controls and panels in Chromium against the attach server with a fake-driver
 * agent (issue #20 item 3): no or a wrong token shows no data; interrupt cancels a running run;
 * hold queues a prompt until resume runs it; the inspection panel shows each panel's status with
 * its reason or evidence; archive ends the session and disables its controls.
 */
import { tmpdir } from "node:os";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeBrowser, launchChromium } from "./chromium.js";
import { createSessionInConsole, ensureConsoleBuilt, openConsole, startConsoleServer, type ConsoleFixture } from "./console-fixture.js";
import { saveConsoleScreenshot } from "./screenshots.js";

let browser: Browser | undefined;
let fixture: ConsoleFixture | undefined;

function timelineItems(page: Page, kind: string) {
  return page.getByTestId("timeline").locator(`[data-testid="timeline-item"][data-kind="${kind}"]`);
}

function runEnded(page: Page, status: string) {
  return timelineItems(page, "run").and(page.locator(`[data-status="${status}"]`));
}

async function submit(page: Page, text: string): Promise<void> {
  await page.getByTestId("prompt-input").fill(text);
  await page.getByTestId("submit-button").click();
}

describeBrowser("console in Chromium: token, controls, inspection (fake driver)", (executable) => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    browser = await launchChromium(executable);
    fixture = await startConsoleServer({
      worker: {
        driver: "fake",
        // The fake driver touches no files; any existing folder does.
        workspace: tmpdir(),
        options: {
          scripts: [
            {
              promptContains: "keep working",
              script: { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "w", text: "Working on it." } }, { waitForAbort: true }] },
            },
          ],
          script: { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "r", text: "Ran the queued prompt." } }] },
        },
      },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it("without a token, or with a wrong one, the console shows no session data", async () => {
    const context = await browser!.newContext();
    try {
      const page = await context.newPage();
      await page.goto(fixture!.consoleUrl.replace(/#.*$/, ""));
      await page.getByTestId("token-missing").waitFor();
      await fixture!.api("/api/sessions", { body: { agent: "worker", id: "ses_private" } });

      await page.goto(fixture!.consoleUrl.replace(/#token=.*$/, "#token=not-the-token"));
      await page.getByTestId("token-missing").or(page.getByTestId("error")).first().waitFor();
      expect(await page.getByTestId("session-row").count()).toBe(0);
      expect(await page.content()).not.toContain("ses_private");
    } finally {
      await context.close();
    }
  });

  it("Interrupt cancels the running run; Hold queues a prompt that Resume runs; Inspect shows every panel; Archive ends the session", async () => {
    const { context, page } = await openConsole(browser!, fixture!);
    try {
      const sessionId = await createSessionInConsole(page, "worker");
      const row = page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);

      await submit(page, "Please keep working");
      await page.getByText("Working on it.", { exact: true }).waitFor();
      await page.getByTestId("interrupt-button").click();
      await runEnded(page, "cancelled").waitFor();

      await page.getByTestId("reason-input").fill("waiting for review");
      await page.getByTestId("hold-button").click();
      await expect.poll(() => row.getByTestId("session-gate").textContent()).toContain("hold: waiting for review");
      await submit(page, "Run after the hold");
      await expect.poll(() => row.getByTestId("session-queued").textContent()).toMatch(/^1 /);
      expect(await runEnded(page, "completed").count()).toBe(0);

      await page.getByTestId("resume-mode").selectOption("continue");
      await page.getByTestId("resume-button").click();
      await runEnded(page, "completed").waitFor();
      await page.getByText("Ran the queued prompt.", { exact: true }).waitFor();
      await expect.poll(() => row.getByTestId("session-gate").textContent()).toContain("open");
      await expect.poll(() => row.getByTestId("session-queued").textContent()).toMatch(/^0 /);

      await page.getByTestId("inspect-button").click();
      const panels = page.getByTestId("inspection-panel");
      await panels.first().waitFor();
      const statuses = await panels.evaluateAll((els) => els.map((e) => e.getAttribute("data-status")));
      expect(statuses.length).toBeGreaterThan(0);
      for (const status of statuses) expect(["observed", "unavailable", "unsupported"]).toContain(status);
      // An observed panel shows its evidence; the others say why not.
      const observed = page.locator('[data-testid="inspection-panel"][data-status="observed"]');
      expect(await observed.count()).toBeGreaterThan(0);
      expect(await observed.first().getByTestId("panel-evidence").count()).toBe(1);
      const notObserved = page.locator('[data-testid="inspection-panel"]:not([data-status="observed"])');
      for (let i = 0; i < (await notObserved.count()); i++) {
        expect((await notObserved.nth(i).getByTestId("panel-reason").textContent())?.trim()).not.toBe("");
      }
      await saveConsoleScreenshot(page, "controls-inspection");

      await page.getByTestId("archive-button").click();
      await expect.poll(() => row.getByTestId("session-state").textContent()).toBe("archived");
      expect(await page.getByTestId("submit-button").isDisabled()).toBe(true);
      expect(await fixture!.api<{ state: string }>(`/api/sessions/${sessionId}`)).toMatchObject({ state: "archived" });
    } finally {
      await context.close();
    }
  });
});
