/**
 * The console's stream follower against a real HTTP server writing the SSE bridge's frames
 * (`toSSE` over a session-shaped log), with connections cut mid-frame: every entry arrives once,
 * in order, resumed with `Last-Event-ID`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { followEvents, type StreamStatus } from "../../../console/src/event-stream.js";
import type { StreamEntry } from "../../../console/src/wire.js";
import { toSSE } from "../../../src/bridges/sse/index.js";
import type { SessionEvent } from "../../../src/session/types.js";

const TOTAL = 1000;

function logEntry(seq: number): SessionEvent {
  return { seq, sessionId: "ses_1", at: seq, event: { type: "message.delta", seq: seq - 1, runId: "run_1", at: seq, itemId: "m", text: `chunk ${seq} ` } };
}

interface Harness {
  url: string;
  /** The `Last-Event-ID` each request sent (undefined: none). */
  lastEventIds: (string | undefined)[];
  server: Server;
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  servers = [];
});

/** A server replaying the log after `Last-Event-ID`; `handle` may cut or refuse a request by its number. */
async function serve(handle: (n: number, req: IncomingMessage, res: ServerResponse) => { cutAfterBytes?: number; replayAll?: boolean } | "done"): Promise<Harness> {
  const lastEventIds: (string | undefined)[] = [];
  const server = createServer(async (req, res) => {
    const header = req.headers["last-event-id"];
    lastEventIds.push(typeof header === "string" ? header : undefined);
    const plan = handle(lastEventIds.length, req, res);
    if (plan === "done") return;
    const from = typeof header === "string" && plan.replayAll !== true ? Number(header) : 0;
    const source = (after: number) => (async function* () {
      for (let seq = after + 1; seq <= TOTAL; seq++) yield logEntry(seq);
    })();
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    const reader = toSSE(source, { from, heartbeatMs: 0 }).getReader();
    let sent = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (plan.cutAfterBytes !== undefined && sent + value.byteLength > plan.cutAfterBytes) {
        // Half a frame, then the connection drops.
        res.write(value.subarray(0, Math.max(1, Math.floor(value.byteLength / 2))));
        await reader.cancel();
        res.socket?.destroy();
        return;
      }
      sent += value.byteLength;
      if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
    }
    res.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/api/sessions/ses_1/events`, lastEventIds, server };
}

describe("console event stream follower", () => {
  it("resumes after dropped connections with Last-Event-ID: no entry lost, none twice", async () => {
    const harness = await serve((n) => (n <= 3 ? { cutAfterBytes: 20_000 * n } : {}));
    const abort = new AbortController();
    const seen: StreamEntry[] = [];
    const statuses: StreamStatus[] = [];
    const delays: number[] = [];
    await followEvents({
      url: harness.url,
      token: "tok",
      after: 0,
      signal: abort.signal,
      onEntries: (entries) => {
        seen.push(...entries);
        if (seen.length >= TOTAL) abort.abort();
      },
      onStatus: (status) => statuses.push(status),
      onFatal: (error) => {
        throw new Error(`unexpected refusal ${error.status}`);
      },
      sleep: async (ms) => void delays.push(ms),
      random: () => 0.5,
    });
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));
    expect(seen.map((e) => (e.event as { text: string }).text).join("")).toBe(Array.from({ length: TOTAL }, (_, i) => `chunk ${i + 1} `).join(""));
    // Three cuts, each resumed from the last entry seen before it.
    expect(harness.lastEventIds).toHaveLength(4);
    expect(harness.lastEventIds[0]).toBeUndefined();
    const resumedFrom = harness.lastEventIds.slice(1).map(Number);
    expect(resumedFrom.every((id, i) => id > 0 && (i === 0 || id > resumedFrom[i - 1]!))).toBe(true);
    expect(statuses.filter((s) => s === "reconnecting")).toHaveLength(3);
    expect(statuses.at(-1)).toBe("closed");
    expect(delays).toHaveLength(3);
  });

  it("drops entries a replay repeats, when a server resumes too early", async () => {
    // This server ignores Last-Event-ID and replays the whole log on every connection.
    const harness = await serve((n) => ({ replayAll: true, ...(n === 1 ? { cutAfterBytes: 30_000 } : {}) }));
    const seen: number[] = [];
    const abort = new AbortController();
    await followEvents({
      url: harness.url,
      token: "tok",
      after: 0,
      signal: abort.signal,
      onEntries: (entries) => {
        seen.push(...entries.map((e) => e.seq));
        if (seen.length >= TOTAL) abort.abort();
      },
      onStatus: () => undefined,
      onFatal: () => undefined,
      sleep: async () => undefined,
    });
    expect(seen).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));
    expect(harness.lastEventIds).toHaveLength(2);
    expect(Number(harness.lastEventIds[1])).toBeGreaterThan(0);
  });

  it("stops at a refusal retrying cannot fix, and sends the token as a bearer header", async () => {
    const auth: (string | undefined)[] = [];
    const harness = await serve((_n, req, res) => {
      auth.push(req.headers.authorization);
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "unauthorized", message: "missing or wrong token" } }));
      return "done";
    });
    const fatal: { status: number; code: string }[] = [];
    const statuses: StreamStatus[] = [];
    await followEvents({
      url: harness.url,
      token: "tok-xyz",
      after: 7,
      signal: new AbortController().signal,
      onEntries: () => undefined,
      onStatus: (s) => statuses.push(s),
      onFatal: (e) => fatal.push({ status: e.status, code: e.code }),
      sleep: async () => undefined,
    });
    expect(fatal).toEqual([{ status: 401, code: "unauthorized" }]);
    expect(auth).toEqual(["Bearer tok-xyz"]);
    expect(harness.lastEventIds).toEqual(["7"]);
    expect(statuses).toEqual(["connecting", "closed"]);
  });

  it("retries a server error and a stream.error frame, then resumes", async () => {
    const harness = await serve((n, _req, res) => {
      if (n === 1) {
        res.writeHead(503).end();
        return "done";
      }
      if (n === 2) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(`id: 1\nevent: message.delta\ndata: ${JSON.stringify(logEntry(1).event)}\n\nevent: stream.error\ndata: {"code":"internal_error"}\n\n`);
        return "done";
      }
      return {};
    });
    const seen: number[] = [];
    const abort = new AbortController();
    let reconnects = 0;
    await followEvents({
      url: harness.url,
      token: "t",
      after: 0,
      signal: abort.signal,
      onEntries: (entries) => {
        seen.push(...entries.map((e) => e.seq));
        if (seen.length >= TOTAL) abort.abort();
      },
      onStatus: (s) => void (s === "reconnecting" && reconnects++),
      onFatal: () => undefined,
      sleep: async () => undefined,
    });
    expect(seen).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));
    expect(harness.lastEventIds).toEqual([undefined, undefined, "1"]);
    expect(reconnects).toBe(2);
  });

  it("ends when aborted while the stream is idle (another session selected)", async () => {
    const open: ServerResponse[] = [];
    const harness = await serve((_n, _req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": idle\n\n");
      open.push(res);
      return "done";
    });
    const abort = new AbortController();
    const statuses: StreamStatus[] = [];
    await followEvents({
      url: harness.url,
      token: "t",
      after: 0,
      signal: abort.signal,
      onEntries: () => undefined,
      onStatus: (s) => {
        statuses.push(s);
        if (s === "live") abort.abort();
      },
      onFatal: () => undefined,
      sleep: async () => undefined,
    });
    expect(statuses).toEqual(["connecting", "live", "closed"]);
    for (const res of open) res.destroy();
  });
});
