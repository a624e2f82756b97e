/**
 * The SSE bridge backed by a real session's event log: an `eventsource` client whose connection
 * drops mid-run reconnects with `Last-Event-ID` (the session's seq) and receives the rest of the
 * log — nothing lost, nothing twice — while the run's approval, asked after the drop, is answered
 * through the answer endpoint by session id.
 */
import { EventSource } from "eventsource";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, createSession, type Agent, type Session } from "../../src/index.js";
import { EVENT_TYPES } from "../../src/events/public.js";
import type { SessionEvent } from "../../src/session/types.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { sseActionsNodeHandler, writeSSE } from "../../src/bridges/sse/index.js";
import { deferred, startServer, type TestServer } from "./sse-helpers.js";

const NOTICES = ["session.state", "session.prompt_queued", "session.prompt_dropped", "session.run_admitted", "session.steer", "session.gate", "session.budget", "session.run_interrupted", "session.handoff", "session.configured", "session.error", "session.follow_up"];

const SCRIPT: FakeRunScript = {
  steps: [
    { markDelivered: true },
    { deltas: { count: 6, text: "ab\n", itemId: "m1" } },
    { emit: { type: "message.completed", itemId: "m1", text: "ab\n".repeat(6) } },
    { emit: { type: "tool.started", callId: "c1", kind: "command", title: "ls", command: "ls" } },
    { approve: { requestId: "req-1", kind: "command", callId: "c1", summary: "Run `ls`", options: [{ id: "allow", label: "Allow", kind: "allow_once" }] } },
    { emit: { type: "tool.completed", callId: "c1", status: "completed", output: "a\n" } },
    { emit: { type: "message.completed", itemId: "m2", text: "done" } },
  ],
  text: "done",
};

let agent: Agent | undefined;
let session: Session | undefined;
let server: TestServer | undefined;
const sources: EventSource[] = [];
afterEach(async () => {
  for (const source of sources.splice(0)) source.close();
  await server?.close();
  await session?.close();
  await agent?.close();
  server = undefined;
  session = undefined;
  agent = undefined;
});

/** The session's log from the start through `lastSeq`. */
async function logThrough(lastSeq: number): Promise<SessionEvent[]> {
  const abort = new AbortController();
  const entries: SessionEvent[] = [];
  for await (const entry of session!.events({ after: 0, signal: abort.signal })) {
    entries.push(entry);
    if (entry.seq >= lastSeq) break;
  }
  abort.abort();
  return entries;
}

describe("toSSE over a session's event log", () => {
  it("a connection lost mid-run resumes with Last-Event-ID = the session seq: nothing lost, nothing twice", async () => {
    agent = createAgent(fakeDriver({ script: SCRIPT }));
    session = await createSession(agent, { run: { onApproval: "stream" } });
    const live = session;
    const answers = sseActionsNodeHandler({ resolve: ({ sessionId }) => (sessionId === live.id ? live : undefined) });
    const clientHasFour = deferred();
    let connections = 0;
    server = await startServer(async (req, res) => {
      if (req.url === "/answers") return answers(req, res);
      if (++connections > 1) return writeSSE(res, live, { request: req, retryMs: 10 });
      // The first connection dies under the client once it holds four events.
      async function* cut(): AsyncGenerator<SessionEvent> {
        let sent = 0;
        for await (const entry of live.events({ after: 0 })) {
          if (sent++ === 4) {
            await clientHasFour.promise;
            res.socket?.destroy();
            return;
          }
          yield entry;
        }
      }
      await writeSSE(res, cut(), { request: req, retryMs: 10 });
    });

    const source = new EventSource(`${server.url}/events`);
    sources.push(source);
    const received: { id: number; type: string; data: unknown }[] = [];
    const completed = deferred();
    let lastBeforeDrop: number | undefined;
    source.addEventListener("error", () => (lastBeforeDrop ??= received.at(-1)?.id));
    for (const type of [...EVENT_TYPES, ...NOTICES]) {
      source.addEventListener(type, (message) => {
        const data = JSON.parse(message.data) as { type: string; requestId?: string };
        received.push({ id: Number(message.lastEventId), type: message.type, data });
        if (received.length === 4) clientHasFour.resolve();
        if (data.type === "approval.requested") {
          void fetch(`${server!.url}/answers`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ sessionId: live.id, requestId: data.requestId, optionId: "allow" }) });
        }
        if (type === "run.completed") {
          source.close();
          completed.resolve();
        }
      });
    }
    await live.submit("go");
    await completed.promise;

    expect(lastBeforeDrop).toBe(received[3]!.id);
    const resumed = server.requests.filter((r) => r.path === "/events")[1]!;
    expect(resumed.headers["last-event-id"]).toBe(String(lastBeforeDrop));
    const log = await logThrough(received.at(-1)!.id);
    expect(received.map((r) => r.id)).toEqual(log.map((e) => e.seq));
    expect(received.map((r) => r.data)).toEqual(log.map((e) => JSON.parse(JSON.stringify(e.event)) as unknown));
    expect(received.map((r) => r.type)).toContain("session.run_admitted");
    expect(received.find((r) => r.type === "approval.resolved")?.data).toMatchObject({ by: "stream", decision: { optionId: "allow" } });
    // The drop came before the approval was asked: the run was in flight across the reconnect.
    expect(received.findIndex((r) => r.type === "approval.requested")).toBeGreaterThan(3);
  });
});
