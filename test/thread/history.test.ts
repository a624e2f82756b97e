/**
 * Thread history through the agent: what a turn's entry holds (prompt, inputs, compacted events),
 * which endings are kept, redaction, the never-stored input bytes and paths, paging through
 * `thread.history()` and a deleted thread. The store-level contract is the shared suite's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent, input, type AgentEvent, type Driver, type HistoryTurn, type ThreadStore } from "../../src/index.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { memoryThreadStore } from "../../src/thread/stores/memory.js";
import { sqliteThreadStore } from "../../src/thread/stores/sqlite.js";
import { HISTORY_FIELD_CAP_BYTES } from "../../src/thread/transcript.js";

const SECRET = "sk-live-history-7c1f0e9d2b4a68355ad1";
const dir = mkdtempSync(join(tmpdir(), "aa-history-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Prompts pick the script: "stream" streams deltas and a tool, "fail", "hold" (cancelled), "big". */
function script(prompt: string): FakeRunScript {
  if (prompt.startsWith("fail")) return { steps: [{ markDelivered: true }, { deltas: { count: 3, text: "par" } }, { fail: { message: "the provider broke" } }] };
  if (prompt.startsWith("hold")) return { steps: [{ markDelivered: true }, { deltas: { count: 2, text: "wa" } }, { waitForAbort: true }] };
  if (prompt.startsWith("big")) {
    return {
      steps: [
        { emit: { type: "tool.started", callId: "c", kind: "command", title: "cat", command: "cat big.log" } },
        { emit: { type: "tool.updated", callId: "c", output: "y".repeat(HISTORY_FIELD_CAP_BYTES) } },
        { emit: { type: "tool.updated", callId: "c", output: "z".repeat(1000) } },
        { emit: { type: "tool.completed", callId: "c", status: "completed", exitCode: 0 } },
      ],
      text: "done",
    };
  }
  return {
    steps: [
      { deltas: { count: 4, text: "th", itemId: "r1", kind: "reasoning" } },
      { emit: { type: "reasoning.completed", itemId: "r1", text: "thththth" } },
      { emit: { type: "tool.started", callId: "c1", kind: "command", title: "ls", command: "ls", cwd: "/repo" } },
      { emit: { type: "tool.updated", callId: "c1", output: "a\n" } },
      { emit: { type: "tool.updated", callId: "c1", output: "b\n" } },
      { emit: { type: "tool.completed", callId: "c1", status: "completed", exitCode: 0 } },
      { deltas: { count: 3, text: "hi ", itemId: "m1" } },
      { emit: { type: "message.completed", itemId: "m1", text: `hi hi hi ${SECRET}` } },
    ],
    text: "hi hi hi",
  };
}

function agentWith(store: ThreadStore) {
  const base = fakeDriver({ script, inputs: { image: { modes: [] }, file: { modes: ["workspace_reference"], mediaTypes: ["text/*"] }, audio: { modes: [] } } });
  const driver: Driver = { ...base, secrets: () => [SECRET] };
  return createAgent(driver, { workspace: "/repo", threadStore: store });
}

const types = (turn: HistoryTurn): string[] => turn.events.map((e) => e.type);

describe.each([
  ["memory", () => memoryThreadStore()],
  ["sqlite", () => sqliteThreadStore(join(dir, `history-${Math.random().toString(36).slice(2)}.db`))],
])("thread.history() with the %s store", (_name, makeStore) => {
  it("keeps a completed turn's prompt, inputs and compacted events, redacted, without input bytes or paths", async () => {
    const store = makeStore();
    const agent = agentWith(store);
    try {
      const secretDir = mkdtempSync(join(dir, "inputs-private-"));
      const file = join(secretDir, "notes.txt");
      writeFileSync(file, "INPUT-BYTES-ARE-NEVER-STORED");
      const thread = await agent.startThread();
      const streamed: AgentEvent[] = [];
      for await (const event of thread.stream(`stream please, key ${SECRET}`, { inputs: [input.fromPath("file", file, { mediaType: "text/plain" })] })) streamed.push(event);
      const page = await thread.history();
      expect(page.nextBefore).toBeUndefined();
      const [turn] = page.turns;
      expect(turn).toMatchObject({ turn: 1, status: "completed", runId: streamed[0]!.runId, inputs: [{ name: "notes.txt", kind: "file", mediaType: "text/plain", size: 28 }] });
      expect(turn!.prompt.startsWith("stream please, key ")).toBe(true);
      expect(turn!.prompt).not.toContain(SECRET);
      expect(Date.parse(turn!.endedAt)).toBeGreaterThanOrEqual(Date.parse(turn!.startedAt));
      expect(turn!.startedAt).toBe(new Date(streamed[0]!.at).toISOString());
      // Deltas of completed items are gone; the tool's output deltas merged into one update.
      expect(types(turn!)).toEqual(["run.started", "thread.bound", "reasoning.completed", "tool.started", "tool.updated", "tool.completed", "message.completed"]);
      expect(turn!.events.find((e) => e.type === "tool.updated")).toMatchObject({ callId: "c1", output: "a\nb\n" });
      // Model output streams as written; at rest a key it echoed is redacted.
      const live = streamed.find((e) => e.type === "message.completed");
      expect(live).toMatchObject({ text: `hi hi hi ${SECRET}` });
      expect(turn!.events.find((e) => e.type === "message.completed")).toMatchObject({ text: "hi hi hi [REDACTED]" });
      const stored = JSON.stringify(await store.history(thread.id));
      for (const never of [SECRET, "INPUT-BYTES-ARE-NEVER-STORED", secretDir, "inputs-private-"]) expect(stored).not.toContain(never);
    } finally {
      await agent.close();
      await store.close();
    }
  });

  it("keeps failed and cancelled turns too, merging the deltas of a message that never completed", async () => {
    const store = makeStore();
    const agent = agentWith(store);
    try {
      const thread = await agent.startThread();
      await expect(thread.run("fail now")).rejects.toMatchObject({ code: "provider_error" });
      const held = thread.stream("hold on");
      const iterator = held[Symbol.asyncIterator]();
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        if (next.value.type === "message.delta") held.cancel();
      }
      await expect(held.result).rejects.toMatchObject({ code: "run_cancelled" });
      await thread.run("stream again");
      const { turns } = await thread.history();
      expect(turns.map((t) => [t.turn, t.status, t.prompt])).toEqual([[3, "completed", "stream again"], [2, "cancelled", "hold on"], [1, "failed", "fail now"]]);
      const failed = turns[2]!;
      expect(failed.events.filter((e) => e.type === "message.delta")).toMatchObject([{ text: "parparpar" }]);
      expect((await thread.info()).checkpoint.turns).toBe(1);
    } finally {
      await agent.close();
      await store.close();
    }
  });

  it("caps a large tool output with a marker", async () => {
    const store = makeStore();
    const agent = agentWith(store);
    try {
      const thread = await agent.startThread();
      await thread.run("big output");
      const [turn] = (await thread.history()).turns;
      const update = turn!.events.find((e) => e.type === "tool.updated");
      expect(update?.type === "tool.updated" && update.output).toMatch(/^y+\n\[truncated: 1000 bytes omitted\]$/);
      expect(JSON.stringify(turn).length).toBeLessThan(HISTORY_FIELD_CAP_BYTES + 4096);
    } finally {
      await agent.close();
      await store.close();
    }
  });

  it("pages newest first through before, and a deleted thread's history is gone", async () => {
    const store = makeStore();
    const agent = agentWith(store);
    try {
      const thread = await agent.startThread();
      for (let i = 1; i <= 5; i++) await thread.run(`turn ${i}`);
      const first = await thread.history({ limit: 2 });
      expect(first.turns.map((t) => t.prompt)).toEqual(["turn 5", "turn 4"]);
      expect(first.nextBefore).toBe(4);
      const second = await thread.history({ before: first.nextBefore!, limit: 2 });
      expect(second.turns.map((t) => t.prompt)).toEqual(["turn 3", "turn 2"]);
      const last = await thread.history({ before: second.nextBefore!, limit: 2 });
      expect(last).toMatchObject({ turns: [{ turn: 1, prompt: "turn 1" }] });
      expect(last.nextBefore).toBeUndefined();
      await expect(thread.history({ limit: 0 })).rejects.toMatchObject({ code: "config_invalid" });
      expect(await store.delete(thread.id)).toBe(true);
      await expect(thread.history()).rejects.toMatchObject({ code: "thread_not_found" });
      expect(await store.history(thread.id)).toEqual({ turns: [] });
    } finally {
      await agent.close();
      await store.close();
    }
  });
});

describe("a fork's history", () => {
  it("starts with the parent's turns up to the fork, then goes its own way", async () => {
    const store = memoryThreadStore();
    const agent = agentWith(store);
    try {
      const parent = await agent.startThread();
      await parent.run("turn 1");
      await expect(parent.run("fail 2")).rejects.toMatchObject({ code: "provider_error" });
      const fork = await parent.fork();
      await fork.run("fork 3");
      await parent.run("parent 3");
      const forked = (await fork.history()).turns;
      const original = (await parent.history()).turns;
      expect(forked.map((t) => [t.turn, t.prompt, t.status])).toEqual([[3, "fork 3", "completed"], [2, "fail 2", "failed"], [1, "turn 1", "completed"]]);
      expect(original.map((t) => [t.turn, t.prompt])).toEqual([[3, "parent 3"], [2, "fail 2"], [1, "turn 1"]]);
      expect(forked.slice(1)).toEqual(original.slice(1));
      expect((await fork.info()).lease).toBeUndefined();
      const empty = await (await agent.startThread()).fork();
      expect(await empty.history()).toEqual({ turns: [] });
    } finally {
      await agent.close();
    }
  });
});

describe("thread.history() on a fresh thread", () => {
  it("is an empty page", async () => {
    const agent = agentWith(memoryThreadStore());
    try {
      const thread = await agent.startThread();
      expect(await thread.history()).toEqual({ turns: [] });
    } finally {
      await agent.close();
    }
  });
});
