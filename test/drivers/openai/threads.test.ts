/**
 * Threads on the OpenAI-compatible driver: the conversation kept in the driver's `stateDir` is
 * resumed by a second host OS process (the model server sees the whole history), a fork continues
 * the parent's history without changing it, and the stored conversation holds no secret.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { createAgent, sqliteThreadStore } from "../../../src/index.js";
import { openai, type OpenAIConfig } from "../../../src/drivers/openai/index.js";
import { startModelServer, type CapturedRequest, type ModelScript, type ModelServer } from "../../../src/testing/model-server/index.js";

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), "openai-threads-"));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));
const child = fileURLToPath(new URL("./fixtures/resume-in-child.mts", import.meta.url));
const jiti = fileURLToPath(new URL("../../../node_modules/jiti/lib/jiti-cli.mjs", import.meta.url));

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: ModelScript): Promise<string> {
  server = await startModelServer({ script });
  return `${server.url}/v1`;
}

/** The conversation a request carried: role and text of every message (system prompt left out). */
const history = (request: CapturedRequest): string[] =>
  request.messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.parts.map((p) => (p.type === "text" ? p.text : p.type)).join(" ")}`);

for (const api of ["chat", "responses"] as const) {
  describe(`openai driver threads (${api})`, () => {
    it("resumes a thread in a second OS process: the model sees the whole history", async () => {
      const baseURL = await serve({
        turns: [
          { match: { lastUserTextContains: "first" }, reply: { text: "first answer" } },
          { match: { lastUserTextContains: "second" }, reply: { text: "second answer" } },
        ],
      });
      const config: OpenAIConfig = { baseURL, api, model: "scripted-model", stateDir: join(root, `state-${api}`) };
      const db = join(root, `threads-${api}.db`);
      const store = sqliteThreadStore(db);
      const agent = createAgent(openai(config), { workspace, threadStore: store });
      let threadId: string;
      let sessionId: string | undefined;
      try {
        const thread = await agent.startThread();
        threadId = thread.id;
        sessionId = (await thread.run("first question")).providerSessionId;
      } finally {
        await agent.close();
        await store.close();
      }
      const spec = JSON.stringify({ db, config, workspace, threadId, prompt: "second question" });
      const { stdout } = await run(process.execPath, [jiti, child, spec], { cwd: root, timeout: 170_000 });
      const seen = JSON.parse(stdout.trim().split("\n").at(-1)!) as { hostPid: number; text: string; providerSessionId: string };
      expect(seen.hostPid).not.toBe(process.pid);
      expect(seen.text).toBe("second answer");
      expect(seen.providerSessionId).toBe(sessionId);
      expect(history(server!.requests[1]!)).toEqual(["user: first question", "assistant: first answer", "user: second question"]);
    }, 180_000);

    it("forks a thread: the fork continues the parent's history, the parent never sees the fork's", async () => {
      const baseURL = await serve({
        turns: [
          { match: { lastUserTextContains: "base" }, reply: { text: "base answer" } },
          { match: { lastUserTextContains: "branch" }, reply: { text: "branch answer" } },
          { match: { lastUserTextContains: "parent" }, reply: { text: "parent answer" } },
        ],
      });
      const stateDir = join(root, `fork-${api}`);
      const agent = createAgent(openai({ baseURL, api, model: "scripted-model", stateDir }), { workspace });
      try {
        const thread = await agent.startThread();
        const base = await thread.run("base question");
        const fork = await thread.fork();
        const branch = await fork.run("branch question");
        const parent = await thread.run("parent question");
        expect(branch.providerSessionId).not.toBe(base.providerSessionId);
        expect(parent.providerSessionId).toBe(base.providerSessionId);
        expect(history(server!.requests[1]!)).toEqual(["user: base question", "assistant: base answer", "user: branch question"]);
        expect(history(server!.requests[2]!)).toEqual(["user: base question", "assistant: base answer", "user: parent question"]);
        const forked = JSON.parse(readFileSync(join(stateDir, `${branch.providerSessionId}.json`), "utf8")) as { forkedFrom?: string };
        expect(forked.forkedFrom).toBe(base.providerSessionId);
      } finally {
        await agent.close();
      }
    });
  });
}

describe("openai driver stored conversations", () => {
  it("keep no secret: the key is redacted from what is written", async () => {
    const secret = "sk-openai-thread-canary-41c9d2e7";
    process.env.OAI_THREADS_CANARY_KEY = secret;
    const baseURL = await serve({ turns: [{ reply: { text: `echoing ${secret}` } }] });
    const stateDir = join(root, "redacted");
    const agent = createAgent(openai({ baseURL, model: "scripted-model", stateDir, apiKeyEnv: "OAI_THREADS_CANARY_KEY" }), { workspace });
    try {
      // Model output is published as written (as core does); at rest it is redacted.
      await agent.run(`my key is ${secret}`);
      const files = readdirSync(stateDir);
      expect(files).toHaveLength(1);
      const stored = readFileSync(join(stateDir, files[0]!), "utf8");
      expect(stored).not.toContain(secret);
      expect(stored).toContain("my key is");
    } finally {
      await agent.close();
      delete process.env.OAI_THREADS_CANARY_KEY;
    }
  });
});
