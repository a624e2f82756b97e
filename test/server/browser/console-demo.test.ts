/**
 * The README's promise, in Chromium: a server started without any configuration serves a console
 * that works offline with the demo agent (the scripted model server and the in-process openai
 * driver) and the embedded SQLite store — a prompt, the approval allowed, the file written, the
 * markdown answer rendered — and after a restart on the same state directory the session is
 * still listed with its timeline.
 */
import { readFile, realpath, rm } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeBrowser, launchChromium } from "./chromium.js";
import { createSessionInConsole, ensureConsoleBuilt, openConsole, startConsoleServer } from "./console-fixture.js";
import { saveConsoleScreenshot } from "./screenshots.js";

let browser: Browser | undefined;
let stateDir: string | undefined;

function timelineItems(page: Page, kind: string) {
  return page.getByTestId("timeline").locator(`[data-testid="timeline-item"][data-kind="${kind}"]`);
}

describeBrowser("console in Chromium: the offline demo with no configuration", (executable) => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    browser = await launchChromium(executable);
    stateDir = await realpath(await mkdtemp(join(tmpdir(), "agent-adaptor-console-demo-")));
  });
  afterAll(async () => {
    await browser?.close();
    if (stateDir) await rm(stateDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it("runs a demo turn through the console, and lists the session again after a restart", async () => {
    let sessionId: string;
    const first = await startConsoleServer(undefined, { stateDir: stateDir! });
    try {
      const { context, page } = await openConsole(browser!, first);
      try {
        // The token left the address bar once the console stored it.
        await page.getByTestId("session-detail").or(page.getByRole("button", { name: "New session" })).first().waitFor();
        expect(new URL(page.url()).hash).toBe("");
        sessionId = await createSessionInConsole(page, "demo");
        await page.getByTestId("prompt-input").fill("Show me what you can do");
        await page.getByTestId("submit-button").click();

        const card = page.getByTestId("approval-card");
        await card.waitFor();
        await card.getByRole("button", { name: "Allow", exact: true }).click();
        await timelineItems(page, "run").and(page.locator('[data-status="completed"]')).first().waitFor();

        const { agents } = await first.api<{ agents: { name: string; workspace: string }[] }>("/api/agents");
        const workspace = agents.find((a) => a.name === "demo")!.workspace;
        expect(await readFile(join(workspace, "hello.txt"), "utf8")).toBe("hello from the demo agent\n");

        // The answer is markdown, rendered: a heading, a list, emphasis; the reasoning stays folded.
        const answer = timelineItems(page, "message").last().getByTestId("message-body");
        await expect.poll(() => answer.locator("h2").textContent()).toBe("Done");
        expect(await answer.locator("li").count()).toBe(2);
        expect(await answer.locator("strong").textContent()).toBe("hello.txt");
        const reasoning = timelineItems(page, "reasoning").locator("details");
        expect(await reasoning.count()).toBe(1);
        expect(await reasoning.getAttribute("open")).toBeNull();
        expect(await timelineItems(page, "usage").count()).toBeGreaterThan(0);
        await saveConsoleScreenshot(page, "demo");
      } finally {
        await context.close();
      }
    } finally {
      await first.close();
    }

    // Same state directory, new server: the session comes back from the SQLite file.
    const second = await startConsoleServer(undefined, { stateDir: stateDir! });
    try {
      const { context, page } = await openConsole(browser!, second);
      try {
        const row = page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
        await row.waitFor();
        await row.getByTestId("session-select").click();
        await timelineItems(page, "run").and(page.locator('[data-status="completed"]')).first().waitFor();
        await expect.poll(() => timelineItems(page, "message").last().getByTestId("message-body").locator("h2").textContent()).toBe("Done");
        await saveConsoleScreenshot(page, "demo-after-restart");
      } finally {
        await context.close();
      }
    } finally {
      await second.close();
    }
  });
});
