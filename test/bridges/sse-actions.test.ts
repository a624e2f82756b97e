/**
 * The SSE bridge's answer endpoint: bodies validated with zod, each answer form reaching the
 * run's stream, and every refusal a typed 4xx JSON answer (never the values sent, never a stack).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, type Agent, type RunStream } from "../../src/index.js";
import type { AgentEvent } from "../../src/events/public.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { sseActionsHandler, sseActionsNodeHandler, type RequestAnswerer } from "../../src/bridges/sse/index.js";
import { startServer, type TestServer } from "./sse-helpers.js";

const APPROVE: FakeRunScript = {
  steps: [
    { markDelivered: true },
    {
      approve: {
        requestId: "req-1",
        kind: "command",
        summary: "Run `ls`",
        options: [
          { id: "allow", label: "Allow", kind: "allow_once" },
          { id: "deny", label: "Deny", kind: "deny" },
        ],
      },
    },
  ],
  text: "ok",
};

const ASK: FakeRunScript = {
  steps: [{ markDelivered: true }, { ask: { requestId: "ask-1", questions: [{ id: "db", question: "Which?", options: [{ label: "pg" }, { label: "sqlite" }] }] } }],
  text: "ok",
};

let agent: Agent | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  await agent?.close();
  agent = undefined;
  server = undefined;
});

/** A run waiting on its request, and its events so far. */
async function pending(script: FakeRunScript): Promise<{ stream: RunStream; events: AgentEvent[]; done: Promise<void> }> {
  agent = createAgent(fakeDriver({ script }), { defaults: { onApproval: "stream", onUserInput: "stream" } });
  const stream = agent.stream("x");
  const events: AgentEvent[] = [];
  let waiting!: () => void;
  const asked = new Promise<void>((resolve) => (waiting = resolve));
  const done = (async () => {
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval.requested" || event.type === "question.requested") waiting();
    }
  })();
  await asked;
  return { stream, events, done };
}

function call(handler: (request: Request) => Promise<Response>, body: unknown, init: RequestInit = {}): Promise<Response> {
  return handler(new Request("http://localhost/answers", { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), ...init }));
}

describe("sseActionsHandler", () => {
  it("answers an approval with an offered option; a second answer is 409 request_not_pending; the run completes", async () => {
    const { stream, events, done } = await pending(APPROVE);
    const handler = sseActionsHandler({ resolve: ({ runId }) => (runId === stream.runId ? stream : undefined) });
    const first = await call(handler, { runId: stream.runId, requestId: "req-1", optionId: "allow" });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("application/json");
    expect(await first.json()).toEqual({ ok: true, requestId: "req-1" });
    const again = await call(handler, { runId: stream.runId, requestId: "req-1", decision: "deny" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ ok: false, error: { code: "request_not_pending" } });
    await done;
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ by: "stream", decision: { decision: "allow", optionId: "allow" } });
    expect((await stream.result).text).toBe("ok");
  });

  it("an option not offered is 422 response_invalid and leaves the request pending for a valid answer", async () => {
    const { stream, events, done } = await pending(APPROVE);
    const handler = sseActionsHandler({ resolve: () => stream });
    const wrong = await call(handler, { runId: stream.runId, requestId: "req-1", optionId: "acceptForever" });
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toMatchObject({ ok: false, error: { code: "response_invalid" } });
    const deny = await call(handler, { runId: stream.runId, requestId: "req-1", approved: false, reason: "no" });
    expect(deny.status).toBe(200);
    await done;
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: { decision: "deny", message: "no" } });
  });

  it("answers and declines questions", async () => {
    const answered = await pending(ASK);
    const handler = sseActionsHandler({ resolve: () => answered.stream });
    expect((await call(handler, { runId: "r", requestId: "ask-1", answers: { db: "sqlite" } })).status).toBe(200);
    await answered.done;
    expect(answered.events.find((e) => e.type === "question.resolved")).toMatchObject({ answered: true, by: "stream" });
    await agent!.close();

    const declined = await pending(ASK);
    const handler2 = sseActionsHandler({ resolve: () => declined.stream });
    expect((await call(handler2, { sessionId: "s", requestId: "ask-1", decline: true })).status).toBe(200);
    await declined.done;
    expect(declined.events.find((e) => e.type === "question.resolved")).toMatchObject({ answered: false, by: "stream" });
  });

  it("refuses bad bodies with 400 body_invalid naming paths but not the values sent, unknown runs with 404, other methods with 405, big bodies with 413", async () => {
    const calls: string[] = [];
    const answerer: RequestAnswerer = { respond: () => calls.push("respond"), answer: () => calls.push("answer"), decline: () => calls.push("decline") };
    const handler = sseActionsHandler({ resolve: ({ runId }) => (runId === "known" ? answerer : undefined), maxBodyBytes: 1024 });
    const secret = "sk-SECRET-VALUE-123";
    const bad: unknown[] = [
      "not json",
      { runId: "known" },
      { requestId: "r" },
      { runId: "known", requestId: "r", decision: "maybe", message: secret },
      { runId: "known", requestId: "r", decision: "allow", answers: { a: "b" } },
      { runId: "known", requestId: "r", answers: { a: 1 } },
      { runId: "known", requestId: "r", decline: false },
      { runId: "known", requestId: "r", optionId: "x", token: secret },
    ];
    for (const body of bad) {
      const response = await call(handler, body);
      const text = await response.text();
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(JSON.parse(text)).toMatchObject({ ok: false, error: { code: "body_invalid" } });
      expect(text).not.toContain(secret);
    }
    expect(calls).toEqual([]);
    const missing = await call(handler, { runId: "other", requestId: "r", decision: "allow" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
    const get = await handler(new Request("http://localhost/answers"));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const big = await call(handler, { runId: "known", requestId: "r", decision: "deny", message: "x".repeat(4096) });
    expect(big.status).toBe(413);
    expect(calls).toEqual([]);
    expect((await call(handler, { runId: "known", requestId: "r", decision: "deny", message: "short" })).status).toBe(200);
    expect(calls).toEqual(["respond"]);
  });

  it("an unexpected failure of resolve is 500 internal_error without its message", async () => {
    const handler = sseActionsHandler({
      resolve: () => {
        throw new Error("db password=hunter2 rejected");
      },
    });
    const response = await call(handler, { runId: "r", requestId: "q", decision: "allow" });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: "internal_error" } });
    expect(text).not.toContain("hunter2");
  });

  it("the node:http handler takes a body a framework already parsed (express.json() style)", async () => {
    const calls: unknown[] = [];
    const answerer: RequestAnswerer = { respond: (id, d) => calls.push([id, d]), answer: () => undefined, decline: () => undefined };
    const handler = sseActionsNodeHandler({ resolve: () => answerer });
    server = await startServer(async (req, res) => {
      let text = "";
      for await (const chunk of req) text += String(chunk);
      Object.assign(req, { body: JSON.parse(text) as unknown });
      await handler(req, res);
    });
    const response = await fetch(`${server.url}/answers`, { method: "POST", body: JSON.stringify({ runId: "r", requestId: "q", decision: "deny", message: "no" }) });
    expect(response.status).toBe(200);
    expect(calls).toEqual([["q", { decision: "deny", message: "no" }]]);
  });

  it("the node:http handler answers the same over a real server", async () => {
    const { stream, done } = await pending(APPROVE);
    const handler = sseActionsNodeHandler({ resolve: ({ runId }) => (runId === stream.runId ? stream : undefined), maxBodyBytes: 512 });
    server = await startServer(handler);
    const post = (body: string) => fetch(`${server!.url}/answers`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect((await post("x".repeat(2048))).status).toBe(413);
    expect((await post("{")).status).toBe(400);
    expect((await fetch(`${server.url}/answers`)).status).toBe(405);
    const ok = await post(JSON.stringify({ runId: stream.runId, requestId: "req-1", decision: "allow" }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, requestId: "req-1" });
    await done;
    expect((await stream.result).text).toBe("ok");
  });
});
