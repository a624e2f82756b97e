/**
 * Titles on the openai driver (`title: true`): one request after the first completed turn names
 * the conversation; the title is stored in the conversation, announced by a `title_generated`
 * notice and in `result.raw()`, and never asked again. Off by default. A thread's title is read
 * from its provider state in the thread store by a driver that did not make it.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { createAgent, memoryThreadStore, sqliteThreadStore, type AgentEvent } from "../../../src/index.js";
import { openai } from "../../../src/drivers/openai/index.js";
import { cleanTitle } from "../../../src/drivers/openai/title.js";
import { storedConversation } from "./stored.js";
import { startModelServer, type CapturedRequest, type ModelServer } from "../../../src/testing/model-server/index.js";

const root = mkdtempSync(join(tmpdir(), "openai-title-"));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const generated = (s: ModelServer): CapturedRequest[] => s.requests.filter((r) => r.dialect === "chat" || r.dialect === "responses");
const script = {
  turns: [
    { match: { lastUserTextContains: "hello" }, reply: { text: "hi there" } },
    { match: { lastUserTextContains: "Write a title" }, reply: { text: '"Greeting Exchange."\n' } },
    { match: { lastUserTextContains: "again" }, reply: { text: "again answer" } },
  ],
};

describe("openai titles", () => {
  for (const api of ["chat", "responses"] as const) {
    it(`names a conversation once, after its first turn (${api})`, async () => {
      server = await startModelServer({ script });
      const stateDir = join(root, `state-${api}`);
      const driver = openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir, title: true });
      const store = memoryThreadStore();
      const agent = createAgent(driver, { workspace, threadStore: store });
      try {
        const thread = await agent.startThread();
        const stream = thread.stream("hello model");
        const events: AgentEvent[] = [];
        for await (const event of stream) events.push(event);
        const first = await stream.result;
        expect(first.text).toBe("hi there");
        const notice = events.find((e) => e.type === "notice" && e.code === "title_generated") as { level: string; message: string } | undefined;
        expect(notice).toMatchObject({ level: "info", message: "conversation titled: Greeting Exchange" });
        expect((first.raw().terminal as { title?: string }).title).toBe("Greeting Exchange");
        // Two requests' usage: the turn and its title.
        expect(first.usage?.input_tokens).toBe(20);

        const titleRequest = generated(server)[1]!;
        expect(titleRequest.tools).toEqual([]);
        expect(titleRequest.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant", "user"]);

        const second = await thread.run("again please");
        expect((second.raw().terminal as { title?: string }).title).toBe("Greeting Exchange");
        expect(generated(server)).toHaveLength(3);
        const stored = await storedConversation(store, thread.id, second.providerSessionId!);
        expect(stored.title).toBe("Greeting Exchange");
        expect(await driver.title(second.providerSessionId!)).toBe("Greeting Exchange");
      } finally {
        await agent.close();
      }
    });
  }

  it("is off by default, and a failed title request is a warning, not the run's failure", async () => {
    server = await startModelServer({ script: { turns: [{ match: { lastUserTextContains: "hello" }, reply: { text: "hi there" } }, { match: { lastUserTextContains: "Write a title" }, fault: { status: 400 } }] } });
    const plain = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "off") }), { workspace });
    try {
      expect((await plain.run("hello model")).text).toBe("hi there");
      expect(generated(server)).toHaveLength(1);
    } finally {
      await plain.close();
    }
    await server.close();
    server = await startModelServer({ script: { turns: [{ match: { lastUserTextContains: "hello" }, reply: { text: "hi there" } }, { match: { lastUserTextContains: "Write a title" }, fault: { status: 400 } }] } });
    const titled = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "failing"), title: true }), { workspace });
    try {
      const stream = titled.stream("hello model");
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      expect((await stream.result).text).toBe("hi there");
      expect(events.find((e) => e.type === "notice" && e.code === "title_generated")).toMatchObject({ level: "warning" });
    } finally {
      await titled.close();
    }
  });

  it("reads a thread's title from the thread store when another driver (another stateDir) made the conversation", async () => {
    server = await startModelServer({ script });
    const db = join(root, "shared-threads.db");
    const first = openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "host-a"), title: true });
    const storeA = sqliteThreadStore(db);
    const agent = createAgent(first, { workspace, threadStore: storeA });
    let threadId: string;
    let sessionId: string;
    try {
      const thread = await agent.startThread();
      threadId = thread.id;
      sessionId = (await thread.run("hello model")).providerSessionId!;
    } finally {
      await agent.close();
      await storeA.close();
    }
    // Another host: its own stateDir, the same SQLite file, a driver that made no run.
    const second = openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "host-b"), title: true });
    const third = openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "host-a") });
    const storeB = sqliteThreadStore(db);
    try {
      expect((await storeB.get(threadId))?.providerSessionId).toBe(sessionId);
      await expect(second.title(sessionId)).rejects.toMatchObject({ code: "provider_session_not_found" });
      expect(await second.title(sessionId, { threadStore: storeB, threadId })).toBe("Greeting Exchange");
      // Another thread's state does not answer for this conversation.
      await expect(second.title(sessionId, { threadStore: storeB, threadId: "no-such-thread" })).rejects.toMatchObject({ code: "provider_session_not_found" });
      // The first host's stateDir never held it either: the store is where the title came from.
      await expect(third.title(sessionId)).rejects.toMatchObject({ code: "provider_session_not_found" });
    } finally {
      await second.close();
      await third.close();
      await storeB.close();
    }
  });

  it("cleans the model's answer into one line", () => {
    expect(cleanTitle('  "Fix the flaky test."  \nmore')).toBe("Fix the flaky test");
    expect(cleanTitle("**Refactor parser**")).toBe("Refactor parser");
  });
});
