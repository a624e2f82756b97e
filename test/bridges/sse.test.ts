/**
 * The SSE bridge with the protocol's own client (the `eventsource` package, a WHATWG EventSource)
 * against a real node:http server, runs of the fake driver: every event arrives once, in order,
 * with `id` = its sequence number, `event` = its type and `data` = its wire JSON; a client that
 * loses its connection mid-run resumes with `Last-Event-ID` and loses and duplicates nothing
 * (backed by an in-test replayable log until a session log backs it); a page that reconnects
 * itself resumes the same way; approvals are answered over the companion POST endpoint.
 */
import { EventSource } from "eventsource";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, type Agent } from "../../src/index.js";
import { EVENT_TYPES, exactAgentEventSchema, type AgentEvent } from "../../src/events/public.js";
import type { SessionEvent } from "../../src/session/types.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { sseActionsNodeHandler, writeSSE, type RequestAnswerer } from "../../src/bridges/sse/index.js";
import { ReplayLog } from "./sse-replay-log.js";
import { deferred, startServer, type TestServer } from "./sse-helpers.js";

const APPROVAL = {
  requestId: "req-1",
  kind: "command" as const,
  callId: "call-1",
  summary: "Run `ls`",
  options: [
    { id: "allow", label: "Allow", kind: "allow_once" as const },
    { id: "deny", label: "Deny", kind: "deny" as const },
  ],
};

/** Text with line breaks of every kind: one SSE data line each, joined back by the client. */
const MULTILINE = "first line\nsecond\r\nthird\rfourth\n\ndata: not a field\n";

const SCRIPT: FakeRunScript = {
  steps: [
    { markDelivered: true },
    { emit: { type: "reasoning.delta", itemId: "r1", text: "thinking" } },
    { emit: { type: "reasoning.completed", itemId: "r1", text: "thinking" } },
    { emit: { type: "message.delta", itemId: "m1", text: "Let me " } },
    { emit: { type: "message.delta", itemId: "m1", text: "look." } },
    { emit: { type: "message.completed", itemId: "m1", text: "Let me look." } },
    { emit: { type: "tool.started", callId: "call-1", kind: "command", title: "ls", command: "ls" } },
    { approve: APPROVAL },
    { emit: { type: "tool.updated", callId: "call-1", output: "a.txt\n" } },
    { emit: { type: "tool.completed", callId: "call-1", status: "completed", output: "a.txt\n", exitCode: 0 } },
    { emit: { type: "message.completed", itemId: "m2", text: MULTILINE } },
  ],
  text: MULTILINE,
};

let agent: Agent | undefined;
let server: TestServer | undefined;
const sources: EventSource[] = [];

afterEach(async () => {
  for (const source of sources.splice(0)) source.close();
  await server?.close();
  await agent?.close();
  server = undefined;
  agent = undefined;
});

interface Received {
  id: string;
  type: string;
  data: unknown;
}

/** An EventSource listening for every event type (and session notices); resolves at the run's terminal. */
function listen(url: string, init?: ConstructorParameters<typeof EventSource>[1]): { source: EventSource; received: Received[]; terminal: Promise<void>; onEvent: (fn: (r: Received) => void) => void } {
  const source = new EventSource(url, init);
  sources.push(source);
  const received: Received[] = [];
  const terminal = deferred();
  const hooks: ((r: Received) => void)[] = [];
  for (const type of [...EVENT_TYPES, "session.state"]) {
    source.addEventListener(type, (message) => {
      const entry = { id: message.lastEventId, type: message.type, data: JSON.parse(message.data) as unknown };
      received.push(entry);
      for (const hook of hooks) hook(entry);
      if (type === "run.completed" || type === "run.failed" || type === "run.cancelled") {
        source.close();
        terminal.resolve();
      }
    });
  }
  return { source, received, terminal: terminal.promise, onEvent: (fn) => hooks.push(fn) };
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

describe("toSSE over node:http, read by EventSource", () => {
  it("delivers every event of a run once, in order: id = seq, event = type, data = the wire JSON (multi-line text intact)", async () => {
    agent = createAgent(fakeDriver({ script: SCRIPT }), { defaults: { onApproval: "stream" } });
    const runs = new Map<string, RequestAnswerer>();
    const answer = sseActionsNodeHandler({ resolve: ({ runId }) => (runId === undefined ? undefined : runs.get(runId)) });
    server = await startServer(async (req, res) => {
      if (req.url === "/actions") return answer(req, res);
      const stream = agent!.stream("go");
      runs.set(stream.runId, stream);
      await writeSSE(res, stream, { request: req });
    });
    const client = listen(`${server.url}/events`);
    client.onEvent((entry) => {
      const event = entry.data as AgentEvent;
      if (event.type === "approval.requested") void post(`${server!.url}/actions`, { runId: event.runId, requestId: event.requestId, optionId: "allow" });
    });
    await client.terminal;

    const events = client.received.map((r) => r.data as AgentEvent);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(client.received.map((r) => r.id)).toEqual(events.map((e) => String(e.seq)));
    expect(client.received.map((r) => r.type)).toEqual(events.map((e) => e.type));
    for (const event of events) expect(exactAgentEventSchema.safeParse(event).success, event.type).toBe(true);
    expect(events.at(0)?.type).toBe("run.started");
    expect(events.at(-1)).toMatchObject({ type: "run.completed", result: { text: MULTILINE } });
    expect(events.find((e) => e.type === "message.completed" && e.itemId === "m2")).toMatchObject({ text: MULTILINE });
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ requestId: "req-1", by: "stream", decision: { optionId: "allow" } });
  });

  it("a connection lost mid-run is resumed by the client with Last-Event-ID: nothing lost, nothing twice", async () => {
    agent = createAgent(fakeDriver({ script: SCRIPT }), { defaults: { onApproval: "stream" } });
    const stream = agent.stream("go");
    const log = new ReplayLog(stream);
    const answer = sseActionsNodeHandler({ resolve: ({ sessionId }) => (sessionId === log.sessionId ? stream : undefined) });
    let connections = 0;
    const clientHasFour = deferred();
    server = await startServer(async (req, res) => {
      if (req.url === "/actions") return answer(req, res);
      connections++;
      if (connections === 1) {
        // The network drops once the client holds four events: the socket dies under it mid-run.
        let written = 0;
        const cut = async function* () {
          for await (const entry of log.events()) {
            if (written++ === 4) {
              await clientHasFour.promise;
              res.socket?.destroy();
              return;
            }
            yield entry;
          }
        };
        await writeSSE(res, cut(), { request: req, retryMs: 10 });
        return;
      }
      await writeSSE(res, log, { request: req, retryMs: 10 });
    });
    const client = listen(`${server.url}/events`);
    let lastBeforeDrop: string | undefined;
    client.source.addEventListener("error", () => (lastBeforeDrop ??= client.received.at(-1)?.id));
    client.onEvent((entry) => {
      if (client.received.length === 4) clientHasFour.resolve();
      const event = entry.data as AgentEvent;
      if (event.type === "approval.requested") void post(`${server!.url}/actions`, { sessionId: log.sessionId, requestId: event.requestId, decision: "allow" });
    });
    await client.terminal;
    await log.done;

    expect(connections).toBeGreaterThanOrEqual(2);
    const resumed = server.requests.filter((r) => r.path === "/events")[1]!;
    expect(lastBeforeDrop).toBe("4");
    expect(resumed.headers["last-event-id"]).toBe(lastBeforeDrop);
    expect(Number(lastBeforeDrop)).toBeLessThan(log.entries.length);
    expect(client.received.map((r) => Number(r.id))).toEqual(log.entries.map((e) => e.seq));
    expect(client.received.map((r) => r.data)).toEqual(log.entries.map((e) => JSON.parse(JSON.stringify(e.event)) as unknown));
    expect(client.received.at(-1)?.type).toBe("run.completed");
  });

  it("a page that closed its EventSource and opens a new one with the last id it saw resumes there; the run went on meanwhile", async () => {
    agent = createAgent(fakeDriver({ script: SCRIPT }), { defaults: { onApproval: "stream" } });
    const stream = agent.stream("go");
    const log = new ReplayLog(stream);
    server = await startServer((req, res) => writeSSE(res, log, { request: req }));
    const first = listen(`${server.url}/events`);
    const gotThree = deferred();
    first.onEvent(() => {
      if (first.received.length === 3) {
        first.source.close();
        gotThree.resolve();
      }
    });
    await gotThree.promise;
    const lastSeen = first.received.at(-1)!.id;
    // The run waits for its approval while no one watches: answered from elsewhere.
    while (!log.entries.some((e) => e.event.type === "approval.requested")) await new Promise((r) => setTimeout(r, 5));
    stream.respond("req-1", { decision: "allow" });
    const second = listen(`${server.url}/events`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "Last-Event-ID": lastSeen } }),
    });
    await second.terminal;
    await log.done;
    const seen = [...first.received, ...second.received].map((r) => Number(r.id));
    expect(seen).toEqual(log.entries.map((e) => e.seq));
    expect((await stream.result).text).toBe(MULTILINE);
    // Both subscriptions ended: the first one's close stopped its iteration.
    expect(log.subscribers).toBe(0);
  });

  it("a session log entry is framed with the session's seq as id and the inner event (or notice) as data", async () => {
    const entries: SessionEvent[] = [
      { seq: 7, sessionId: "s", at: 1, event: { type: "session.state", state: "running" } },
      { seq: 8, sessionId: "s", at: 2, event: { type: "run.started", seq: 0, runId: "run_1", at: 2, driver: "fake", schemaVersion: 1 } },
      { seq: 9, sessionId: "s", at: 3, event: { type: "run.cancelled", seq: 1, runId: "run_1", at: 3, reason: "stop" } },
    ];
    server = await startServer((req, res) => writeSSE(
        res,
        async function* (after) {
          yield* entries.filter((e) => e.seq > after);
        },
        { request: req },
      ));
    const client = listen(`${server.url}/events`);
    await client.terminal;
    expect(client.received).toEqual([
      { id: "7", type: "session.state", data: { type: "session.state", state: "running" } },
      { id: "8", type: "run.started", data: entries[1]!.event },
      { id: "9", type: "run.cancelled", data: entries[2]!.event },
    ]);
  });
});
