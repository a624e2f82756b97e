/**
 * The openai() driver's threads, context guard and inputs as a demanding host tries them against
 * the scripted model server: a rewind of a fork, a second run on a thread another run holds, a
 * compaction whose summary request fails, an image whose declared type lies, and files the
 * model cannot take.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { createAgent, input, memoryThreadStore, type AgentEvent } from "../../src/index.js";
import { openai } from "../../src/drivers/openai/index.js";
import { startModelServer, type CapturedRequest, type ModelServer } from "../../src/testing/model-server/index.js";
import { scratch } from "./helpers.js";

const tmp = scratch("openai-threads-scn-");

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const generated = (s: ModelServer): CapturedRequest[] => s.requests.filter((r) => r.dialect === "chat" || r.dialect === "responses");
const history = (request: CapturedRequest): string[] =>
  request.messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.parts.map((p) => (p.type === "text" ? p.text : p.type)).join(" ")}`);
const answers = (...names: string[]) => names.map((n) => ({ match: { lastUserTextContains: n }, reply: { text: `${n} answer` } }));

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

for (const api of ["chat", "responses"] as const) {
  describe(`openai threads under a demanding host (${api})`, () => {
    it("rewinds a fork to turn 0 and to turn 1 without touching its parent; a turn past the end is refused", async () => {
      server = await startModelServer({ script: { turns: answers("one", "two", "fork-a", "fork-b", "parent-c") } });
      const store = memoryThreadStore();
      const agent = createAgent(openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir: join(tmp.root, `state-${api}`) }), { workspace: tmp.dir(), threadStore: store });
      try {
        const thread = await agent.startThread();
        await thread.run("one question");
        await thread.run("two question");
        const fork = await thread.fork();
        await fork.run("fork-a question");
        await expect(fork.rewind(9)).rejects.toMatchObject({ code: "config_invalid" });
        await fork.rewind(1);
        await fork.run("fork-b question");
        expect(history(generated(server).at(-1)!)).toEqual(["user: one question", "assistant: one answer", "user: fork-b question"]);
        await fork.rewind(0);
        expect((await fork.info()).checkpoint.turns).toBe(0);
        await thread.run("parent-c question");
        expect(history(generated(server).at(-1)!)).toEqual([
          "user: one question",
          "assistant: one answer",
          "user: two question",
          "assistant: two answer",
          "user: parent-c question",
        ]);
      } finally {
        await agent.close();
      }
    });

    it("refuses a second run on a thread while another agent's run holds it, and the first completes", async () => {
      server = await startModelServer({ script: { turns: [{ match: { lastUserTextContains: "slow" }, reply: { text: "slow answer" }, fault: { delayMs: 800 } }, ...answers("after")] } });
      const store = memoryThreadStore();
      const config = { baseURL: `${server.url}/v1`, api, model: "scripted-model" } as const;
      const ws = tmp.dir();
      const first = createAgent(openai({ ...config, stateDir: join(tmp.root, `a-${api}`) }), { workspace: ws, threadStore: store });
      const second = createAgent(openai({ ...config, stateDir: join(tmp.root, `b-${api}`) }), { workspace: ws, threadStore: store });
      try {
        const thread = await first.startThread();
        const running = thread.run("slow question");
        while ((await thread.info()).lease === undefined) await new Promise((r) => setTimeout(r, 10));
        const other = await second.resumeThread(thread.id);
        await expect(other.run("after question")).rejects.toMatchObject({ code: "thread_busy" });
        expect((await running).text).toBe("slow answer");
        await other.run("after question");
        expect(history(generated(server).at(-1)!)).toEqual(["user: slow question", "assistant: slow answer", "user: after question"]);
      } finally {
        await first.close();
        await second.close();
      }
    });

    it("goes on when the compaction's summary request fails: a warning, tool outputs trimmed, the turn answered", async () => {
      const ws = tmp.dir();
      writeFileSync(join(ws, "big.txt"), Array.from({ length: 300 }, (_, i) => `line ${String(i).padStart(3, "0")} of the big file, padded out`).join("\n"));
      server = await startModelServer({
        script: {
          turns: [
            { match: { lastUserTextContains: "read big" }, reply: { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] } },
            { match: { toolResultFor: "call_read" }, reply: { text: "read it" } },
            { match: { lastUserTextContains: "Summarize the conversation so far" }, fault: { status: 500, body: { error: { message: "summarizer down" } } }, repeat: true },
            ...answers("second", "third"),
          ],
        },
      });
      const agent = createAgent(
        openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir: join(tmp.root, `compact-${api}`), contextWindow: 3000, compaction: { keepTurns: 0 } }),
        { workspace: ws, defaults: { policy: { approval: "never" } } },
      );
      try {
        const thread = await agent.startThread();
        await thread.run("read big.txt please");
        const stream = thread.stream("second question");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("second answer");
        const notices = events.filter((e): e is Extract<AgentEvent, { type: "notice" }> => e.type === "notice" && e.code === "context_compacted");
        expect(notices).toHaveLength(1);
        expect(notices[0]).toMatchObject({ level: "warning", message: expect.stringContaining("summary request failed") });
        expect(events.at(-1)!.type).toBe("run.completed");
        const last = generated(server).at(-1)!;
        expect(history(last)[0]).toBe("user: read big.txt please");
      } finally {
        await agent.close();
      }
    });

    it("asks for a summary that keeps failing once per run, not before every request of the turn", async () => {
      const ws = tmp.dir();
      writeFileSync(join(ws, "small.txt"), "small\n");
      // A prompt no trimming makes smaller: the conversation stays over the threshold after a failed compaction.
      const long = `long question ${"padding words ".repeat(900)}`;
      const reads = [1, 2, 3].map((n) => ({ match: { lastUserTextContains: n === 1 ? "second" : undefined, toolResultFor: n === 1 ? undefined : `r${n - 1}` }, reply: { toolCalls: [{ id: `r${n}`, name: "read", arguments: { path: "small.txt" } }] } }));
      server = await startModelServer({
        script: {
          turns: [
            ...answers("long question"),
            ...reads.map((t) => ({ match: Object.fromEntries(Object.entries(t.match).filter(([, v]) => v !== undefined)), reply: t.reply })),
            { match: { toolResultFor: "r3" }, reply: { text: "second answer" } },
          ],
          auxiliary: { rules: [{ match: { lastUserTextContains: "Summarize the conversation so far" }, fault: { status: 400, body: { error: { message: "this model's maximum context length is 3000 tokens" } } } }] },
        },
      });
      const agent = createAgent(
        openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir: join(tmp.root, `compact-again-${api}`), contextWindow: 3000, compaction: { keepTurns: 0 } }),
        { workspace: ws, defaults: { policy: { approval: "never" } } },
      );
      try {
        const thread = await agent.startThread();
        await thread.run(long);
        const stream = thread.stream("second question");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("second answer");
        const summaries = server.requests.filter((r) => r.messages.some((m) => m.parts.some((p) => p.type === "text" && p.text.startsWith("Summarize the conversation so far"))));
        expect(summaries).toHaveLength(1);
        expect(events.filter((e) => e.type === "notice" && e.code === "context_compacted")).toHaveLength(1);
      } finally {
        await agent.close();
      }
    });

    it("refuses an image whose declared type lies (PNG bytes named .jpg) before anything is sent", async () => {
      server = await startModelServer({ script: { turns: [{ reply: { text: "seen" } }] } });
      const path = join(tmp.dir(), "photo.jpg");
      writeFileSync(path, PNG);
      const agent = createAgent(openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir: join(tmp.root, `img-${api}`) }), { workspace: tmp.dir() });
      try {
        const error = await agent.run("what is this?", { inputs: [input.fromPath("image", path)] }).then(
          () => undefined,
          (e: unknown) => e as { name?: string; code?: string; message?: string },
        );
        expect(error).toMatchObject({ name: "InputError", code: expect.stringMatching(/^input_/), message: expect.stringContaining("does not match its media type image/jpeg") });
        expect(generated(server)).toHaveLength(0);
      } finally {
        await agent.close();
      }
    });

    it("refuses a file input of a type the model cannot take, typed, before anything is sent", async () => {
      server = await startModelServer({ script: { turns: [{ reply: { text: "never" } }] } });
      const dir = tmp.dir();
      const zip = join(dir, "bundle.zip");
      writeFileSync(zip, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]));
      const audio = join(dir, "note.wav");
      writeFileSync(audio, Buffer.from("RIFF\0\0\0\0WAVEfmt "));
      const agent = createAgent(openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir: join(tmp.root, `file-${api}`) }), { workspace: tmp.dir() });
      try {
        await expect(agent.run("unpack", { inputs: [input.fromPath("file", zip, { mediaType: "application/zip" })] })).rejects.toMatchObject({ code: "input_media_type_unsupported" });
        await expect(agent.run("listen", { inputs: [input.fromPath("audio", audio)] })).rejects.toMatchObject({ code: expect.stringMatching(/^input_/) });
        expect(generated(server)).toHaveLength(0);
      } finally {
        await agent.close();
      }
    });
  });
}
