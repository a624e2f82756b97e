/**
 * The console in Chromium against the attach server's offline demo agent: the token leaves the
 * URL, holding and resuming from the controls, an approval allowed from its card, the markdown
 * answer, the inspection panels, archiving — and, throughout, no script error and no CSP
 * violation in the page. The console is built for this test into a temporary folder.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { createAttachServer, type AttachServer } from "../../../src/server/index.js";
import { describeBrowser, launchChromium } from "../browser/chromium.js";

const ROOT = join(import.meta.dirname, "../../..");

describeBrowser("console in Chromium on the demo agent", (executable) => {
  let dir: string;
  let server: AttachServer;
  let consoleUrl: string;
  let browser: Browser;

  let servers = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "console-demo-"));
    await promisify(execFile)(process.execPath, ["scripts/build-console.mjs", "--out", join(dir, "console")], { cwd: ROOT });
    browser = await launchChromium(executable);
  });

  // A server per test: the demo's scripted model answers turns in order, so one test's interrupted turn must not shift the next one's.
  let stateDir: string;
  const startServer = async (): Promise<void> => {
    server = await createAttachServer({ stateDir, port: 0, consoleRoot: join(dir, "console") });
    ({ consoleUrl } = await server.listen());
  };
  beforeEach(async () => {
    stateDir = join(dir, `state-${++servers}`);
    await startServer();
  });

  afterEach(async () => {
    await server?.close();
  });

  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("drives a session from the console: hold, resume, allow, markdown, inspection, archive", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const problems: string[] = [];
    const page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" || /Content Security Policy|Refused to/i.test(message.text())) problems.push(`${message.type()}: ${message.text()}`);
    });
    try {
      await page.goto(consoleUrl);
      // The token left the address bar and stays with the tab.
      expect(new URL(page.url()).hash).toBe("");
      expect(await page.evaluate("sessionStorage.getItem('agent-adaptor.token')")).toBe(server.token);

      await page.getByTestId("new-session-agent").selectOption("demo");
      await page.getByTestId("create-session").click();
      const row = page.getByTestId("session-row").first();
      await row.waitFor();
      await page.locator('[data-testid="stream-status"][data-state="live"]').waitFor();

      // Held: a prompt waits in the queue.
      await page.getByLabel("Reason", { exact: true }).fill("reviewing first");
      await page.getByRole("button", { name: "Hold", exact: true }).click();
      await row.getByTestId("session-gate").filter({ hasText: "hold: reviewing first" }).waitFor();
      await page.getByLabel("Message", { exact: true }).fill("Show me a tool call");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      await row.getByTestId("session-queued").filter({ hasText: "1 queued" }).waitFor();
      expect(await page.locator('[data-testid="approval-card"]').count()).toBe(0);
      expect(await page.locator('[data-testid="timeline-item"][data-kind="run"]').count()).toBe(0);

      // Resumed: the run starts and asks to run its command.
      await page.getByLabel("Resume mode").selectOption("continue");
      await page.getByRole("button", { name: "Resume", exact: true }).click();
      const card = page.getByTestId("approval-card");
      await card.waitFor();
      expect(await card.getByTestId("approval-command").textContent()).toContain("hello.txt");
      await card.getByRole("button", { name: "Allow", exact: true }).click();
      await page.locator('[data-testid="timeline-item"][data-kind="run"][data-status="completed"]').waitFor();
      await card.waitFor({ state: "detached" });

      const tool = page.locator('[data-testid="timeline-item"][data-kind="tool"]');
      expect(await tool.getAttribute("data-status")).toBe("completed");
      expect((await tool.getByTestId("tool-exit-code").textContent())?.trim()).toBe("exit 0");
      expect(await tool.getByTestId("tool-output").textContent()).toContain("hello from the demo agent");
      // The answer is rendered markdown: a heading, bold text and a code block, no raw markup.
      const message = page.locator('[data-testid="timeline-item"][data-kind="message"]').getByTestId("message-body");
      expect(await message.locator("h2").textContent()).toBe("Done");
      expect(await message.locator("strong").first().textContent()).toBe("hello.txt");
      expect(await message.locator("pre code").count()).toBe(1);
      expect(await message.textContent()).not.toContain("**");
      // Reasoning is there, collapsed.
      expect(await page.locator('[data-testid="timeline-item"][data-kind="reasoning"] details:not([open])').count()).toBeGreaterThan(0);
      expect(await page.getByTestId("usage").first().textContent()).toContain("tok");

      // Inspection: every panel with its status; observed ones carry evidence.
      await page.getByRole("button", { name: "Inspect", exact: true }).click();
      const panels = page.getByTestId("inspection-panel");
      await panels.first().waitFor();
      expect(await panels.evaluateAll((all) => all.map((p) => p.getAttribute("data-panel")))).toEqual(["environment", "models", "commands", "skills", "mcp", "quota", "profile", "configuration", "auth"]);
      const statuses = await panels.evaluateAll((all) => all.map((p) => p.getAttribute("data-status")));
      expect(statuses.every((s) => s === "observed" || s === "unavailable" || s === "unsupported")).toBe(true);
      const models = page.locator('[data-testid="inspection-panel"][data-panel="models"]');
      expect(await models.getAttribute("data-status")).toBe("observed");
      expect(await models.getByTestId("panel-evidence").locator("tbody tr").count()).toBeGreaterThan(0);
      const unsupported = page.locator('[data-testid="inspection-panel"][data-status="unsupported"]').first();
      expect((await unsupported.getByTestId("panel-reason").textContent())?.length).toBeGreaterThan(0);

      // Later runs' model: applied, reported by a session notice.
      await page.getByLabel("Model", { exact: true }).fill("another-model");
      await page.getByRole("button", { name: "Apply to later runs", exact: true }).click();
      await page.locator('[data-testid="timeline-item"][data-kind="session"] [data-notice="session.configured"]').filter({ hasText: "model another-model" }).waitFor();

      // Archived: the stream ends and the controls are disabled.
      await page.getByRole("button", { name: "Archive", exact: true }).click();
      await page.locator('[data-testid="stream-status"][data-state="ended"]').waitFor();
      await page.locator('[data-testid="session-row"][data-state="archived"]').waitFor();
      expect(await page.getByRole("button", { name: "Send", exact: true }).isDisabled()).toBe(true);

      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("reaches a running turn: Ctrl+Enter sends, Steer and Follow up are delivered, Interrupt cancels the run and its pending approval", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    try {
      await page.goto(consoleUrl);
      await page.getByTestId("create-session").click();
      await page.getByTestId("session-row").first().waitFor();
      await page.locator('[data-testid="stream-status"][data-state="live"]').waitFor();
      const input = page.getByLabel("Message", { exact: true });
      await input.fill("Show me a tool call");
      await input.press("Control+Enter");
      // The run waits on its approval: a turn in flight to steer.
      const card = page.getByTestId("approval-card");
      await card.waitFor();
      expect(await input.inputValue()).toBe("");

      await input.fill("use a different file name");
      await page.getByRole("button", { name: "Steer", exact: true }).click();
      await page.locator('[data-testid="timeline-item"][data-kind="session"] [data-notice="session.steer"]').waitFor();
      await input.fill("then summarise");
      await page.getByRole("button", { name: "Follow up", exact: true }).click();
      await page.locator('[data-testid="timeline-item"][data-kind="session"] [data-notice="session.follow_up"]').waitFor();

      await page.getByRole("button", { name: "Interrupt", exact: true }).click();
      await page.locator('[data-testid="timeline-item"][data-kind="run"][data-status="cancelled"]').waitFor();
      await card.waitFor({ state: "detached" });
      // What was typed never enters the timeline: notices name prompts by id only.
      const timeline = (await page.getByTestId("timeline").textContent()) ?? "";
      expect(timeline).not.toContain("use a different file name");
      expect(timeline).not.toContain("then summarise");

      // Switching sessions follows the selected one's stream: its timeline comes back and the indicator is live.
      const first = await page.getByTestId("session-detail").getAttribute("data-session-id");
      await page.getByTestId("create-session").click();
      await page.locator(`[data-testid="session-detail"]:not([data-session-id="${first}"])`).waitFor();
      await page.locator('[data-testid="stream-status"][data-state="live"]').waitFor();
      await page.locator(`[data-testid="session-row"][data-session-id="${first}"]`).getByTestId("session-select").click();
      await page.locator(`[data-testid="session-detail"][data-session-id="${first}"]`).waitFor();
      await page.locator('[data-testid="timeline-item"][data-kind="run"][data-status="cancelled"]').waitFor();
      await page.getByRole("button", { name: "Inspect", exact: true }).click();
      await page.getByTestId("inspection-panel").first().waitFor();
      expect(await page.getByTestId("stream-status").getAttribute("data-state")).toBe("live");
    } finally {
      await context.close();
    }
  });

  it("shows nothing but a hint without a token, and says so when the server refuses the tab's token", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const base = consoleUrl.slice(0, consoleUrl.indexOf("#"));
      await page.goto(base);
      await page.getByTestId("token-missing").waitFor();
      expect(await page.getByTestId("session-row").count()).toBe(0);

      // Only the fragment changes (no navigation): the console starts over with the new token.
      await page.goto(`${base}#token=not-the-token`);
      await page.getByTestId("token-missing").getByRole("alert").waitFor();
      expect(await page.getByTestId("token-missing").textContent()).toContain("refused");
      expect(new URL(page.url()).hash).toBe("");
    } finally {
      await context.close();
    }
  });

  it("denies from the card with a message for the model: the command never runs", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(consoleUrl);
      await page.getByTestId("create-session").click();
      await page.getByTestId("session-row").first().waitFor();
      await page.locator('[data-testid="stream-status"][data-state="live"]').waitFor();
      await page.getByLabel("Message", { exact: true }).fill("Show me a tool call");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      const card = page.getByTestId("approval-card");
      await card.waitFor();
      await card.getByLabel("Message to the agent if denied").fill("not in this workspace");
      await card.getByRole("button", { name: "Deny", exact: true }).click();
      await card.waitFor({ state: "detached" });
      await page.locator('[data-testid="timeline-item"][data-kind="run"]:is([data-status="completed"], [data-status="failed"], [data-status="cancelled"])').waitFor();
      expect(await page.getByTestId("approval-outcome").textContent()).toMatch(/^deny/);
      const tool = page.locator('[data-testid="timeline-item"][data-kind="tool"]').first();
      expect(await tool.getAttribute("data-status")).not.toBe("completed");
      expect(await page.locator('[data-testid="error"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("pauses, then resumes abandoning the queue with a new message", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(consoleUrl);
      await page.getByTestId("create-session").click();
      const row = page.getByTestId("session-row").first();
      await row.waitFor();
      await page.locator('[data-testid="stream-status"][data-state="live"]').waitFor();
      await page.getByLabel("Reason", { exact: true }).fill("maintenance");
      await page.getByRole("button", { name: "Pause", exact: true }).click();
      await row.getByTestId("session-gate").filter({ hasText: "pause: maintenance" }).waitFor();
      const input = page.getByLabel("Message", { exact: true });
      for (const text of ["first queued", "second queued"]) {
        await input.fill(text);
        await page.getByRole("button", { name: "Send", exact: true }).click();
        await expect.poll(() => input.inputValue()).toBe("");
      }
      await row.getByTestId("session-queued").filter({ hasText: "2 queued" }).waitFor();

      await page.getByLabel("Resume mode").selectOption("abandon");
      await page.getByLabel("Resume message").fill("only this one");
      await page.getByRole("button", { name: "Resume", exact: true }).click();
      // Both queued prompts are dropped as abandoned; the resume message runs.
      const dropped = page.locator('[data-testid="timeline-item"][data-kind="session"] [data-notice="session.prompt_dropped"]');
      await expect.poll(() => dropped.count()).toBe(2);
      expect(await dropped.allTextContents()).toEqual([expect.stringContaining("abandoned"), expect.stringContaining("abandoned")]);
      await page.getByTestId("approval-card").waitFor();
      await row.getByTestId("session-gate").filter({ hasText: "gate open" }).waitFor();
      expect(await page.locator('[data-testid="timeline-item"][data-kind="session"] [data-notice="session.run_admitted"]').count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it("after a restart on the same state, a continued session's new run asks again with the same request id, and the card shows", async () => {
    const context = await browser.newContext();
    try {
      let page = await context.newPage();
      await page.goto(consoleUrl);
      await page.getByTestId("create-session").click();
      await page.locator('[data-testid="stream-status"][data-state="live"]').waitFor();
      const sessionId = await page.getByTestId("session-detail").getAttribute("data-session-id");
      await page.getByLabel("Message", { exact: true }).fill("before the restart");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      await page.getByTestId("approval-card").getByRole("button", { name: "Allow", exact: true }).click();
      await page.locator('[data-testid="timeline-item"][data-kind="run"][data-status="completed"]').waitFor();
      await page.close();

      // The demo's script starts over: the next run's request has the id the first run's had.
      await server.close();
      await startServer();
      page = await context.newPage();
      await page.goto(consoleUrl);
      await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`).getByTestId("session-select").click();
      await page.locator('[data-testid="timeline-item"][data-kind="run"][data-status="completed"]').waitFor();
      await page.getByLabel("Message", { exact: true }).fill("after the restart");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      const card = page.getByTestId("approval-card");
      await card.waitFor();
      await card.getByRole("button", { name: "Deny", exact: true }).click();
      await expect.poll(() => page.locator('[data-testid="timeline-item"][data-kind="run"][data-status="completed"]').count()).toBe(2);
      // Both runs keep their own approval and outcome.
      const outcomes = (await page.getByTestId("approval-outcome").allTextContents()).map((t) => t.trim());
      expect(outcomes).toEqual(["allow", "deny"]);
      const ids = await page.getByTestId("timeline").locator('[data-testid="timeline-item"][data-kind="approval"]').count();
      expect(ids).toBe(2);
    } finally {
      await context.close();
    }
  });

  it("a tripped token ceiling shows a budget card; raising it from the card lets the next prompt run", async () => {
    const created = await fetch(new URL("/api/sessions", consoleUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: JSON.stringify({ agent: "demo", budget: { sessionTokens: 150 } }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(consoleUrl);
      await page.locator(`[data-testid="session-row"][data-session-id="${id}"]`).getByTestId("session-select").click();
      await page.locator('[data-testid="stream-status"][data-state="live"]').waitFor();
      const input = page.getByLabel("Message", { exact: true });
      await input.fill("spend past the ceiling");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      await page.getByTestId("approval-card").getByRole("button", { name: "Allow", exact: true }).click();
      // The run's reported tokens (its two model requests) pass the 150-token ceiling.
      const card = page.getByTestId("budget-card");
      await card.waitFor();
      expect(await card.getAttribute("data-ceiling")).toBe("sessionTokens");
      await card.getByLabel("Add tokens").fill("100000");
      await card.getByRole("button", { name: "Raise budget", exact: true }).click();
      await card.waitFor({ state: "detached" });
      await input.fill("and again");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      await page.getByTestId("approval-card").waitFor();
      expect(await page.locator('[data-testid="error"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
