/**
 * The session routes over real HTTP against a fake-driver agent: create, list, show, submit,
 * steer, follow-up, interrupt, hold, pause, resume, pending requests, approvals and questions
 * answered over HTTP reaching the run, inspection, archive — and their refusals (400 bad body,
 * 404 unknown session / agent / request, 409 archived, 422 an answer that does not fit).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFrames, startServer, until, type TestServer } from "./helpers.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

interface View {
  id: string;
  agent: string;
  state: string;
  gate: { open: boolean; by?: string; reason?: string };
  queued: string[];
  inFlight?: { runId: string };
  lastSeq: number;
  metadata: Record<string, string>;
  settings: { model?: string; effort?: string };
  live: boolean;
}

async function create(body: Record<string, unknown> = {}): Promise<View> {
  const response = await s.api("/api/sessions", { json: { agent: "fake", ...body } });
  expect(response.status).toBe(201);
  return (await response.json()) as View;
}

const view = async (id: string): Promise<View> => (await (await s.api(`/api/sessions/${id}`)).json()) as View;
const idle = (id: string) => until(async () => ((await view(id)).state === "idle" ? true : undefined));

/** Every event type of the session's log so far (the log is replayed, then the stream is cut). */
async function eventTypes(id: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const { lastSeq } = await view(id);
  const abort = new AbortController();
  const response = await s.api(`/api/sessions/${id}/events`, { signal: abort.signal });
  const frames = await readFrames(response, (f) => (f.at(-1)?.id ?? 0) >= lastSeq, abort);
  return frames.map((f) => ({ type: f.event!, data: JSON.parse(f.data!) as Record<string, unknown> }));
}

describe("sessions", () => {
  it("creates a session for an agent, with metadata, model and effort, and lists it newest first", async () => {
    const first = await create({ id: "ses-one", metadata: { team: "a" }, model: "m-1", effort: "low", budget: { sessionUsd: 5 } });
    expect(first).toMatchObject({ id: "ses-one", agent: "fake", state: "created", metadata: { team: "a" }, settings: { model: "m-1", effort: "low" }, live: true });
    const second = await create();
    expect(second.id).toMatch(/^ses_/);
    const list = (await (await s.api("/api/sessions")).json()) as { sessions: View[] };
    expect(list.sessions.map((v) => v.id).slice(0, 2)).toEqual([second.id, "ses-one"]);
    const limited = (await (await s.api("/api/sessions?limit=1")).json()) as { sessions: View[] };
    expect(limited.sessions).toHaveLength(1);
    // A host-owned id with a slash is addressed percent-encoded.
    const slashed = await create({ id: "tenant-42/chat 7" });
    const path = `/api/sessions/${encodeURIComponent(slashed.id)}`;
    expect(await (await s.api(path)).json()).toMatchObject({ id: "tenant-42/chat 7" });
    expect((await s.api(`${path}/submit`, { json: { text: "hi" } })).status).toBe(202);
    const created = (await (await s.api("/api/sessions?state=created")).json()) as { sessions: View[] };
    expect(created.sessions.every((v) => v.state === "created")).toBe(true);
  });

  it("refuses bad bodies and queries with 400, unknown agents and sessions with 404, a taken id with 409", async () => {
    const bad = await s.api("/api/sessions", { json: { agent: "fake", idleSleepMs: "soon" } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "body_invalid", issues: [expect.objectContaining({ path: "idleSleepMs" })] } });
    const extra = await s.api("/api/sessions", { json: { agent: "fake", agnet: "x" } });
    expect(extra.status).toBe(400);
    const notJson = await s.api("/api/sessions", { method: "POST", body: "{not json", headers: { "content-type": "application/json" } });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: "body_invalid" } });
    const reserved = await s.api("/api/sessions", { json: { agent: "fake", metadata: { "agent-adaptor.agent": "x" } } });
    expect(reserved.status).toBe(400);
    const query = await s.api("/api/sessions?limit=zero");
    expect(query.status).toBe(400);
    expect(await query.json()).toMatchObject({ error: { code: "query_invalid" } });
    const agent = await s.api("/api/sessions", { json: { agent: "nobody" } });
    expect(agent.status).toBe(404);
    expect(await agent.json()).toEqual({ error: { code: "not_found", message: "no such agent" } });
    for (const path of ["", "/archive", "/pending", "/inspection", "/events"]) {
      const response = await s.api(`/api/sessions/nope${path}`, path === "/archive" ? { method: "POST" } : {});
      expect([path, response.status]).toEqual([path, 404]);
    }
    const submit = await s.api("/api/sessions/nope/submit", { json: { text: "hi" } });
    expect(submit.status).toBe(404);
    await create({ id: "taken" });
    const taken = await s.api("/api/sessions", { json: { agent: "fake", id: "taken" } });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ error: { code: "session_exists" } });
    const route = await s.api("/api/nothing-here");
    expect(route.status).toBe(404);
    expect(await route.json()).toMatchObject({ error: { code: "not_found" } });
  });

  it("submits a prompt (202) that runs to its end; the log has the run and the notices", async () => {
    const { id } = await create();
    const submitted = await s.api(`/api/sessions/${id}/submit`, { json: { text: "hello", from: "tester" } });
    expect(submitted.status).toBe(202);
    const { promptId } = (await submitted.json()) as { promptId: string };
    expect(promptId).toMatch(/^prm_/);
    await idle(id);
    const types = (await eventTypes(id)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["session.prompt_queued", "session.run_admitted", "run.started", "message.completed", "run.completed"]));
    const empty = await s.api(`/api/sessions/${id}/submit`, { json: { text: "" } });
    expect(empty.status).toBe(400);
  });

  it("answers an approval over HTTP: pending lists it, the decision reaches the run, then nothing is pending", async () => {
    const { id } = await create();
    await s.api(`/api/sessions/${id}/submit`, { json: { text: "please approve" } });
    const pending = await until(async () => {
      const body = (await (await s.api(`/api/sessions/${id}/pending`)).json()) as { approvals: { requestId: string; summary: string; options: unknown[]; runId: string }[] };
      return body.approvals.length > 0 ? body : undefined;
    });
    expect(pending.approvals[0]).toMatchObject({ requestId: "appr_1", summary: "run ls", options: [{ id: "allow" }, { id: "deny" }] });
    expect(pending.approvals[0]!.runId).toBe((await view(id)).inFlight?.runId);
    const unknown = await s.api(`/api/sessions/${id}/approvals/appr_other`, { json: { decision: "allow" } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "request_not_pending" } });
    const unfit = await s.api(`/api/sessions/${id}/approvals/appr_1`, { json: { optionId: "not-offered" } });
    expect(unfit.status).toBe(422);
    expect(await unfit.json()).toMatchObject({ error: { code: "response_invalid" } });
    const badBody = await s.api(`/api/sessions/${id}/approvals/appr_1`, { json: { decision: "maybe" } });
    expect(badBody.status).toBe(400);
    const answered = await s.api(`/api/sessions/${id}/approvals/appr_1`, { json: { decision: "deny", message: "not now" } });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ ok: true });
    await idle(id);
    const events = await eventTypes(id);
    expect(events.find((e) => e.type === "approval.resolved")?.data).toMatchObject({ requestId: "appr_1", decision: { decision: "deny" }, by: "stream" });
    // The provider side of the run received the decision.
    expect(events.find((e) => e.type === "notice" && e.data.code === "fake_approval")?.data).toMatchObject({ message: "decision: deny" });
    expect(events.some((e) => e.type === "run.completed")).toBe(true);
    expect(await (await s.api(`/api/sessions/${id}/pending`)).json()).toEqual({ approvals: [], questions: [] });
    const late = await s.api(`/api/sessions/${id}/approvals/appr_1`, { json: { decision: "allow" } });
    expect(late.status).toBe(404);
  });

  it("answers a question over HTTP, and declines another", async () => {
    const { id } = await create();
    await s.api(`/api/sessions/${id}/submit`, { json: { text: "ask me" } });
    const pending = await until(async () => {
      const body = (await (await s.api(`/api/sessions/${id}/pending`)).json()) as { questions: { requestId: string; questions: { id: string }[] }[] };
      return body.questions.length > 0 ? body : undefined;
    });
    expect(pending.questions[0]).toMatchObject({ requestId: "q_1", questions: [{ id: "colour", question: "Which colour?" }] });
    const bad = await s.api(`/api/sessions/${id}/questions/q_1`, { json: { answers: { colour: 3 } } });
    expect(bad.status).toBe(400);
    const answered = await s.api(`/api/sessions/${id}/questions/q_1`, { json: { answers: { colour: "blue" } } });
    expect(answered.status).toBe(200);
    await idle(id);
    const events = await eventTypes(id);
    expect(events.find((e) => e.type === "question.resolved")?.data).toMatchObject({ requestId: "q_1", answered: true, by: "stream" });
    expect(events.find((e) => e.type === "notice" && e.data.code === "fake_answer")?.data).toMatchObject({ message: JSON.stringify({ colour: "blue" }) });
    expect(events.filter((e) => e.type === "message.completed").at(-1)?.data).toMatchObject({ text: "after the question" });

    await s.api(`/api/sessions/${id}/submit`, { json: { text: "ask again" } });
    await until(async () => (((await (await s.api(`/api/sessions/${id}/pending`)).json()) as { questions: unknown[] }).questions.length > 0 ? true : undefined));
    const declined = await s.api(`/api/sessions/${id}/questions/q_1`, { json: { decline: true } });
    expect(declined.status).toBe(200);
    await idle(id);
    const after = await eventTypes(id);
    expect(after.filter((e) => e.type === "question.resolved").at(-1)?.data).toMatchObject({ answered: false, by: "stream" });
    const unknown = await s.api(`/api/sessions/${id}/questions/q_9`, { json: { decline: true } });
    expect(unknown.status).toBe(404);
  });

  it("steers, follows up, interrupts, holds, pauses and resumes", async () => {
    const { id } = await create();
    await s.api(`/api/sessions/${id}/submit`, { json: { text: "wait for me" } });
    await until(async () => ((await view(id)).inFlight ? true : undefined));

    const steer = await s.api(`/api/sessions/${id}/steer`, { json: { text: "look here" } });
    expect(steer.status).toBe(200);
    expect(await steer.json()).toEqual({ delivery: "next_run" });
    const follow = await s.api(`/api/sessions/${id}/follow-up`, { json: { text: "then this" } });
    expect(follow.status).toBe(200);
    expect(await follow.json()).toEqual({ ok: true });

    const hold = await s.api(`/api/sessions/${id}/hold`, { json: { reason: "checking" } });
    expect(await hold.json()).toEqual({ wasRunning: true });
    await until(async () => ((await view(id)).inFlight === undefined ? true : undefined));
    const held = await view(id);
    expect(held.gate).toMatchObject({ open: false, by: "hold", reason: "checking" });
    expect(held.queued.length).toBe(2);
    expect((await s.api(`/api/sessions/${id}/hold`, { json: {} })).status).toBe(400);

    const resume = await s.api(`/api/sessions/${id}/resume`, { json: { mode: "abandon" } });
    expect(await resume.json()).toEqual({ ok: true });
    expect((await view(id)).gate.open).toBe(true);
    expect((await s.api(`/api/sessions/${id}/resume`, { json: { mode: "later" } })).status).toBe(400);

    const pause = await s.api(`/api/sessions/${id}/pause`, { json: { reason: "lunch" } });
    expect(await pause.json()).toEqual({ ok: true });
    expect((await view(id)).gate).toMatchObject({ open: false, by: "pause", reason: "lunch" });
    await s.api(`/api/sessions/${id}/resume`, { json: { mode: "continue" } });

    await s.api(`/api/sessions/${id}/submit`, { json: { text: "wait again" } });
    await until(async () => ((await view(id)).inFlight ? true : undefined));
    const interrupt = await s.api(`/api/sessions/${id}/interrupt`, { method: "POST" });
    expect(await interrupt.json()).toEqual({ wasRunning: true });
    await idle(id);
    const idleInterrupt = await s.api(`/api/sessions/${id}/interrupt`, { method: "POST" });
    expect(await idleInterrupt.json()).toEqual({ wasRunning: false });
    const types = (await eventTypes(id)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["session.steer", "session.follow_up", "session.gate", "session.prompt_dropped", "run.cancelled"]));
  });

  it("shows the session agent's inspection", async () => {
    const { id } = await create();
    const response = await s.api(`/api/sessions/${id}/inspection`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ driver: { id: "fake" } });
  });

  it("archives: 200 with the archived view, then input is refused with 409 session_archived", async () => {
    const { id } = await create();
    const archived = await s.api(`/api/sessions/${id}/archive`, { method: "POST" });
    expect(archived.status).toBe(200);
    expect(await archived.json()).toMatchObject({ id, state: "archived" });
    for (const [path, json] of [
      ["submit", { text: "hi" }],
      ["steer", { text: "hi" }],
      ["follow-up", { text: "hi" }],
      ["pause", { reason: "x" }],
      ["hold", { reason: "x" }],
      ["resume", { mode: "continue" }],
    ] as const) {
      const response = await s.api(`/api/sessions/${id}/${path}`, { json });
      expect([path, response.status]).toEqual([path, 409]);
      expect(await response.json()).toMatchObject({ error: { code: "session_archived" } });
    }
    const listed = (await (await s.api("/api/sessions?state=archived")).json()) as { sessions: View[] };
    expect(listed.sessions.map((v) => v.id)).toContain(id);
  });
});

describe("a session whose agent changed since", () => {
  it("answers 409 thread_incompatible when the agent's workspace is not the session's any more", async () => {
    const first = await startServer();
    const stateDir = first.stateDir;
    try {
      expect((await first.api("/api/sessions", { json: { agent: "fake", id: "moved" } })).status).toBe(201);
      await first.server.close();
      // The same state directory, the agent `fake` now in another workspace.
      const second = await startServer({ stateDir });
      try {
        const refused = await second.api("/api/sessions/moved/submit", { json: { text: "hello" } });
        expect(refused.status).toBe(409);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("thread_incompatible");
        expect(second.logs.filter((line) => line.includes("internal error"))).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
