/**
 * The OpenAI-compatible driver's loop end to end against the scripted model server, in both wire
 * APIs: retries before delivery only, cancel mid-stream, steer and follow-up in the captured
 * requests, image bytes, usage per turn and conversation, MCP tool calls over stdio, parallel
 * calls, and refusals (no model, unknown session, denied policy).
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";

import { createAgent, input, memoryThreadStore, type AgentEvent } from "../../../src/index.js";
import { openai, type OpenAIConfig } from "../../../src/drivers/openai/index.js";
import { startModelServer, type ModelScript, type ModelServer } from "../../../src/testing/model-server/index.js";
import { storedConversation } from "./stored.js";

const root = mkdtempSync(join(tmpdir(), "openai-loop-"));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));
const echoServer = fileURLToPath(new URL("../stream-json/fixtures/echo-mcp-server.mjs", import.meta.url));

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: ModelScript): Promise<string> {
  server = await startModelServer({ script });
  return `${server.url}/v1`;
}

const driverFor = (api: "chat" | "responses", baseURL: string, extra: Partial<OpenAIConfig> = {}) =>
  openai({ baseURL, api, model: "scripted-model", stateDir: join(root, `state-${api}`), retryBaseDelayMs: 1, ...extra });

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const userTexts = (index: number): string[] =>
  server!.requests[index]!.messages.filter((m) => m.role === "user").flatMap((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])));

for (const api of ["chat", "responses"] as const) {
  describe(`openai driver loop (${api})`, () => {
    it("retries a 429 before any output, with a provider_retry notice", async () => {
      const baseURL = await serve({ turns: [{ fault: { status: 429, headers: { "retry-after": "0" } } }, { reply: { text: "after the retry" } }] });
      const agent = createAgent(driverFor(api, baseURL), { workspace });
      try {
        const stream = agent.stream("hello");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("after the retry");
        expect(events.filter((e) => e.type === "notice" && e.code === "provider_retry")).toHaveLength(1);
        expect(server!.requests.filter((r) => r.dialect === api)).toHaveLength(2);
      } finally {
        await agent.close();
      }
    });

    it("never retries once output was delivered: the cut stream fails the run", async () => {
      const baseURL = await serve({ turns: [{ reply: { text: "partial answer that is cut", chunkSize: 4 }, fault: { cutAfterEvents: 5 } }, { reply: { text: "must not be asked" } }] });
      const agent = createAgent(driverFor(api, baseURL), { workspace });
      try {
        const stream = agent.stream("hello");
        const events = await collect(stream);
        expect(events.some((e) => e.type === "message.delta")).toBe(true);
        expect(events.at(-1)!.type).toBe("run.failed");
        await expect(stream.result).rejects.toThrow();
        expect(server!.requests.filter((r) => r.dialect === api)).toHaveLength(1);
      } finally {
        await agent.close();
      }
    });

    it("fails a run whose retries are spent with rate_limited", async () => {
      const baseURL = await serve({ turns: [{ fault: { status: 429, headers: { "retry-after": "0" } }, repeat: true }] });
      const agent = createAgent(driverFor(api, baseURL, { maxRetries: 2 }), { workspace });
      try {
        await expect(agent.run("hello")).rejects.toMatchObject({ code: "rate_limited" });
        expect(server!.requests.filter((r) => r.dialect === api)).toHaveLength(3);
      } finally {
        await agent.close();
      }
    });

    it("cancels mid-stream: the HTTP stream is aborted and run.cancelled comes once", async () => {
      const baseURL = await serve({ turns: [{ reply: { text: "word ".repeat(300), chunkSize: 5 }, fault: { dripMs: 30 } }] });
      const agent = createAgent(driverFor(api, baseURL), { workspace });
      try {
        const stream = agent.stream("talk slowly");
        const events: AgentEvent[] = [];
        for await (const event of stream) {
          events.push(event);
          if (event.type === "message.delta") stream.cancel("enough");
        }
        expect(events.filter((e) => e.type === "run.cancelled")).toHaveLength(1);
        expect(events.at(-1)!.type).toBe("run.cancelled");
        await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
        expect(events.filter((e) => e.type === "message.delta").length).toBeLessThan(300);
      } finally {
        await agent.close();
      }
    });

    it("injects steering text before the next model request and runs a follow-up when the turn would end", async () => {
      const baseURL = await serve({
        turns: [
          { reply: { text: "first answer ".repeat(20), chunkSize: 6 }, fault: { dripMs: 10 } },
          { match: { lastUserTextContains: "STEER" }, reply: { text: "steered" } },
          { match: { lastUserTextContains: "FOLLOW" }, reply: { text: "followed up" } },
        ],
      });
      const agent = createAgent(driverFor(api, baseURL), { workspace });
      try {
        const stream = agent.stream("start");
        let sent = false;
        for await (const event of stream) {
          if (event.type === "message.delta" && !sent) {
            sent = true;
            await stream.steer("STEER: prefer tabs");
            await stream.followUp("FOLLOW: now summarize");
          }
        }
        expect((await stream.result).text).toBe("followed up");
        const requests = server!.requests.filter((r) => r.dialect === api);
        expect(requests).toHaveLength(3);
        expect(userTexts(requests[1]!.index)).toEqual(["start", "STEER: prefer tabs"]);
        expect(userTexts(requests[2]!.index)).toEqual(["start", "STEER: prefer tabs", "FOLLOW: now summarize"]);
        await expect(stream.steer("too late")).rejects.toMatchObject({ code: "steer_rejected" });
      } finally {
        await agent.close();
      }
    });

    it("streams reasoning apart from the answer, and asks for structured output natively", async () => {
      const baseURL = await serve({ turns: [{ reply: { reasoning: "think first", text: '{"answer":42}', chunkSize: 4 } }] });
      const agent = createAgent(driverFor(api, baseURL), { workspace });
      try {
        const stream = agent.stream("the answer?", { output: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] } });
        const events = await collect(stream);
        expect((await stream.result).structured).toEqual({ answer: 42 });
        expect(events.filter((e) => e.type === "reasoning.delta").map((e) => (e.type === "reasoning.delta" ? e.text : "")).join("")).toBe("think first");
        expect(events.find((e) => e.type === "reasoning.completed")).toMatchObject({ text: "think first" });
        expect(events.find((e) => e.type === "message.completed")).toMatchObject({ text: '{"answer":42}' });
        const body = server!.requests[0]!.body as { response_format?: { type: string }; text?: { format?: { type: string } } };
        expect(api === "chat" ? body.response_format?.type : body.text?.format?.type).toBe("json_schema");
      } finally {
        await agent.close();
      }
    });

    it("sends an image input byte for byte as a data URL", async () => {
      const baseURL = await serve({ turns: [{ reply: { text: "a red pixel" } }] });
      const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
      const path = join(root, `pixel-${api}.png`);
      writeFileSync(path, png);
      const agent = createAgent(driverFor(api, baseURL), { workspace });
      try {
        await agent.run("what is this?", { inputs: [input.fromPath("image", path)] });
        const image = server!.requests.find((r) => r.dialect === api)!.messages.flatMap((m) => m.parts).find((p) => p.type === "image");
        expect(image).toMatchObject({ type: "image", source: "base64", mediaType: "image/png", byteLength: png.length, sha256: createHash("sha256").update(png).digest("hex") });
      } finally {
        await agent.close();
      }
    });

    it("reports usage per turn and for the conversation, and records a model switch", async () => {
      const baseURL = await serve({
        turns: [
          { reply: { toolCalls: [{ name: "mcp__echo__say", arguments: { text: "hi" } }], usage: { input_tokens: 100, output_tokens: 10 } } },
          { reply: { text: "one", usage: { input_tokens: 120, output_tokens: 5 } } },
          { reply: { text: "two", usage: { input_tokens: 200, output_tokens: 7 } } },
        ],
      });
      const stateDir = join(root, `usage-${api}`);
      const threadStore = memoryThreadStore();
      const agent = createAgent(driverFor(api, baseURL, { stateDir, contextWindow: 32_000 }), { workspace, threadStore, mcp: [{ name: "echo", command: process.execPath, args: [echoServer] }] });
      try {
        const thread = await agent.startThread();
        const first = await thread.run("first");
        expect(first.usage).toMatchObject({ input_tokens: 220, output_tokens: 15, cumulative_input_tokens: 220, context_used: 125, context_size: 32_000 });
        const second = await thread.run("second", { model: "other-model" });
        expect(second.usage).toMatchObject({ input_tokens: 200, output_tokens: 7, cumulative_input_tokens: 420, cumulative_output_tokens: 22 });
        expect(server!.requests[2]!.model).toBe("other-model");
        const stored = await storedConversation(threadStore, thread.id, second.providerSessionId!);
        expect(stored.turns.map((t) => t.model)).toEqual(["scripted-model", "other-model"]);
        expect(stored.turns[1]!.modelSwitch).toEqual({ from: "scripted-model", to: "other-model" });
      } finally {
        await agent.close();
      }
    });

    it("calls an MCP tool over stdio (parallel calls in one answer), with mcp tool events and results the model sees", async () => {
      const baseURL = await serve({
        turns: [
          { reply: { toolCalls: [{ id: "c1", name: "mcp__echo__say", arguments: { text: "one" } }, { id: "c2", name: "mcp__echo__say", arguments: { text: "two" } }] } },
          { match: { toolResultFor: "c2" }, reply: { text: "echoed" } },
        ],
      });
      const driver = driverFor(api, baseURL);
      const agent = createAgent(driver, { workspace, mcp: [{ name: "echo", command: process.execPath, args: [echoServer] }] });
      try {
        const stream = agent.stream("echo twice");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("echoed");
        const starts = events.filter((e) => e.type === "tool.started");
        expect(starts.map((e) => e.type === "tool.started" && e.mcp)).toEqual([{ server: "echo", tool: "say" }, { server: "echo", tool: "say" }]);
        expect(starts.every((e) => e.type === "tool.started" && e.kind === "mcp")).toBe(true);
        const done = events.filter((e) => e.type === "tool.completed");
        expect(done.map((e) => e.type === "tool.completed" && e.output)).toEqual(["echo: one", "echo: two"]);
        const results = server!.requests[1]!.messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
        expect(results).toEqual([expect.objectContaining({ callId: "c1", text: "echo: one" }), expect.objectContaining({ callId: "c2", text: "echo: two" })]);
        expect(server!.requests[0]!.tools).toContain("mcp__echo__say");
        expect(driver.processes().live).toEqual([]);
        expect(driver.processes().started).toBe(1);
      } finally {
        await agent.close();
      }
    });

    it("calls a host tool through the agent's loopback MCP server: the handler runs, the model sees its result", async () => {
      const baseURL = await serve({
        turns: [
          { reply: { toolCalls: [{ id: "h1", name: "mcp__host__lookup", arguments: { id: 42 } }] } },
          { match: { toolResultFor: "h1" }, reply: { text: "found Ada" } },
        ],
      });
      const seen: { args: unknown; runId: string }[] = [];
      const lookup = {
        name: "lookup",
        description: "Looks a record up",
        inputSchema: { type: "object", properties: { id: { type: "number" } }, required: ["id"] },
        handler: (args: Record<string, unknown>, context: { runId: string }) => {
          seen.push({ args, runId: context.runId });
          return { id: args.id, name: "Ada" };
        },
      };
      const agent = createAgent(driverFor(api, baseURL), { workspace, tools: [lookup] });
      try {
        const stream = agent.stream("who is 42?");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("found Ada");
        expect(seen).toEqual([{ args: { id: 42 }, runId: stream.runId }]);
        const started = events.find((e) => e.type === "tool.started");
        expect(started).toMatchObject({ kind: "mcp", mcp: { server: "host", tool: "lookup" } });
        const result = server!.requests[1]!.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
        expect(result).toMatchObject({ callId: "h1", text: expect.stringContaining("Ada") });
        expect(server!.requests[0]!.tools).toContain("mcp__host__lookup");
      } finally {
        await agent.close();
      }
    });

    it("answers an unknown tool and invalid arguments with a tool error the model sees", async () => {
      const baseURL = await serve({
        turns: [
          { reply: { toolCalls: [{ id: "u1", name: "no_such_tool", arguments: {} }, { id: "u2", name: "mcp__echo__say", arguments: "{not json" }] } },
          { reply: { text: "recovered" } },
        ],
      });
      const agent = createAgent(driverFor(api, baseURL), { workspace, mcp: [{ name: "echo", command: process.execPath, args: [echoServer] }] });
      try {
        const stream = agent.stream("go");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("recovered");
        expect(events.filter((e) => e.type === "tool.completed").map((e) => e.type === "tool.completed" && e.status)).toEqual(["failed", "failed"]);
        const results = server!.requests[1]!.messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
        expect(results.map((r) => r.type === "tool_result" && r.text)).toEqual([expect.stringContaining("Unknown tool"), expect.stringContaining("not valid JSON")]);
      } finally {
        await agent.close();
      }
    });
  });
}

describe("openai driver refusals", () => {
  it("fails before delivery when an MCP server of the agent cannot be started, instead of running without it", async () => {
    const baseURL = await serve({ turns: [{ reply: { text: "never" } }] });
    const broken = { name: "broken", command: process.execPath, args: ["-e", "process.exit(3)"] };
    const agent = createAgent(driverFor("chat", baseURL), { workspace, mcp: [{ name: "echo", command: process.execPath, args: [echoServer] }, broken] });
    try {
      await expect(agent.run("hi")).rejects.toMatchObject({ code: "mcp_server_failed", phase: "before_delivery", message: expect.stringContaining('"broken"') });
      expect(server!.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it("fails a run whose stateDir cannot hold conversations before delivery, typed", async () => {
    const baseURL = await serve({ turns: [{ reply: { text: "never" } }] });
    const blocker = join(root, "state-blocker");
    writeFileSync(blocker, "a file where the stateDir's parent should be");
    const agent = createAgent(driverFor("chat", baseURL, { stateDir: join(blocker, "state") }), { workspace });
    try {
      await expect(agent.run("hi")).rejects.toMatchObject({ code: "config_invalid", message: expect.stringContaining("stateDir") });
      expect(server!.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it("keeps the API key and a header value an endpoint echoes in its error body out of the error and every event", async () => {
    const key = "sk-echoed-canary-5be2c7d913";
    const header = "hdr-echoed-canary-0f41aa";
    process.env.OAI_LOOP_ECHO_KEY = key;
    const baseURL = await serve({ turns: [{ fault: { status: 400, body: { error: { message: `invalid key ${key} with header ${header}`, type: "invalid_request_error" } } } }] });
    const agent = createAgent(driverFor("chat", baseURL, { apiKeyEnv: "OAI_LOOP_ECHO_KEY", headers: { "x-gateway-token": header } }), { workspace });
    try {
      const stream = agent.stream("hi");
      const events = await collect(stream);
      const error = await stream.result.then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error!.message).toContain("invalid key");
      const seen = JSON.stringify(events) + error!.message + String(error!.stack) + String((error as { cause?: unknown }).cause);
      expect(seen).not.toContain(key);
      expect(seen).not.toContain(header);
      expect(server!.requests).toHaveLength(1);
    } finally {
      delete process.env.OAI_LOOP_ECHO_KEY;
      await agent.close();
    }
  });

  it("names the missing version path when a baseURL without /v1 meets a 404", async () => {
    // Like Ollama's root: the OpenAI-compatible routes live under /v1 only.
    const http = createServer((req, res) => {
      req.resume();
      res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as { port: number };
    const agent = createAgent(driverFor("chat", `http://127.0.0.1:${port}`), { workspace });
    try {
      await expect(agent.run("hi")).rejects.toMatchObject({ code: "model_not_found", message: expect.stringContaining("/v1") });
    } finally {
      await agent.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it("refuses a run without a model before delivery", async () => {
    const baseURL = await serve({ turns: [{ reply: { text: "x" } }] });
    const agent = createAgent(openai({ baseURL, stateDir: join(root, "state-nomodel") }), { workspace });
    try {
      await expect(agent.run("hi")).rejects.toMatchObject({ code: "config_invalid" });
      expect(server!.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it("refuses a typo in the config and a policy it cannot honour", () => {
    expect(() => openai({ baseURL: "http://127.0.0.1:1/v1", modle: "x" } as never)).toThrow(/modle: unknown key/);
    expect(() => openai({ baseURL: "not a url" })).toThrow(/baseURL/);
    const driver = openai({ baseURL: "http://127.0.0.1:1/v1" });
    expect(() => driver.validatePolicy({ network: false })).toThrow(/network/);
    expect(() => driver.validatePolicy({ sandbox: "workspace-write", approval: "never" })).toThrow(/workspace-write/);
    expect(() => driver.validatePolicy({ sandbox: "workspace-write", approval: "on-request" })).not.toThrow();
  });
});

/** An endpoint that answers every request with stream headers, one SSE comment, then nothing. */
async function stallingEndpoint(): Promise<{ baseURL: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const http: Server = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(": stalled\n\n");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as { port: number };
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    close: () => {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe("openai driver request deadline", () => {
  it("bounds a stream that stalls after its headers by requestTimeoutMs: retried while nothing was delivered, then a typed timeout", async () => {
    const endpoint = await stallingEndpoint();
    const agent = createAgent(driverFor("chat", endpoint.baseURL, { requestTimeoutMs: 200, maxRetries: 1 }), { workspace, defaults: { watchdogs: { idleMs: 0 } } });
    try {
      const stream = agent.stream("hello");
      const events = await collect(stream);
      await expect(stream.result).rejects.toMatchObject({ code: "timeout", message: expect.stringContaining("requestTimeoutMs") });
      expect(events.filter((e) => e.type === "notice" && e.code === "provider_retry")).toHaveLength(1);
      expect(events.filter((e) => e.type === "run.failed")).toHaveLength(1);
      expect(endpoint.requests()).toBe(2);
    } finally {
      await agent.close();
      await endpoint.close();
    }
  });

  it("cuts a request at its own deadline while a request with a later one is in flight", async () => {
    const endpoint = await stallingEndpoint();
    const patient = createAgent(driverFor("chat", endpoint.baseURL, { requestTimeoutMs: 600_000, maxRetries: 0 }), { workspace, defaults: { watchdogs: { idleMs: 0 } } });
    const hasty = createAgent(driverFor("chat", endpoint.baseURL, { requestTimeoutMs: 200, maxRetries: 0 }), { workspace, defaults: { watchdogs: { idleMs: 0 } } });
    const cancel = new AbortController();
    try {
      const waiting = patient.run("wait", { signal: cancel.signal }).catch((error: unknown) => error);
      while (endpoint.requests() < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      await expect(hasty.run("hurry")).rejects.toMatchObject({ code: "timeout" });
      cancel.abort();
      await expect(waiting).resolves.toMatchObject({ name: expect.stringMatching(/Cancel|Abort/) });
    } finally {
      await hasty.close();
      await patient.close();
      await endpoint.close();
    }
  });

  it("cuts a request at its deadline after a deadline timer was armed on a clock since swapped (fake timers) and never fired", async () => {
    const baseURL = await serve({ turns: [{ reply: { text: "quick" } }] });
    const quick = createAgent(driverFor("chat", baseURL, { requestTimeoutMs: 50, maxRetries: 0 }), { workspace, defaults: { watchdogs: { idleMs: 0 } } });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      expect((await quick.run("hello")).text).toBe("quick");
    } finally {
      vi.useRealTimers();
      await quick.close();
    }
    // Past the fake timer's time, which never comes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const endpoint = await stallingEndpoint();
    const stalled = createAgent(driverFor("chat", endpoint.baseURL, { requestTimeoutMs: 200, maxRetries: 0 }), { workspace, defaults: { watchdogs: { idleMs: 0 } } });
    try {
      await expect(stalled.run("hello")).rejects.toMatchObject({ code: "timeout" });
    } finally {
      await stalled.close();
      await endpoint.close();
    }
  });

  it("takes a requestTimeoutMs past the longest Node timer (2^31 - 1 ms) as that timer, not as one that fires at once", async () => {
    // Each chunk a few ms after the last: a request cut after 1 ms fails, one within its limit completes.
    const baseURL = await serve({ turns: [{ reply: { text: "slow but whole", chunkSize: 4 }, fault: { dripMs: 5 } }] });
    const agent = createAgent(driverFor("chat", baseURL, { requestTimeoutMs: 2 ** 31 + 1000, maxRetries: 0 }), { workspace });
    try {
      expect((await agent.run("hello")).text).toBe("slow but whole");
    } finally {
      await agent.close();
    }
  });
});

describe("openai driver saves of a thread's conversation", () => {
  it("saves at once after a batch that may change the workspace, and a batch that only read with the turn's end", async () => {
    writeFileSync(join(workspace, "notes.txt"), "some notes\n");
    const baseURL = await serve({
      turns: [
        { reply: { toolCalls: [{ id: "r1", name: "read", arguments: { path: "notes.txt" } }, { id: "g1", name: "grep", arguments: { pattern: "notes" } }] } },
        { reply: { text: "read it" } },
        { reply: { toolCalls: [{ id: "w1", name: "write", arguments: { path: "out.txt", content: "data" } }] } },
        { reply: { text: "wrote it" } },
      ],
    });
    const threadStore = memoryThreadStore();
    const saved: string[] = [];
    const save = threadStore.saveProviderState!.bind(threadStore);
    threadStore.saveProviderState = async (id, owner, state) => {
      saved.push(state);
      await save(id, owner, state);
    };
    await using agent = createAgent(driverFor("chat", baseURL), { workspace, threadStore, defaults: { onApproval: async () => ({ decision: "allow" }) } });
    const thread = await agent.startThread();
    expect((await thread.run("read the notes")).text).toBe("read it");
    // Reads only: the one save is the turn's end, and it holds what they returned.
    expect(saved).toHaveLength(1);
    expect(saved[0]).toContain("some notes");
    expect((await thread.run("write a file")).text).toBe("wrote it");
    // The write's result saved before the next model request, then the turn's end.
    expect(saved).toHaveLength(3);
    expect(saved[1]).toContain('"callId":"w1"');
    expect(saved[1]).not.toContain("wrote it");
    expect(saved[2]).toContain("wrote it");
  });
});
