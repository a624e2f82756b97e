/**
 * The openai() driver against endpoints that misbehave on the wire, as a host meets them: a
 * stream that ends without `[DONE]`, a 200 answering HTML, a stream that never reports usage,
 * an error event after some deltas, tool calls that reuse an id or come without a name.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent, type AgentEvent } from "../../src/index.js";
import { openai, type OpenAIConfig } from "../../src/drivers/openai/index.js";

const root = mkdtempSync(join(tmpdir(), "openai-wire-"));
const workspace = join(root, "workspace");
mkdirSync(workspace, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Endpoint {
  baseURL: string;
  bodies: unknown[];
  close(): Promise<void>;
}

type Answer = (res: ServerResponse, n: number, body: unknown) => void;

/** A chat endpoint answering the n-th request (0-based) with `answers[n]` (the last one repeats). */
async function endpoint(answers: Answer[]): Promise<Endpoint> {
  const bodies: unknown[] = [];
  const http = createServer((req: IncomingMessage, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      const body: unknown = raw === "" ? undefined : JSON.parse(raw);
      bodies.push(body);
      const n = bodies.length - 1;
      answers[Math.min(n, answers.length - 1)]!(res, n, body);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as { port: number };
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    bodies,
    close: () => {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
const finish = (reason: string): string =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: reason }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } })}\n\n`;

const sse = (res: ServerResponse, ...events: string[]): void => {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const e of events) res.write(e);
  res.end();
};
const text = (t: string): Answer => (res) => sse(res, chunk({ role: "assistant", content: t }), finish("stop"), usage, "data: [DONE]\n\n");

const driver = (baseURL: string, extra: Partial<OpenAIConfig> = {}) =>
  openai({ baseURL, model: "m", stateDir: join(root, "state"), retryBaseDelayMs: 1, ...extra });

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const toolMessages = (body: unknown): Array<{ tool_call_id: string; content: string }> =>
  ((body as { messages: Array<{ role: string; tool_call_id: string; content: string }> }).messages ?? []).filter((m) => m.role === "tool");

describe("openai driver against a misbehaving chat endpoint", () => {
  it("completes a stream that ends after its finish reason and usage without [DONE]", async () => {
    const ep = await endpoint([(res) => sse(res, chunk({ role: "assistant", content: "no done marker" }), finish("stop"), usage)]);
    const agent = createAgent(driver(ep.baseURL), { workspace });
    try {
      const result = await agent.run("hi");
      expect(result.text).toBe("no done marker");
      expect(result.usage).toMatchObject({ input_tokens: 7, output_tokens: 3 });
      expect(ep.bodies).toHaveLength(1);
    } finally {
      await agent.close();
      await ep.close();
    }
  });

  it("completes a turn whose stream never reports usage", async () => {
    const ep = await endpoint([(res) => sse(res, chunk({ role: "assistant", content: "no usage" }), finish("stop"), "data: [DONE]\n\n")]);
    const agent = createAgent(driver(ep.baseURL), { workspace });
    try {
      const stream = agent.stream("hi");
      const events = await collect(stream);
      expect((await stream.result).text).toBe("no usage");
      expect(events.at(-1)!.type).toBe("run.completed");
    } finally {
      await agent.close();
      await ep.close();
    }
  });

  it("fails, without a retry, a stream cut after some text with neither a finish reason nor [DONE]", async () => {
    const ep = await endpoint([(res) => sse(res, chunk({ role: "assistant", content: "half an ans" })), text("must not be asked")]);
    const agent = createAgent(driver(ep.baseURL), { workspace });
    try {
      const stream = agent.stream("hi");
      const events = await collect(stream);
      expect(events.some((e) => e.type === "message.delta")).toBe(true);
      expect(events.at(-1)!.type).toBe("run.failed");
      await expect(stream.result).rejects.toMatchObject({ code: "provider_error", phase: "after_delivery" });
      expect(ep.bodies).toHaveLength(1);
    } finally {
      await agent.close();
      await ep.close();
    }
  });

  it("answers a 200 with an HTML page (a captive proxy) with a typed provider error, never a completed empty run", async () => {
    const html: Answer = (res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><html><body>Please sign in to the proxy</body></html>");
    };
    const ep = await endpoint([html]);
    const agent = createAgent(driver(ep.baseURL, { maxRetries: 1 }), { workspace });
    try {
      const stream = agent.stream("hi");
      const events = await collect(stream);
      expect(events.at(-1)!.type).toBe("run.failed");
      const error = await stream.result.then(() => undefined, (e: unknown) => e as { code?: string; name?: string; message?: string });
      expect(error).toMatchObject({ code: "malformed_response", retryable: false });
      // It says what came back and what was expected, and shows the page's text.
      expect(error!.message).toContain("content type text/html, not an event stream");
      expect(error!.message).toContain("baseURL");
      expect(error!.message).toContain('"Please sign in to the proxy"');
      // The same page would come back: no retry.
      expect(ep.bodies).toHaveLength(1);
    } finally {
      await agent.close();
      await ep.close();
    }
  });

  it("shows no more of an unexpected page than a short redacted excerpt of its start", async () => {
    process.env.OAI_WIRE_PAGE_KEY = "sk-wirepagekey0123456789abcdef";
    const page: Answer = (res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      // The key echoed near the start, a long page, and a marker far past the excerpt.
      res.end(`<html><head><style>body { color: red }</style></head><body>Signed in as ${process.env.OAI_WIRE_PAGE_KEY} ${"filler ".repeat(2000)} FAR-PAST-THE-EXCERPT</body></html>`);
    };
    const ep = await endpoint([page]);
    const agent = createAgent(driver(ep.baseURL, { apiKeyEnv: "OAI_WIRE_PAGE_KEY" }), { workspace });
    try {
      const error = await agent.run("hi").then(() => undefined, (e: unknown) => e as Error);
      expect(error).toMatchObject({ code: "malformed_response" });
      expect(error!.message).toContain("Signed in as");
      expect(error!.message).not.toContain("wirepagekey");
      expect(error!.message).not.toContain("color: red");
      expect(error!.message).not.toContain("FAR-PAST-THE-EXCERPT");
      expect(error!.message.length).toBeLessThan(500);
      expect(String((error as { cause?: unknown }).cause)).not.toContain("wirepagekey");
    } finally {
      delete process.env.OAI_WIRE_PAGE_KEY;
      await agent.close();
      await ep.close();
    }
  });

  it("names a whole JSON answer (a server ignoring stream: true) as not an event stream, on both APIs", async () => {
    const whole: Answer = (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "c1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "all at once" }, finish_reason: "stop" }] }));
    };
    for (const api of ["chat", "responses"] as const) {
      const ep = await endpoint([whole]);
      const agent = createAgent(driver(ep.baseURL, { api }), { workspace });
      try {
        const error = await agent.run("hi").then(() => undefined, (e: unknown) => e as Error);
        expect(error).toMatchObject({ code: "malformed_response", retryable: false });
        expect(error!.message).toContain("content type application/json, not an event stream");
        expect(ep.bodies).toHaveLength(1);
      } finally {
        await agent.close();
        await ep.close();
      }
    }
  });

  it("says a body without a content type and without a single event held none, without a retry", async () => {
    const bare: Answer = (res) => {
      res.removeHeader("content-type");
      res.writeHead(200);
      res.end("just some text\n\nand more\n\n");
    };
    const ep = await endpoint([bare]);
    const agent = createAgent(driver(ep.baseURL), { workspace });
    try {
      const error = await agent.run("hi").then(() => undefined, (e: unknown) => e as Error);
      expect(error).toMatchObject({ code: "malformed_response", retryable: false });
      expect(error!.message).toContain("no content type, not an event stream");
      expect(ep.bodies).toHaveLength(1);
    } finally {
      await agent.close();
      await ep.close();
    }
  });

  it("reads events a server labels text/plain, and names that type when such a body held none", async () => {
    const labelled = (events: string[]): Answer => (res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      for (const e of events) res.write(e);
      res.end();
    };
    const ep = await endpoint([labelled([chunk({ role: "assistant", content: "plain label" }), finish("stop"), "data: [DONE]\n\n"]), labelled(["Service starting, try again\n"])]);
    const agent = createAgent(driver(ep.baseURL), { workspace });
    try {
      expect((await agent.run("hi")).text).toBe("plain label");
      const error = await agent.run("again").then(() => undefined, (e: unknown) => e as Error);
      expect(error).toMatchObject({ code: "malformed_response", retryable: false });
      expect(error!.message).toContain("content type text/plain, not an event stream");
      expect(ep.bodies).toHaveLength(2);
    } finally {
      await agent.close();
      await ep.close();
    }
  });

  it("retries an event stream that ends before its first event (a cut stream), and says so", async () => {
    const empty: Answer = (res) => sse(res, ": keep-alive comment only\n\n");
    const ep = await endpoint([empty, text("second time")]);
    const agent = createAgent(driver(ep.baseURL), { workspace });
    try {
      const stream = agent.stream("hi");
      const events = await collect(stream);
      expect((await stream.result).text).toBe("second time");
      const retry = events.find((e) => e.type === "notice" && e.code === "provider_retry");
      expect(retry).toMatchObject({ message: expect.stringContaining("ended before its first event") });
      expect(ep.bodies).toHaveLength(2);
    } finally {
      await agent.close();
      await ep.close();
    }
  });

  it("fails, without a retry, on an error event after deltas (a 500 once streaming began)", async () => {
    const broken: Answer = (res) =>
      sse(res, chunk({ role: "assistant", content: "started " }), `data: ${JSON.stringify({ error: { message: "upstream worker crashed", type: "server_error", code: 500 } })}\n\n`);
    const ep = await endpoint([broken, text("must not be asked")]);
    const agent = createAgent(driver(ep.baseURL), { workspace });
    try {
      const stream = agent.stream("hi");
      const events = await collect(stream);
      expect(events.at(-1)!.type).toBe("run.failed");
      await expect(stream.result).rejects.toMatchObject({ phase: "after_delivery", message: expect.stringContaining("upstream worker crashed") });
      expect(ep.bodies).toHaveLength(1);
    } finally {
      await agent.close();
      await ep.close();
    }
  });

  it("gives a tool call without a name a tool error the model reads, instead of dropping it", async () => {
    const nameless: Answer = (res) =>
      sse(res, chunk({ role: "assistant", tool_calls: [{ index: 0, id: "nn1", type: "function", function: { arguments: "{}" } }] }), finish("tool_calls"), usage, "data: [DONE]\n\n");
    const ep = await endpoint([nameless, text("recovered")]);
    const agent = createAgent(driver(ep.baseURL), { workspace });
    try {
      const result = await agent.run("hi");
      expect(result.text).toBe("recovered");
      expect(ep.bodies).toHaveLength(2);
      expect(toolMessages(ep.bodies[1])).toEqual([expect.objectContaining({ tool_call_id: "nn1" })]);
    } finally {
      await agent.close();
      await ep.close();
    }
  });

  it("runs both calls of an answer that reuses a call id, and answers each under an id of its own", async () => {
    const twice: Answer = (res) =>
      sse(
        res,
        chunk({ role: "assistant", tool_calls: [{ index: 0, id: "dup", type: "function", function: { name: "list", arguments: "{}" } }] }),
        chunk({ tool_calls: [{ index: 1, id: "dup", type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } }] }),
        finish("tool_calls"),
        usage,
        "data: [DONE]\n\n",
      );
    const ep = await endpoint([twice, text("done")]);
    const agent = createAgent(driver(ep.baseURL), { workspace });
    try {
      const stream = agent.stream("hi");
      const events = await collect(stream);
      expect((await stream.result).text).toBe("done");
      const started = events.flatMap((e) => (e.type === "tool.started" ? [e.callId] : []));
      expect(started).toHaveLength(2);
      expect(new Set(started).size).toBe(2);
      const assistant = (ep.bodies[1] as { messages: Array<{ role: string; tool_calls?: Array<{ id: string }> }> }).messages.find((m) => m.role === "assistant")!;
      const ids = assistant.tool_calls!.map((c) => c.id);
      expect(new Set(ids).size).toBe(2);
      expect(toolMessages(ep.bodies[1]).map((m) => m.tool_call_id)).toEqual(ids);
    } finally {
      await agent.close();
      await ep.close();
    }
  });
});
