/**
 * The openai driver's context guard against the scripted model server with a small context: the
 * window comes from the endpoint's model info (`context_length`) or the config; a request that
 * would pass the threshold compacts the conversation first (a summary request with trimmed tool
 * outputs, a `context_compacted` notice naming the transcript kept), the next request carries
 * the summary instead of the old turns, and a rewind past the compaction brings them back whole.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { createAgent, memoryThreadStore, type AgentEvent } from "../../../src/index.js";
import { openai } from "../../../src/drivers/openai/index.js";
import type { ConversationMessage } from "../../../src/drivers/openai/conversation.js";
import { storedConversation } from "./stored.js";
import { startModelServer, type CapturedRequest, type ModelServer } from "../../../src/testing/model-server/index.js";

const root = mkdtempSync(join(tmpdir(), "openai-compaction-"));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
// About 12 KB: one read of it takes far more than a 3000-token window's threshold.
writeFileSync(join(workspace, "big.txt"), Array.from({ length: 300 }, (_, i) => `line ${String(i).padStart(3, "0")} of the big file, padded out`).join("\n"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SUMMARY = "SUMMARY: the user had big.txt read; nothing else happened.";
const script = {
  modelInfo: { "scripted-model": { context_length: 3000 } },
  turns: [
    { match: { lastUserTextContains: "read big" }, reply: { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] } },
    { match: { toolResultFor: "call_read" }, reply: { text: "read it" } },
    { match: { lastUserTextContains: "Summarize the conversation so far" }, reply: { text: SUMMARY } },
    { match: { lastUserTextContains: "second" }, reply: { text: "second answer" } },
    { match: { lastUserTextContains: "Summarize the conversation so far" }, reply: { text: SUMMARY } },
    { match: { lastUserTextContains: "third" }, reply: { text: "third answer" } },
  ],
};

const generated = (s: ModelServer): CapturedRequest[] => s.requests.filter((r) => r.dialect === "chat" || r.dialect === "responses");
const toolResults = (r: CapturedRequest) => r.messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
const userTexts = (r: CapturedRequest) => r.messages.filter((m) => m.role === "user").map((m) => m.parts.map((p) => (p.type === "text" ? p.text : "")).join(""));

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The first tool result's output among `messages`. */
function toolOutput(messages: readonly ConversationMessage[]): string {
  const found = messages.find((m) => m.role === "tool");
  return found?.role === "tool" ? found.output : "";
}

for (const api of ["chat", "responses"] as const) {
  describe(`openai context guard (${api})`, () => {
    it("summarizes the older turns when the next request would pass 80% of the model info's window; rewind past it restores them", async () => {
      server = await startModelServer({ script });
      const stateDir = join(root, `state-${api}`);
      const store = memoryThreadStore();
      const agent = createAgent(openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir, compaction: { keepTurns: 0 } }), {
        workspace,
        threadStore: store,
        defaults: { policy: { approval: "never" } },
      });
      try {
        const thread = await agent.startThread();
        await thread.run("read big.txt please");
        const stream = thread.stream("second question");
        const events = await collect(stream);
        const result = await stream.result;
        expect(result.text).toBe("second answer");

        // The window was asked of the endpoint once.
        expect(server.requests.filter((r) => r.dialect === "models")).toHaveLength(1);
        const notice = events.find((e) => e.type === "notice" && e.code === "context_compacted");
        expect(notice).toBeDefined();
        const transcriptId = /kept as (oai_[A-Za-z0-9-]+)/.exec((notice as { message: string }).message)![1]!;

        const [, , summary, second] = generated(server);
        // The summary request carries turn 1 with its tool output trimmed, and no tools.
        expect(summary!.tools).toEqual([]);
        const trimmed = toolResults(summary!)[0] as { text?: string };
        expect(trimmed.text!.length).toBeLessThan(2200);
        expect(trimmed.text).toContain("characters omitted");
        // The next request has the summary in place of turn 1.
        expect(toolResults(second!)).toEqual([]);
        expect(userTexts(second!)).toEqual([expect.stringContaining(SUMMARY), "second question"]);

        // The transcript before the compaction is kept whole.
        const kept = await storedConversation(store, thread.id, transcriptId);
        expect(kept.transcriptOf).toBe(result.providerSessionId);
        expect(toolOutput(kept.turns[0]!.messages).length).toBeGreaterThan(10_000);

        // Rewinding to turn 1 goes back through the compaction: the model sees turn 1 whole again.
        await thread.rewind(1);
        const third = await thread.run("third question");
        expect(third.text).toBe("third answer");
        const rewound = await storedConversation(store, thread.id, third.providerSessionId!);
        const beforeThird = await storedConversation(store, thread.id, rewound.compactions!.at(-1)!.transcriptId);
        expect(beforeThird.turns.map((t) => t.messages.map((m) => m.role))).toEqual([["user", "assistant", "tool", "assistant"], ["user"]]);
        expect(toolOutput(beforeThird.turns[0]!.messages).length).toBeGreaterThan(10_000);
        // ...and, still too large for the window, it is compacted again before the third request.
        const [summaryAgain, last] = generated(server).slice(-2);
        expect(userTexts(summaryAgain!)[0]).toBe("read big.txt please");
        expect(userTexts(last!)).toEqual([expect.stringContaining(SUMMARY), "third question"]);
      } finally {
        await agent.close();
      }
    });
  });
}

describe("openai context guard", () => {
  it("with the default settings keeps the last turn and trims its tool outputs; a configured window is not looked up", async () => {
    server = await startModelServer({ script: { turns: script.turns.filter((t) => !t.match.lastUserTextContains?.startsWith("Summarize")) } });
    const agent = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "defaults"), contextWindow: 3000 }), {
      workspace,
      defaults: { policy: { approval: "never" } },
    });
    try {
      const thread = await agent.startThread();
      await thread.run("read big.txt please");
      const stream = thread.stream("second question");
      const events = await collect(stream);
      expect((await stream.result).text).toBe("second answer");
      const notice = events.find((e) => e.type === "notice" && e.code === "context_compacted") as { message: string } | undefined;
      expect(notice?.message).toContain("0 earlier turn(s) summarized, 1 tool output(s) trimmed");
      expect(server.requests.filter((r) => r.dialect === "models")).toEqual([]);
      const second = generated(server).at(-1)!;
      expect((toolResults(second)[0] as { text?: string }).text!.length).toBeLessThan(2200);
      const usage = events.filter((e) => e.type === "usage.observed").at(-1) as { usage: { context_size?: number } };
      expect(usage.usage.context_size).toBe(3000);
    } finally {
      await agent.close();
    }
  });

  it("compacts on Thread.compact(): every earlier turn summarized now, a turn of its own", async () => {
    server = await startModelServer({
      script: {
        turns: [
          { match: { lastUserTextContains: "one" }, reply: { text: "one answer" } },
          { match: { lastUserTextContains: "Summarize the conversation so far" }, reply: { text: SUMMARY } },
          { match: { lastUserTextContains: "two" }, reply: { text: "two answer" } },
        ],
      },
    });
    const agent = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "explicit") }), { workspace });
    try {
      const thread = await agent.startThread();
      await thread.run("one question");
      const compaction = thread.compact();
      const events = await collect(compaction);
      expect((await compaction.result).status).toBe("completed");
      expect(events.some((e) => e.type === "notice" && e.code === "context_compacted")).toBe(true);
      await thread.run("two question");
      expect(userTexts(generated(server).at(-1)!)).toEqual([expect.stringContaining(SUMMARY), "two question"]);
      expect((await thread.info()).checkpoint.turns).toBe(3);
    } finally {
      await agent.close();
    }
  });

  it("is off with compaction: false: the whole conversation is sent", async () => {
    server = await startModelServer({ script: { turns: script.turns.filter((t) => !t.match.lastUserTextContains?.startsWith("Summarize")) } });
    const agent = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "off"), contextWindow: 3000, compaction: false }), {
      workspace,
      defaults: { policy: { approval: "never" } },
    });
    try {
      const thread = await agent.startThread();
      await thread.run("read big.txt please");
      await thread.run("second question");
      expect((toolResults(generated(server).at(-1)!)[0] as { text?: string }).text!.length).toBeGreaterThan(10_000);
    } finally {
      await agent.close();
    }
  });
});
