/**
 * Threads end to end on the real Codex and Claude Code CLIs: a thread started in this process is
 * resumed from a second OS process through the SQLite store, and the model server sees the
 * earlier turn in the conversation it is sent; a fork continues from the same history.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { createAgent, sqliteThreadStore } from "../../src/index.js";
import { claude, type ClaudeConfig } from "../../src/drivers/claude/index.js";
import { codex, type CodexConfig } from "../../src/drivers/codex/index.js";
import type { CapturedRequest } from "../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext } from "../../src/testing/real-cli/index.js";
import { describeRealCli } from "../real-cli/helpers.js";

const run = promisify(execFile);
const child = fileURLToPath(new URL("./fixtures/resume-turn.mjs", import.meta.url));

function codexConfig(ctx: RealCliContext): CodexConfig {
  return {
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "scripted_threads", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  };
}

/** Claude reads its key from a variable the lane does not set; the binding supplies the URL. */
function claudeConfig(ctx: RealCliContext): ClaudeConfig {
  const env: Record<string, string | undefined> = { ...ctx.env, THREADS_TEST_KEY: "scripted-key" };
  delete env.ANTHROPIC_BASE_URL;
  delete env.ANTHROPIC_API_KEY;
  return { executable: ctx.executable, configDir: ctx.configDir, model: ctx.model, settingSources: [], provider: { baseUrl: ctx.server.url, apiKeyEnv: "THREADS_TEST_KEY" }, env };
}

const LANES = [
  { cli: "codex" as const, dialect: "responses", make: (ctx: RealCliContext) => ({ name: "codex", config: codexConfig(ctx), driver: codex(codexConfig(ctx)) }) },
  { cli: "claude" as const, dialect: "anthropic", make: (ctx: RealCliContext) => ({ name: "claude", config: claudeConfig(ctx), driver: claude(claudeConfig(ctx)) }) },
];

const textOf = (request: CapturedRequest) => request.messages.flatMap((m) => m.parts).map((p) => (p.type === "text" ? p.text : "")).join("\n");
for (const lane of LANES) {
const modelRequests = (ctx: RealCliContext) => ctx.server.requests.filter((r) => r.dialect === lane.dialect && !r.auxiliary);

describeRealCli(lane.cli, () => {
  it("resumes a thread in a second OS process and forks it, through the SQLite store", async () => {
    const script = {
      turns: [
        { match: { lastUserTextContains: "remember the word amber" }, reply: { text: "I will remember amber." } },
        { match: { lastUserTextContains: "which word" }, reply: { text: "The word was amber." } },
        { match: { lastUserTextContains: "fork question" }, reply: { text: "Forked answer." } },
      ],
    };
    await withRealCli(lane.cli, script, async (ctx) => {
      const db = join(ctx.root, "threads.db");
      const store = sqliteThreadStore(db);
      const agent = createAgent(lane.make(ctx).driver, { workspace: ctx.workspace, threadStore: store, defaults: { model: ctx.model } });
      let threadId: string;
      let sessionId: string | undefined;
      try {
        const thread = await agent.startThread({ id: "tenant-1/conversation-1" });
        threadId = thread.id;
        const first = await thread.run("Please remember the word amber.");
        sessionId = first.providerSessionId;
        expect(sessionId).toBeTruthy();
        expect((await thread.info()).checkpoint.turns).toBe(1);
      } finally {
        await agent.close();
      }

      const { name, config } = lane.make(ctx);
      const spec = { db, threadId, workspace: ctx.workspace, model: ctx.model, prompt: "Now tell me which word it was.", driverName: name, driver: config };
      const { stdout } = await run(process.execPath, [child, JSON.stringify(spec)], { env: process.env, timeout: 120_000 });
      const second = JSON.parse(stdout) as { text: string; providerSessionId: string; turns: number };
      expect(second).toMatchObject({ text: "The word was amber.", providerSessionId: sessionId, turns: 2 });
      const resumedRequest = modelRequests(ctx)[1]!;
      expect(textOf(resumedRequest)).toContain("remember the word amber");
      expect(textOf(resumedRequest)).toContain("I will remember amber.");

      const forker = createAgent(lane.make(ctx).driver, { workspace: ctx.workspace, threadStore: store, defaults: { model: ctx.model } });
      try {
        const parent = await forker.resumeThread(threadId);
        const fork = await parent.fork({ id: "tenant-1/conversation-1/fork" });
        const forked = await fork.run("A fork question.");
        expect(forked.text).toBe("Forked answer.");
        expect(forked.providerSessionId).toBeTruthy();
        expect(forked.providerSessionId).not.toBe(sessionId);
        const forkRequest = modelRequests(ctx)[2]!;
        expect(textOf(forkRequest)).toContain("which word");
        expect((await fork.info())).toMatchObject({ parentId: threadId, checkpoint: { turns: 3 } });
        expect((await parent.info()).providerSessionId).toBe(sessionId);
      } finally {
        await forker.close();
        await store.close();
      }
    });
  });
});
}
