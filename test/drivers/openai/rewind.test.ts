/**
 * Rewind on the OpenAI-compatible driver (`Thread.rewind`): the thread goes back to an earlier
 * turn, the next request the model server sees carries only the turns up to it, the thread's
 * history says which turns left (an entry with `rewoundTo`, kept by a sqlite store across
 * processes' reads), the pre-rewind conversation stays in the thread's provider state, and a driver without rewind
 * refuses it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { createAgent, FeatureUnsupportedError, sqliteThreadStore } from "../../../src/index.js";
import { openai } from "../../../src/drivers/openai/index.js";
import { fakeDriver } from "../../../src/testing/index.js";
import { startModelServer, type CapturedRequest, type ModelServer } from "../../../src/testing/model-server/index.js";
import { storedConversation } from "./stored.js";

const root = mkdtempSync(join(tmpdir(), "openai-rewind-"));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const history = (request: CapturedRequest): string[] =>
  request.messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.parts.map((p) => (p.type === "text" ? p.text : p.type)).join(" ")}`);

const answers = (...names: string[]) => ({ turns: names.map((n) => ({ match: { lastUserTextContains: n }, reply: { text: `${n} answer` } })) });

for (const api of ["chat", "responses"] as const) {
  describe(`openai driver rewind (${api})`, () => {
    it("goes back to turn 1: the model sees only turn 1 next, the history says turns 2 and 3 left, the old session stays", async () => {
      server = await startModelServer({ script: answers("one", "two", "three", "four", "five") });
      const stateDir = join(root, `state-${api}`);
      const store = sqliteThreadStore(join(root, `threads-${api}.db`));
      const agent = createAgent(openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir }), { workspace, threadStore: store });
      try {
        const thread = await agent.startThread();
        await thread.run("one question");
        await thread.run("two question");
        const before = await thread.run("three question");
        const record = await thread.rewind(1);
        expect(record.providerSessionId).not.toBe(before.providerSessionId);
        expect(record.checkpoint).toMatchObject({ turns: 1, lastStatus: "completed" });
        expect(record.lease).toBeUndefined();

        const after = await thread.run("four question");
        expect(after.providerSessionId).toBe(record.providerSessionId);
        expect(history(server.requests[3]!)).toEqual(["user: one question", "assistant: one answer", "user: four question"]);

        const page = await thread.history();
        expect(page.turns.map((t) => [t.turn, t.prompt, t.rewoundTo])).toEqual([
          [5, "four question", undefined],
          [4, "", 1],
          [3, "three question", undefined],
          [2, "two question", undefined],
          [1, "one question", undefined],
        ]);
        const marker = page.turns[1]!.events[0]!;
        expect(marker).toMatchObject({ type: "notice", code: "thread_rewound" });

        // The conversation before the rewind is kept whole, in the thread store (nothing in stateDir).
        const old = await storedConversation(store, thread.id, before.providerSessionId!);
        expect(old.turns).toHaveLength(3);
        const copy = await storedConversation(store, thread.id, record.providerSessionId!);
        expect(copy.rewoundFrom).toBe(before.providerSessionId);
        expect(existsSync(stateDir) ? readdirSync(stateDir) : []).toEqual([]);

        // A turn an earlier rewind dropped cannot be returned to; the live turns can.
        await expect(thread.rewind(2)).rejects.toMatchObject({ code: "config_invalid" });
        await expect(thread.rewind(7)).rejects.toMatchObject({ code: "config_invalid" });
        await thread.rewind(0);
        await thread.run("five question");
        expect(history(server.requests[4]!)).toEqual(["user: five question"]);
      } finally {
        await agent.close();
        await store.close();
      }
    });
  });
}

describe("Thread.rewind", () => {
  it("is refused on a driver without native rewind, before anything changes", async () => {
    const agent = createAgent(fakeDriver(), { workspace });
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const error = await thread.rewind(0).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FeatureUnsupportedError);
      expect((error as FeatureUnsupportedError).feature).toBe("rewind");
      expect((await thread.info()).checkpoint.turns).toBe(1);
    } finally {
      await agent.close();
    }
  });

  it("refuses a thread a run holds, and a turn that is not a number", async () => {
    server = await startModelServer({ script: { turns: [{ reply: { text: "slow" }, fault: { delayMs: 1500 } }] } });
    const agent = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "busy") }), { workspace });
    try {
      const thread = await agent.startThread();
      const running = thread.run("hold the lease");
      while ((await thread.info()).lease === undefined) await new Promise((r) => setTimeout(r, 10));
      await expect(thread.rewind(0)).rejects.toMatchObject({ code: "thread_busy" });
      await expect(thread.rewind(-1)).rejects.toMatchObject({ code: "config_invalid" });
      await expect(thread.rewind(1.5)).rejects.toMatchObject({ code: "config_invalid" });
      expect((await running).text).toBe("slow");
    } finally {
      await agent.close();
    }
  });
});
