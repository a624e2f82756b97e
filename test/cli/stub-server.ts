/**
 * A small stand-in for the attach server's HTTP contract (docs/server.md), in memory: bearer
 * auth, the session and thread routes the CLI calls, and a session event stream whose
 * connections a test can drop to exercise `Last-Event-ID` resume. It answers like the real
 * server (same paths, bodies and error shape); what a session does is up to the test.
 */
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { Hono, type Context } from "hono";

export interface StubSession {
  id: string;
  agent: string;
  state: string;
  gate: { open: true };
  guardrails: { spentUsd: number; spentTokens: number; budget: Record<string, never> };
  queued: string[];
  settings: Record<string, never>;
  threadId: string;
  lastSeq: number;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, string>;
  /** The session's log: `event` is the event's wire JSON. */
  log: { seq: number; event: { type: string } & Record<string, unknown> }[];
  pending: { requestId: string; runId: string }[];
  /** Question requests waiting, as `GET /pending` lists them. */
  questions: { requestId: string; runId: string; questions: Record<string, unknown>[] }[];
  answers: { requestId: string; body: unknown }[];
}

export interface StubServer extends AsyncDisposable {
  url: string;
  token: string;
  sessions: Map<string, StubSession>;
  threads: Map<string, Record<string, unknown>>;
  addSession(id: string, agent?: string): StubSession;
  /** Append to a session's log and send it to every open stream. */
  push(id: string, event: { type: string } & Record<string, unknown>): void;
  /** End every open event stream, as a dropped connection would. */
  dropStreams(): void;
  /** Connections made to /events, with the Last-Event-ID each sent. */
  eventRequests: (string | null)[];
  /** Session ids `interrupt` was called for. */
  interrupts: string[];
}

const NOW = "2026-01-01T00:00:00.000Z";

export async function startStubServer(token = "stub-token"): Promise<StubServer> {
  const sessions = new Map<string, StubSession>();
  const threads = new Map<string, Record<string, unknown>>();
  const streams = new Set<{ session: string; send(frame: string): void; end(): void }>();
  const eventRequests: (string | null)[] = [];
  const interrupts: string[] = [];
  const app = new Hono();
  const fail = (c: Context, status: 400 | 401 | 404 | 409, code: string, message: string) => c.json({ error: { code, message } }, status);
  const frame = (entry: StubSession["log"][number]) => `id: ${entry.seq}\nevent: ${entry.event.type}\ndata: ${JSON.stringify(entry.event)}\n\n`;
  const view = (s: StubSession) => {
    const { log: _log, pending: _pending, questions: _questions, answers: _answers, ...rest } = s;
    return rest;
  };

  app.use("/api/*", async (c, next) => {
    if (c.req.header("authorization") !== `Bearer ${token}`) return fail(c, 401, "unauthorized", "missing or wrong token");
    await next();
  });
  const session = (c: Context) => sessions.get(c.req.param("id") ?? "");

  app.get("/api/sessions", (c) => c.json({ sessions: [...sessions.values()].reverse().map(view) }));
  app.post("/api/sessions", async (c) => {
    const body = (await c.req.json()) as { agent?: string; id?: string };
    if (typeof body.agent !== "string") return fail(c, 400, "body_invalid", "agent: required");
    if (body.agent !== "fake") return fail(c, 404, "not_found", `no agent named ${body.agent}`);
    return c.json(view(stub.addSession(body.id ?? `s${sessions.size + 1}`, body.agent)), 201);
  });
  app.get("/api/sessions/:id", (c) => {
    const s = session(c);
    return s ? c.json(view(s)) : fail(c, 404, "not_found", "no such session");
  });
  app.post("/api/sessions/:id/submit", async (c) => {
    const s = session(c);
    if (!s) return fail(c, 404, "not_found", "no such session");
    if (s.state === "archived") return fail(c, 409, "session_archived", "the session is archived");
    const body = (await c.req.json()) as { text?: unknown };
    if (typeof body.text !== "string" || body.text === "") return fail(c, 400, "body_invalid", "text: required");
    const promptId = `p${s.queued.length + 1}`;
    s.queued.push(promptId);
    return c.json({ promptId }, 202);
  });
  app.post("/api/sessions/:id/interrupt", (c) => {
    const s = session(c);
    if (!s) return fail(c, 404, "not_found", "no such session");
    interrupts.push(s.id);
    return c.json({ wasRunning: s.state === "running" });
  });
  app.post("/api/sessions/:id/archive", (c) => {
    const s = session(c);
    if (!s) return fail(c, 404, "not_found", "no such session");
    s.state = "archived";
    stub.push(s.id, { type: "session.state", state: "archived" });
    return c.json(view(s));
  });
  app.get("/api/sessions/:id/pending", (c) => {
    const s = session(c);
    return s ? c.json({ approvals: s.pending, questions: s.questions }) : fail(c, 404, "not_found", "no such session");
  });
  app.post("/api/sessions/:id/questions/:requestId", async (c) => {
    const s = session(c);
    const requestId = c.req.param("requestId");
    if (!s || !s.questions.some((q) => q.requestId === requestId)) return fail(c, 404, "not_found", "no such request");
    s.answers.push({ requestId, body: await c.req.json() });
    s.questions = s.questions.filter((q) => q.requestId !== requestId);
    return c.json({ ok: true });
  });
  app.post("/api/sessions/:id/approvals/:requestId", async (c) => {
    const s = session(c);
    const requestId = c.req.param("requestId");
    if (!s || !s.pending.some((p) => p.requestId === requestId)) return fail(c, 404, "not_found", "no such request");
    s.answers.push({ requestId, body: await c.req.json() });
    s.pending = s.pending.filter((p) => p.requestId !== requestId);
    return c.json({ ok: true });
  });
  app.get("/api/sessions/:id/events", (c) => {
    const s = session(c);
    if (!s) return fail(c, 404, "not_found", "no such session");
    const last = c.req.header("last-event-id") ?? null;
    eventRequests.push(last);
    const after = Number(last ?? c.req.query("after") ?? 0);
    const encoder = new TextEncoder();
    let entry: { session: string; send(frame: string): void; end(): void } | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        entry = {
          session: s.id,
          send: (text) => controller.enqueue(encoder.encode(text)),
          end: () => {
            streams.delete(entry!);
            controller.close();
          },
        };
        controller.enqueue(encoder.encode("retry: 100\n\n: hello\n\n"));
        for (const logged of s.log) if (logged.seq > after) entry.send(frame(logged));
        streams.add(entry);
      },
      cancel() {
        streams.delete(entry!);
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  });

  app.get("/api/threads", (c) => c.json({ threads: [...threads.values()] }));
  app.get("/api/threads/:id", (c) => {
    const t = threads.get(c.req.param("id"));
    return t ? c.json(t) : fail(c, 404, "not_found", "no such thread");
  });
  app.get("/api/threads/:id/history", (c) => {
    const t = threads.get(c.req.param("id"));
    if (!t) return fail(c, 404, "not_found", "no such thread");
    return c.json({
      turns: [
        { turn: 2, runId: "r2", status: "failed", startedAt: NOW, endedAt: NOW, prompt: "second\nprompt", inputs: [], events: [] },
        { turn: 1, runId: "r1", status: "completed", startedAt: NOW, endedAt: NOW, prompt: "first", inputs: [], events: [{ type: "message.completed" }] },
      ],
    });
  });
  app.delete("/api/threads/:id", (c) => {
    const t = threads.get(c.req.param("id"));
    if (!t) return fail(c, 404, "not_found", "no such thread");
    if (t.leased) return fail(c, 409, "thread_busy", "a live session holds the thread");
    threads.delete(c.req.param("id"));
    return c.body(null, 204);
  });

  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as Server)) as Server;
  });
  const { port } = server.address() as AddressInfo;

  const stub: StubServer = {
    url: `http://127.0.0.1:${port}`,
    token,
    sessions,
    threads,
    eventRequests,
    interrupts,
    addSession(id, agent = "fake") {
      const created: StubSession = {
        id,
        agent,
        state: "idle",
        gate: { open: true },
        guardrails: { spentUsd: 0, spentTokens: 0, budget: {} },
        queued: [],
        settings: {},
        threadId: `thread-${id}`,
        lastSeq: 0,
        createdAt: NOW,
        updatedAt: NOW,
        metadata: {},
        log: [],
        pending: [],
        questions: [],
        answers: [],
      };
      sessions.set(id, created);
      return created;
    },
    push(id, event) {
      const s = sessions.get(id)!;
      const entry = { seq: s.log.length + 1, event };
      s.log.push(entry);
      s.lastSeq = entry.seq;
      if (event.type === "approval.requested") s.pending.push({ requestId: String(event.requestId), runId: "run_1" });
      if (event.type === "approval.resolved") s.pending = s.pending.filter((p) => p.requestId !== event.requestId);
      for (const stream of streams) if (stream.session === id) stream.send(frame(entry));
    },
    dropStreams() {
      for (const stream of [...streams]) stream.end();
    },
    async [Symbol.asyncDispose]() {
      for (const stream of [...streams]) stream.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return stub;
}

/** A test file's stand-in server and an empty state directory (so no real token file is read). */
export interface StubFixture {
  readonly stub: StubServer;
  readonly stateDir: string;
  /** `--url` and `--state-dir` pointing a client command at the stand-in. */
  target(): string[];
}

/** Starts the stand-in with `token` and a state directory before the file's tests; both go after them. */
export function useStubServer(token: string): StubFixture {
  let stub: StubServer | undefined;
  let stateDir: string | undefined;
  beforeAll(async () => {
    stub = await startStubServer(token);
    stateDir = await mkdtemp(join(tmpdir(), "aa-cli-state-"));
  });
  afterAll(async () => {
    await stub?.[Symbol.asyncDispose]();
    if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the stand-in server starts in beforeAll");
    return value;
  };
  return {
    get stub() {
      return started(stub);
    },
    get stateDir() {
      return started(stateDir);
    },
    target() {
      return ["--url", started(stub).url, "--state-dir", started(stateDir)];
    },
  };
}
