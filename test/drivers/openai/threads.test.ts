/**
 * Threads on the OpenAI-compatible driver: the conversation is kept in the thread store, so a
 * second host OS process with a stateDir of its own resumes it from a shared SQLite file or
 * PostgreSQL schema (the model server sees the whole history); a fork continues the parent's
 * history without changing it; and neither the stored conversation of a thread nor that of a
 * plain run (in `stateDir`) holds a secret.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { createAgent, memoryThreadStore, postgresThreadStore, sqliteThreadStore, type ThreadStore } from "../../../src/index.js";
import { openai, type OpenAIConfig } from "../../../src/drivers/openai/index.js";
import { startModelServer, type CapturedRequest, type ModelScript, type ModelServer } from "../../../src/testing/model-server/index.js";
import { dropSchemas, PG_REQUIRED, PG_URL, uniqueSchema } from "../../thread/helpers.js";
import { storedConversation, storedConversations, storedStateText } from "./stored.js";

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), "openai-threads-"));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
const schemas = new Set<string>();
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  if (PG_URL !== undefined) await dropSchemas(PG_URL, schemas);
});
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

/** Whether `dir` holds no file (a thread's conversation is not written there). */
const empty = (dir: string): boolean => !existsSync(dir) || readdirSync(dir).length === 0;

/**
 * One turn here, the next in a child OS process with another stateDir over the same store: the
 * child's request carries the whole history, read from the store alone.
 */
async function resumeElsewhere(api: "chat" | "responses", name: string, open: () => Promise<ThreadStore>, where: { db?: string; pg?: { connectionString: string; schema: string } }): Promise<void> {
  const baseURL = await serve({
    turns: [
      { match: { lastUserTextContains: "first" }, reply: { text: "first answer" } },
      { match: { lastUserTextContains: "second" }, reply: { text: "second answer" } },
    ],
  });
  const stateDir = join(root, `state-${name}`);
  const config: OpenAIConfig = { baseURL, api, model: "scripted-model", stateDir };
  const store = await open();
  const agent = createAgent(openai(config), { workspace, threadStore: store });
  let threadId: string;
  let sessionId: string | undefined;
  try {
    const thread = await agent.startThread();
    threadId = thread.id;
    sessionId = (await thread.run("first question")).providerSessionId;
    expect((await storedConversations(store, threadId)).current).toBe(sessionId);
  } finally {
    await agent.close();
    await store.close();
  }
  expect(empty(stateDir)).toBe(true);
  const childConfig: OpenAIConfig = { ...config, stateDir: join(root, `state-${name}-child`) };
  const spec = JSON.stringify({ ...where, config: childConfig, workspace, threadId, prompt: "second question" });
  const { stdout } = await run(process.execPath, [jiti, child, spec], { cwd: root, timeout: 170_000 });
  const seen = JSON.parse(stdout.trim().split("\n").at(-1)!) as { hostPid: number; text: string; providerSessionId: string };
  expect(seen.hostPid).not.toBe(process.pid);
  expect(seen.text).toBe("second answer");
  expect(seen.providerSessionId).toBe(sessionId);
  expect(history(server!.requests[1]!)).toEqual(["user: first question", "assistant: first answer", "user: second question"]);
  expect(empty(childConfig.stateDir!)).toBe(true);
  // The child's turn is in the store too.
  const reopened = await open();
  try {
    const conversation = await storedConversation(reopened, threadId, sessionId!);
    expect(conversation.turns).toHaveLength(2);
  } finally {
    await reopened.close();
  }
}

for (const api of ["chat", "responses"] as const) {
  describe(`openai driver threads (${api})`, () => {
    it("resumes a thread in a second OS process with another stateDir, over a shared SQLite file: the model sees the whole history", async () => {
      const db = join(root, `threads-${api}.db`);
      await resumeElsewhere(api, `sqlite-${api}`, async () => sqliteThreadStore(db), { db });
    }, 180_000);

    it.skipIf(PG_URL === undefined && !PG_REQUIRED)("resumes a thread in a second OS process with another stateDir, over a shared PostgreSQL schema", async () => {
      const schema = uniqueSchema("aa_openai_threads");
      schemas.add(schema);
      const pg = { connectionString: PG_URL!, schema };
      await resumeElsewhere(api, `pg-${api}`, () => postgresThreadStore(pg), { pg });
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
      const store = memoryThreadStore();
      const agent = createAgent(openai({ baseURL, api, model: "scripted-model", stateDir }), { workspace, threadStore: store });
      try {
        const thread = await agent.startThread();
        const base = await thread.run("base question");
        const fork = await thread.fork();
        // The fork starts with a copy of the parent's conversation.
        expect(await storedStateText(store, fork.id)).toBe(await storedStateText(store, thread.id));
        const branch = await fork.run("branch question");
        const parent = await thread.run("parent question");
        expect(branch.providerSessionId).not.toBe(base.providerSessionId);
        expect(parent.providerSessionId).toBe(base.providerSessionId);
        expect(history(server!.requests[1]!)).toEqual(["user: base question", "assistant: base answer", "user: branch question"]);
        expect(history(server!.requests[2]!)).toEqual(["user: base question", "assistant: base answer", "user: parent question"]);
        const forked = await storedConversations(store, fork.id);
        // The fork keeps only its own conversation: the parent's stays with the parent.
        expect(forked.conversations.map((c) => c.id)).toEqual([branch.providerSessionId]);
        expect(forked.conversations[0]!.forkedFrom).toBe(base.providerSessionId);
        expect((await storedConversation(store, thread.id, base.providerSessionId!)).turns).toHaveLength(2);
        expect(empty(stateDir)).toBe(true);
      } finally {
        await agent.close();
      }
    });
  });
}

describe("openai driver stored conversations", () => {
  it("keep no secret: the key is redacted from what a plain run writes to stateDir", async () => {
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

  it("keep no secret in the thread store: neither the driver's key nor a secret only the host registered", async () => {
    const key = "sk-openai-thread-canary-77ab01c3";
    // Not secret-shaped text, and set in the host's environment only after the driver was made:
    // the driver's own redaction does not know it, the agent's does, and core removes it from the
    // provider state.
    const hostSecret = "plainhostvalue9c41e2";
    process.env.OAI_THREADS_STATE_KEY = key;
    const baseURL = await serve({ turns: [{ reply: { text: `echoing ${key} and ${hostSecret}` } }] });
    const driver = openai({ baseURL, model: "scripted-model", stateDir: join(root, "redacted-thread"), apiKeyEnv: "OAI_THREADS_STATE_KEY" });
    process.env.OAI_THREADS_HOST_TOKEN = hostSecret;
    const store = memoryThreadStore();
    const agent = createAgent(driver, { workspace, threadStore: store });
    try {
      const thread = await agent.startThread();
      await thread.run(`my key is ${key}, my token is ${hostSecret}`);
      const stored = await storedStateText(store, thread.id);
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(hostSecret);
      expect(stored).toContain("my key is");
      expect(stored).toContain("my token is");
    } finally {
      await agent.close();
      delete process.env.OAI_THREADS_STATE_KEY;
      delete process.env.OAI_THREADS_HOST_TOKEN;
    }
  });
});

describe("openai driver thread state and the lease", () => {
  it("a run that lost its thread's lease saves nothing: the stored conversation stays as the last holder left it", async () => {
    const baseURL = await serve({
      turns: [
        { match: { lastUserTextContains: "first" }, reply: { text: "first answer" } },
        { match: { lastUserTextContains: "second" }, reply: { text: "second answer" }, fault: { delayMs: 1500 } },
      ],
    });
    const store = memoryThreadStore();
    const agent = createAgent(openai({ baseURL, model: "scripted-model", stateDir: join(root, "lease-lost") }), { workspace, threadStore: store });
    try {
      const thread = await agent.startThread();
      await thread.run("first question");
      const before = await storedStateText(store, thread.id);
      const running = thread.run("second question");
      let lease = (await store.get(thread.id))?.lease;
      while (lease === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        lease = (await store.get(thread.id))?.lease;
      }
      // Another writer takes the thread over while the model is still answering.
      await store.releaseLease(thread.id, lease.owner);
      expect(await store.acquireLease(thread.id, "another-host/run", 60_000)).toBeDefined();
      await expect(running).rejects.toMatchObject({ code: "lease_lost" });
      expect(await storedStateText(store, thread.id)).toBe(before);
    } finally {
      await agent.close();
    }
  });
});
