/**
 * The console in Debian's Chromium against the attach server, with an agent running the real
 * Codex CLI on the scripted model server (issue #20, Must-show): the model asks to run a shell
 * command that writes a file; the person clicks Allow (the file appears, the timeline shows the
 * command, its exit code and the diff of the follow-up edit) or Deny (no file, the denial shows and
 * the run ends); and a question from Codex's request_user_input answered through the form.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { realCliAvailability, realCliMode, SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeBrowser, launchChromium, type Prerequisite } from "./chromium.js";
import { createSessionInConsole, ensureConsoleBuilt, openConsole, startConsoleServer, type ConsoleFixture } from "./console-fixture.js";
import { saveConsoleScreenshot } from "./screenshots.js";

const AGENT = "coder";
const CONTENT = "written after the console allowed it";

/** A shell command Codex must ask about: it requests to run outside the sandbox. */
const escalated = (id: string, cmd: string) => ({
  toolCalls: [{ id, name: "exec_command", arguments: { cmd, sandbox_permissions: "require_escalated", justification: "The console test asks a person" } }],
});

/** Codex's own patch tool, run through the shell: reported as a file change with a diff. */
const patch = (id: string, body: string) => ({
  toolCalls: [{ id, name: "exec_command", arguments: { cmd: `apply_patch <<'PATCH'\n*** Begin Patch\n${body}\n*** End Patch\nPATCH` } }],
});

interface Scene {
  readonly ctx: RealCliContext;
  readonly fixture: ConsoleFixture;
  readonly page: Page;
  readonly sessionId: string;
}

let browser: Browser | undefined;

/** The real Codex CLI behind the attach server, the console open on a new session of it. */
async function withCodexConsole(script: RealCliScript, fn: (scene: Scene) => Promise<void>): Promise<void> {
  await withRealCli("codex", script, async (ctx) => {
    const fixture = await startConsoleServer({
      [AGENT]: {
        driver: "codex",
        workspace: ctx.workspace,
        options: {
          home: ctx.configDir,
          env: ctx.env,
          provider: { id: "scripted_console", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
          args: ["--disable", "plugins"],
        },
        // on-request: Codex asks before a command that wants to leave the sandbox.
        defaults: { policy: { sandbox: "workspace-write", approval: "on-request" } },
      },
    });
    const { context, page } = await openConsole(browser!, fixture);
    try {
      const sessionId = await createSessionInConsole(page, AGENT);
      await fn({ ctx, fixture, page, sessionId });
    } finally {
      await context.close();
      await fixture.close();
    }
  });
}

function timelineItem(page: Page, kind: string) {
  return page.getByTestId("timeline").locator(`[data-testid="timeline-item"][data-kind="${kind}"]`);
}

/** The timeline item of one tool call. */
function toolItem(page: Page, callId: string) {
  return timelineItem(page, "tool").filter({ has: page.locator(`[data-call-id="${callId}"]`) });
}

/** The run's terminal item, once the timeline shows one. */
async function runEnded(page: Page): Promise<string> {
  const ended = timelineItem(page, "run").and(page.locator(':is([data-status="completed"], [data-status="failed"], [data-status="cancelled"])'));
  await ended.first().waitFor();
  return (await ended.first().getAttribute("data-status")) ?? "";
}

async function submit(page: Page, text: string): Promise<void> {
  await page.getByTestId("prompt-input").fill(text);
  await page.getByTestId("submit-button").click();
}

function modelRequests(requests: readonly CapturedRequest[]): CapturedRequest[] {
  return requests.filter((r) => r.dialect === "responses" && !r.auxiliary);
}

/** The real Codex CLI, unless missing, or switched off like the rest of the real-CLI lane. */
function codexAvailability(): Prerequisite {
  const availability = realCliAvailability("codex");
  if (availability.available) return { available: true };
  return { available: false, reason: `the real Codex CLI: ${availability.reason}`, disabled: realCliMode() === "skip" };
}

describeBrowser(
  "console in Chromium: approvals and questions from the real Codex CLI",
  (executable) => {
    beforeAll(async () => {
      ensureConsoleBuilt();
      browser = await launchChromium(executable);
    });
    afterAll(async () => {
      await browser?.close();
    });

    it("Allow: the command runs, the file appears, and the timeline shows the command, its exit code and the diff", async () => {
      const script: RealCliScript = {
        turns: [
          { match: { lastUserTextContains: "write hello.txt" }, reply: escalated("call_write", `printf '${CONTENT}\\n' > hello.txt && echo wrote`) },
          { match: { toolResultFor: "call_write" }, reply: patch("call_patch", `*** Update File: hello.txt\n@@\n ${CONTENT}\n+and a line added by a patch`) },
          { match: { toolResultFor: "call_patch" }, reply: { text: "Wrote **hello.txt** and patched it.", chunkSize: 8 } },
        ],
      };
      await withCodexConsole(script, async ({ ctx, page }) => {
        await submit(page, "Please write hello.txt");
        const card = page.getByTestId("approval-card");
        await card.waitFor();
        await expect.poll(() => card.getByTestId("approval-summary").textContent()).toContain("hello.txt");
        await saveConsoleScreenshot(page, "codex-approval-card");
        await card.getByRole("button", { name: "Allow", exact: true }).click();

        expect(await runEnded(page)).toBe("completed");
        await card.waitFor({ state: "detached" });
        expect(await readFile(join(ctx.workspace, "hello.txt"), "utf8")).toBe(`${CONTENT}\nand a line added by a patch\n`);

        expect(await timelineItem(page, "approval").textContent()).toMatch(/→\s*allow\b/);
        const command = toolItem(page, "call_write");
        expect(await command.getByTestId("tool-command").textContent()).toContain("hello.txt");
        expect((await command.getByTestId("tool-exit-code").textContent())?.trim()).toBe("exit 0");
        expect(await command.getAttribute("data-status")).toBe("completed");

        const edit = toolItem(page, "call_patch");
        const diff = edit.getByTestId("file-diff");
        expect(await diff.getAttribute("data-path")).toMatch(/hello\.txt$/);
        expect(await diff.locator(".diff-add").allTextContents()).toEqual([expect.stringContaining("and a line added by a patch")]);
        expect(await diff.locator(".diff-hunk").count()).toBeGreaterThan(0);

        const message = timelineItem(page, "message").getByTestId("message-body");
        await expect.poll(() => message.last().innerHTML()).toContain("<strong>hello.txt</strong>");
        expect(modelRequests(ctx.server.requests)).toHaveLength(3);
        await saveConsoleScreenshot(page, "codex-allow");
      });
    });

    it("Deny: the command never runs, the file does not appear, the timeline shows the denial and the run ends", async () => {
      const script: RealCliScript = {
        turns: [
          { match: { lastUserTextContains: "write denied.txt" }, reply: escalated("call_denied", "printf 'must not exist' > denied.txt && echo wrote") },
          // Codex tells the model the command was declined.
          { match: { toolResultFor: "call_denied" }, reply: { text: "Understood, I did not write it." } },
        ],
      };
      await withCodexConsole(script, async ({ ctx, page, fixture, sessionId }) => {
        await submit(page, "Please write denied.txt");
        const card = page.getByTestId("approval-card");
        await card.waitFor();
        await card.getByRole("button", { name: "Deny", exact: true }).click();

        // Codex reports the refusal to the model, which answers; the run then ends normally.
        expect(await runEnded(page)).toBe("completed");
        await card.waitFor({ state: "detached" });
        const approval = timelineItem(page, "approval");
        expect(await approval.count()).toBe(1);
        expect(await approval.textContent()).toMatch(/→\s*deny\b/);
        expect(await toolItem(page, "call_denied").getAttribute("data-status")).toBe("declined");
        expect(await toolItem(page, "call_denied").getByTestId("tool-exit-code").count()).toBe(0);
        await expect.poll(() => timelineItem(page, "message").last().textContent()).toContain("Understood, I did not write it.");

        // The run is over on the server too, and nothing wrote the file.
        await expect.poll(async () => (await fixture.api<{ inFlight?: unknown }>(`/api/sessions/${sessionId}`)).inFlight ?? null).toBeNull();
        expect(existsSync(join(ctx.workspace, "denied.txt"))).toBe(false);
        await saveConsoleScreenshot(page, "codex-deny");
      });
    });

    it("Question: Codex's request_user_input is answered through the form with free text, and the answer reaches the model", async () => {
      const questions = [
        { id: "db", header: "Database", question: "Which database should the project use?", options: [{ label: "Postgres", description: "A server" }, { label: "SQLite", description: "Embedded" }] },
      ];
      const script: RealCliScript = {
        turns: [
          { match: { lastUserTextContains: "Set up the project" }, reply: { toolCalls: [{ id: "call_ask", name: "request_user_input", arguments: { questions } }] } },
          { match: { toolResultFor: "call_ask" }, reply: { text: "Using the database you named." } },
        ],
      };
      await withCodexConsole(script, async ({ ctx, page }) => {
        await submit(page, "Set up the project");
        const form = page.getByTestId("question-form");
        await form.waitFor();
        const question = form.locator('[data-testid="question"][data-question-id="db"]');
        expect(await question.textContent()).toContain("Which database should the project use?");
        expect(await question.getByTestId("question-option").count()).toBe(2);
        // Codex lets the person type their own answer besides the options.
        await question.getByTestId("question-text").fill("MariaDB");
        await form.getByTestId("question-submit").click();

        expect(await runEnded(page)).toBe("completed");
        await form.waitFor({ state: "detached" });
        const followUp = modelRequests(ctx.server.requests).find((r) => r.messages.some((m) => m.parts.some((p) => p.type === "tool_result" && p.callId === "call_ask")));
        const result = followUp?.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result" && p.callId === "call_ask") as { text?: string } | undefined;
        expect(result?.text).toContain("MariaDB");
        await expect.poll(() => timelineItem(page, "message").last().textContent()).toContain("Using the database you named.");
        await saveConsoleScreenshot(page, "codex-question");
      });
    });
  },
  codexAvailability,
);
