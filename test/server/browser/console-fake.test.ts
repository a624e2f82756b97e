/**
 * The console in Debian's Chromium against the attach server with fake-driver agents (issue #20):
 * a question form with a multi-select, free text and a masked secret (Codex's request_user_input
 * cannot ask for a secret or several choices, the fake driver's scripted question can); and a
 * network drop in the middle of a run, after which the timeline holds every event exactly once.
 */
import { tmpdir } from "node:os";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeBrowser, launchChromium } from "./chromium.js";
import { createSessionInConsole, ensureConsoleBuilt, openConsole, readEventsUntil, startConsoleServer, type ConsoleFixture } from "./console-fixture.js";
import { saveConsoleScreenshot } from "./screenshots.js";

const SECRET = "tok-7f3a9c51e2-never-shown";
const BEFORE = 12;
const AFTER = 12;

const messages = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ emit: { type: "message.completed", itemId: `${prefix}_${i + 1}`, text: `${prefix} ${i + 1}` } }));

const agents = (workspace: string) => ({
  asker: {
    driver: "fake",
    workspace,
    options: {
      process: true,
      script: {
        steps: [
          { markDelivered: true },
          {
            ask: {
              requestId: "setup",
              questions: [
                { id: "features", header: "Features", question: "Which features should the service enable?", multiSelect: true, options: [{ label: "Logging" }, { label: "Metrics" }, { label: "Tracing" }] },
                { id: "name", question: "What is the service called?" },
                { id: "token", header: "Deploy token", question: "Paste the deploy token", secret: true },
              ],
            },
          },
          { emit: { type: "message.completed", itemId: "done", text: "The service is configured." } },
        ],
      },
    },
  },
  streamer: {
    driver: "fake",
    workspace,
    options: {
      script: {
        steps: [
          { markDelivered: true },
          ...messages("before-drop", BEFORE),
          // The run waits here while the browser is cut off; the test answers over the API.
          { approve: { requestId: "go-on", kind: "command", summary: "Continue after the network drop", options: [] } },
          ...messages("after-drop", AFTER),
        ],
      },
    },
  },
});

let browser: Browser | undefined;
let fixture: ConsoleFixture | undefined;

function timelineItems(page: Page, kind?: string) {
  const selector = kind ? `[data-testid="timeline-item"][data-kind="${kind}"]` : '[data-testid="timeline-item"]';
  return page.getByTestId("timeline").locator(selector);
}

async function runCompleted(page: Page): Promise<void> {
  await timelineItems(page, "run").and(page.locator('[data-status="completed"]')).first().waitFor();
}

async function submit(page: Page, text: string): Promise<void> {
  await page.getByTestId("prompt-input").fill(text);
  await page.getByTestId("submit-button").click();
}

describeBrowser("console in Chromium: question forms and reconnect (fake driver)", (executable) => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    browser = await launchChromium(executable);
    // The fake driver touches no files; any existing folder does.
    fixture = await startConsoleServer(agents(tmpdir()));
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it("Question: a multi-select, free text and a masked secret answered through the form; the secret never reaches the page", async () => {
    const { context, page } = await openConsole(browser!, fixture!);
    try {
      const sessionId = await createSessionInConsole(page, "asker");
      await submit(page, "Configure the service");
      const form = page.getByTestId("question-form");
      await form.waitFor();
      expect(await form.getAttribute("data-request-id")).toBe("setup");

      const features = form.locator('[data-testid="question"][data-question-id="features"]');
      const boxes = features.getByTestId("question-option");
      expect(await boxes.evaluateAll((inputs) => inputs.map((i) => i.getAttribute("type")))).toEqual(["checkbox", "checkbox", "checkbox"]);
      await features.getByLabel("Logging").check();
      await features.getByLabel("Tracing").check();
      await form.locator('[data-question-id="name"]').getByTestId("question-text").fill("billing");
      const secret = form.locator('[data-question-id="token"]').getByTestId("question-secret");
      expect(await secret.getAttribute("type")).toBe("password");
      await secret.fill(SECRET);
      await saveConsoleScreenshot(page, "fake-question-form");
      await form.getByTestId("question-submit").click();

      await runCompleted(page);
      await form.waitFor({ state: "detached" });
      await expect.poll(() => timelineItems(page, "message").last().textContent()).toContain("The service is configured.");

      // The answers reached the driver (the fake provider echoes them in a notice).
      const events = await readEventsUntil(fixture!, sessionId, (e) => e.type === "run.completed");
      const resolved = events.find((e) => e.type === "question.resolved");
      expect(resolved?.data).toMatchObject({ requestId: "setup", answered: true });
      const answer = events.find((e) => e.type === "notice" && e.data.code === "fake_answer");
      const answers = JSON.parse(String(answer?.data.message)) as Record<string, unknown>;
      expect(answers).toMatchObject({ features: ["Logging", "Tracing"], name: "billing" });
      // The secret was answered, and the library redacted it from the provider's echo.
      expect(answers).toHaveProperty("token");
      expect(answers.token).not.toBe(SECRET);

      // Nothing on the page holds the secret: not the timeline, not an input, not the markup.
      expect(await page.getByTestId("timeline").textContent()).not.toContain(SECRET);
      expect(await page.content()).not.toContain(SECRET);
      const values = await page.locator("input, textarea").evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value));
      expect(values).not.toContain(SECRET);
      await saveConsoleScreenshot(page, "fake-question");
    } finally {
      await context.close();
    }
  });

  it("Reconnect: the network drops mid-run and comes back; the timeline holds every event exactly once", async () => {
    const { context, page } = await openConsole(browser!, fixture!);
    try {
      const sessionId = await createSessionInConsole(page, "streamer");
      // What each request for the session's events resumed from.
      const resumedFrom: (string | undefined)[] = [];
      page.on("request", (request) => {
        if (new URL(request.url()).pathname === `/api/sessions/${sessionId}/events`) resumedFrom.push(request.headers()["last-event-id"]);
      });
      await submit(page, "Stream through a network drop");
      const card = page.getByTestId("approval-card");
      await card.waitFor();
      await page.getByText(`before-drop ${BEFORE}`, { exact: true }).waitFor();
      const status = page.getByTestId("stream-status");
      expect(await status.getAttribute("data-state")).toBe("live");

      const seenBeforeDrop = Number(await timelineItems(page, "message").filter({ hasText: `before-drop ${BEFORE}` }).getAttribute("data-seq"));
      const requestsBeforeDrop = resumedFrom.length;

      // Cut every connection between the browser and the server; new ones are refused.
      fixture!.relay.drop();
      await page.locator('[data-testid="stream-status"][data-state="reconnecting"]').waitFor();

      // While the browser is offline the run goes on: answered over the API, it streams the rest.
      await fixture!.api(`/api/sessions/${sessionId}/approvals/go-on`, { body: { decision: "allow" } });
      const events = await readEventsUntil(fixture!, sessionId, (e) => e.type === "run.completed");
      expect(events.filter((e) => e.type === "message.completed")).toHaveLength(BEFORE + AFTER);

      fixture!.relay.restore();
      await page.locator('[data-testid="stream-status"][data-state="live"]').waitFor();
      await runCompleted(page);
      await page.getByText(`after-drop ${AFTER}`, { exact: true }).waitFor();

      // Every reconnection asked to resume after what the page had already seen.
      const resumes = resumedFrom.slice(requestsBeforeDrop);
      expect(resumes.length).toBeGreaterThan(0);
      for (const header of resumes) expect(Number(header)).toBeGreaterThanOrEqual(seenBeforeDrop);

      // Every message exactly once, in order.
      const texts = (await timelineItems(page, "message").getByTestId("message-body").allTextContents()).map((t) => t.trim());
      const expected = [...Array.from({ length: BEFORE }, (_, i) => `before-drop ${i + 1}`), ...Array.from({ length: AFTER }, (_, i) => `after-drop ${i + 1}`)];
      expect(texts).toEqual(expected);
      // Every item once by seq, none beyond what the server sent.
      const seqs = (await timelineItems(page).evaluateAll((items) => items.map((i) => i.getAttribute("data-seq")))).map(Number);
      expect(seqs.length).toBeGreaterThan(BEFORE + AFTER);
      expect(new Set(seqs).size).toBe(seqs.length);
      const { lastSeq } = await fixture!.api<{ lastSeq: number }>(`/api/sessions/${sessionId}`);
      expect(seqs.every((s) => Number.isInteger(s) && s >= 1 && s <= lastSeq)).toBe(true);
      // One run: its start and its end, once each.
      expect(await timelineItems(page, "run").count()).toBe(2);
      expect(await timelineItems(page, "run").and(page.locator('[data-status="completed"]')).count()).toBe(1);
      expect(await timelineItems(page, "approval").count()).toBe(1);
      await saveConsoleScreenshot(page, "reconnect");
    } finally {
      await context.close();
    }
  });
});
