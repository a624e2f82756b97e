/**
 * The SSE bridge's stream itself: what a gone reader stops (nothing but its own reading, unless
 * asked), heartbeat comments while idle, a failing source, `from` on a plain iterable, and the
 * hono helper served by @hono/node-server resuming a log with `Last-Event-ID` and stopping its
 * subscription when the client goes away.
 */
import { serve, type ServerType } from "@hono/node-server";
import { EventSource } from "eventsource";
import { Hono } from "hono";
import { get as httpGet, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, RunCancelledError, StoreError, type Agent } from "../../src/index.js";
import type { AgentEvent } from "../../src/events/public.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { honoSSE, SSE_HEADERS, sseResponse, toSSE, writeSSE } from "../../src/bridges/sse/index.js";
import { ReplayLog } from "./sse-replay-log.js";
import { deferred, startServer } from "./sse-helpers.js";

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

const decoder = new TextDecoder();

/** Read frames until `until` holds for the text so far. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: (text: string) => boolean): Promise<string> {
  let text = "";
  while (!until(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  return text;
}

const MANY: FakeRunScript = {
  steps: [{ markDelivered: true }, { deltas: { count: 200, text: "x", itemId: "m" } }, { emit: { type: "message.completed", itemId: "m", text: "x".repeat(200) } }],
  text: "x".repeat(200),
};

describe("toSSE", () => {
  it("a reader that cancels stops only its reading: the run goes on to run.completed (its events drained, never stalled)", async () => {
    agent = createAgent(fakeDriver({ script: MANY }), { events: { bufferSize: 4, overflow: "block" } });
    const stream = agent.stream("x");
    const reader = toSSE(stream, { heartbeatMs: 0 }).getReader();
    const text = await readUntil(reader, (t) => t.includes("event: message.delta"));
    expect(text.startsWith("retry: 2000\n\n")).toBe(true);
    await reader.cancel("page closed");
    expect((await stream.result).text).toBe("x".repeat(200));
  });

  it("cancelRunOnClose: a reader that cancels cancels the run", async () => {
    agent = createAgent(fakeDriver({ script: { steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "a" } }, { waitForAbort: true }] } }));
    const stream = agent.stream("x");
    const reader = toSSE(stream, { cancelRunOnClose: true, heartbeatMs: 0 }).getReader();
    await readUntil(reader, (t) => t.includes("event: message.delta"));
    await reader.cancel();
    await expect(stream.result).rejects.toBeInstanceOf(RunCancelledError);
  });

  it("sends heartbeat comments while the run waits, then the run's frames", async () => {
    agent = createAgent(
      fakeDriver({ script: { steps: [{ markDelivered: true }, { approve: { requestId: "r", kind: "tool", summary: "s", options: [{ id: "ok", label: "OK", kind: "allow_once" }] } }], text: "done" } }),
      { defaults: { onApproval: "stream" } },
    );
    const stream = agent.stream("x");
    const reader = toSSE(stream, { heartbeatMs: 5, retryMs: 0 }).getReader();
    const before = await readUntil(reader, (t) => t.includes("event: approval.requested") && t.endsWith(": keep-alive\n\n"));
    expect(before.startsWith("retry:")).toBe(false);
    stream.respond("r", { optionId: "ok" });
    const after = await readUntil(reader, (t) => t.includes("event: run.completed"));
    expect(after).toContain('"by":"stream"');
    expect((await reader.read()).done).toBe(true);
  });

  it("a failing source ends with one stream.error frame: a library error by its code and message, anything else by a fixed message", async () => {
    const started: AgentEvent = { type: "run.started", seq: 0, runId: "run_1", at: 1, driver: "fake", schemaVersion: 1 };
    async function* failing(error: Error): AsyncGenerator<AgentEvent> {
      yield started;
      throw error;
    }
    const frame = `id: 0\nevent: run.started\ndata: ${JSON.stringify(started)}\n\n`;
    const typed = await new Response(toSSE(failing(new StoreError("store_unavailable", "the store is gone")), { heartbeatMs: 0, retryMs: 0 })).text();
    expect(typed).toBe(`${frame}event: stream.error\ndata: {"code":"store_unavailable","message":"the store is gone"}\n\n`);
    const other = await new Response(toSSE(failing(new Error("connect postgres://u:hunter2@db failed")), { heartbeatMs: 0, retryMs: 0 })).text();
    expect(other).toBe(`${frame}event: stream.error\ndata: {"message":"the event source failed"}\n\n`);
  });

  it("from skips what a plain iterable already delivered; data is the wire JSON (undefined keys absent)", async () => {
    const events = [0, 1, 2, 3].map((seq) => ({ type: "notice", seq, runId: "r", at: 1, level: "info", code: "fake_notice", message: `n${seq}`, count: undefined }) as unknown as AgentEvent);
    const text = await new Response(toSSE(events, { from: 1, heartbeatMs: 0, retryMs: 0 })).text();
    expect(text.match(/^id: .*$/gm)).toEqual(["id: 2", "id: 3"]);
    expect(text).not.toContain("count");
  });

  it("sseResponse answers with the event-stream headers", () => {
    const response = sseResponse([], { headers: { "x-extra": "1", "content-type": "text/plain" } });
    expect(response.headers.get("content-type")).toBe(SSE_HEADERS["content-type"]);
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-extra")).toBe("1");
  });
});

describe("writeSSE", () => {
  it("honours backpressure: a client that does not read holds the run (it cannot finish), and once it reads every frame arrives intact", async () => {
    const count = 1000;
    const chunk = "y".repeat(8 * 1024);
    agent = createAgent(
      fakeDriver({ script: { steps: [{ markDelivered: true }, { deltas: { count, text: chunk, itemId: "m" } }, { emit: { type: "message.completed", itemId: "m", text: "end" } }], text: "end" } }),
      { events: { bufferSize: 4, overflow: "block" } },
    );
    let settled = false;
    let settledUnread: boolean | undefined;
    const server = await startServer(async (req, res) => {
      const stream = agent!.stream("x");
      void stream.result.finally(() => (settled = true)).catch(() => undefined);
      await writeSSE(res, stream, { request: req, heartbeatMs: 0 });
    });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const request = httpGet(`${server.url}/events`, (response) => {
          response.pause();
          let text = "";
          response.setEncoding("utf8");
          // Nothing is read for a while: the run stays held by the full socket, whatever the wait.
          setTimeout(() => {
            settledUnread = settled;
            response.on("data", (data: string) => (text += data));
            response.on("end", () => resolve(text));
            response.resume();
          }, 200);
        });
        request.on("error", reject);
      });
      expect(settledUnread).toBe(false);
      const deltas = body.split("\n\n").filter((frame) => frame.includes("event: message.delta"));
      expect(deltas).toHaveLength(count);
      for (const frame of deltas) expect(frame).toContain(`"text":"${chunk}"`);
      expect(body).toContain("event: run.completed");
      expect(settled).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe("honoSSE on @hono/node-server", () => {
  let server: ServerType | undefined;
  afterEach(async () => {
    (server as Server | undefined)?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it("resumes a log after Last-Event-ID and ends the log's subscription when the client goes away", async () => {
    agent = createAgent(
      fakeDriver({ script: { steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "a" } }, { approve: { requestId: "r", kind: "tool", summary: "s", options: [{ id: "ok", label: "OK", kind: "allow_once" }] } }], text: "done" } }),
      { defaults: { onApproval: "stream" } },
    );
    const stream = agent.stream("x");
    const log = new ReplayLog(stream);
    const app = new Hono();
    app.get("/events", (c) => honoSSE(c, log, { heartbeatMs: 0 }));
    const listening = deferred<number>();
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => listening.resolve(info.port));
    const url = `http://127.0.0.1:${await listening.promise}/events`;

    while (!log.entries.some((e) => e.event.type === "approval.requested")) await new Promise((r) => setTimeout(r, 5));
    const ids: string[] = [];
    const sawApproval = deferred();
    const source = new EventSource(url, { fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "Last-Event-ID": "1" } }) });
    for (const type of ["run.started", "message.delta", "approval.requested"]) {
      source.addEventListener(type, (m) => {
        ids.push(m.lastEventId);
        if (type === "approval.requested") sawApproval.resolve();
      });
    }
    await sawApproval.promise;
    expect(ids).toEqual(log.entries.slice(1).map((e) => String(e.seq)));
    expect(log.subscribers).toBe(1);
    source.close();
    // The client is gone: the request's signal ends the stream and with it the log's iteration.
    while (log.subscribers > 0) await new Promise((r) => setTimeout(r, 5));
    stream.respond("r", { optionId: "ok" });
    expect((await stream.result).text).toBe("done");
  });
});
