/**
 * Behaviour a user of the attach server relies on, seen from outside: the offline demo agent
 * answers every prompt of every session the same way (ask to run one command, then answer), however
 * sessions interleave and whatever was interrupted; the thread of a session that is not archived
 * cannot be deleted from under it; the event stream of an archived session ends and the server
 * stops driving it; a bridge cannot run turns on a session's thread; a tripped budget can be raised
 * over HTTP; a body not declared as JSON is a client error, never a 500.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fakeConfig, readFrames, startServer, tempDir, until, type Frame, type TestServer } from "../api/helpers.js";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Approval {
  requestId: string;
  kind: string;
}

async function created(s: TestServer, agent: string, id?: string): Promise<string> {
  const response = await s.api("/api/sessions", { json: { agent, ...(id !== undefined ? { id } : {}) } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

const approvalOf = (s: TestServer, id: string): Promise<Approval> =>
  until(async () => ((await (await s.api(`/api/sessions/${id}/pending`)).json()) as { approvals: Approval[] }).approvals[0]);

const lastSeq = async (s: TestServer, id: string): Promise<number> => ((await (await s.api(`/api/sessions/${id}`)).json()) as { lastSeq: number }).lastSeq;

/** The frames of the next run after `after`, up to its end (completed, failed or cancelled). */
async function runAfter(s: TestServer, id: string, after: number): Promise<Frame[]> {
  const abort = new AbortController();
  const ended = (f: Frame[]): boolean => f.some((x) => x.event === "run.completed" || x.event === "run.failed" || x.event === "run.cancelled");
  return readFrames(await s.api(`/api/sessions/${id}/events?after=${after}`, { signal: abort.signal }), ended, abort);
}

function expectAskedThenAnswered(frames: Frame[]): void {
  expect(frames.filter((f) => f.event === "run.failed").map((f) => f.data)).toEqual([]);
  expect(frames.some((f) => f.event === "approval.requested")).toBe(true);
  expect(frames.some((f) => f.event === "run.completed")).toBe(true);
  expect(JSON.parse(frames.filter((f) => f.event === "message.completed").at(-1)!.data!).text).toContain("## Done");
}

describe("the demo agent", () => {
  it("asks and answers in two sessions whose turns interleave, and asks again after an interrupted approval", async () => {
    const root = tempDir("aa-review-demo-");
    roots.push(root);
    const s = await startServer({ config: undefined, stateDir: join(root, "state") });
    try {
      const a = await created(s, "demo");
      const b = await created(s, "demo");
      const [fromA, fromB] = [await lastSeq(s, a), await lastSeq(s, b)];
      await s.api(`/api/sessions/${a}/submit`, { json: { text: "first session" } });
      const approvalA = await approvalOf(s, a);
      await s.api(`/api/sessions/${b}/submit`, { json: { text: "second session" } });
      const runB = runAfter(s, b, fromB);
      const approvalB = await Promise.race([approvalOf(s, b), runB.then(() => undefined)]);
      expect(approvalB, "the second session's run ended without asking").toBeDefined();
      await s.api(`/api/sessions/${a}/approvals/${approvalA.requestId}`, { json: { decision: "allow" } });
      await s.api(`/api/sessions/${b}/approvals/${approvalB!.requestId}`, { json: { decision: "deny" } });
      expectAskedThenAnswered(await runAfter(s, a, fromA));
      expectAskedThenAnswered(await runB);

      const c = await created(s, "demo");
      await s.api(`/api/sessions/${c}/submit`, { json: { text: "to be interrupted" } });
      await approvalOf(s, c);
      expect((await (await s.api(`/api/sessions/${c}/interrupt`, { method: "POST" })).json()) as unknown).toEqual({ wasRunning: true });
      await until(async () => ((await (await s.api(`/api/sessions/${c}`)).json()) as { state: string }).state === "idle" || undefined);
      const fromC = await lastSeq(s, c);
      await s.api(`/api/sessions/${c}/submit`, { json: { text: "after the interrupt" } });
      const next = runAfter(s, c, fromC);
      const approvalC = await Promise.race([approvalOf(s, c), next.then(() => undefined)]);
      expect(approvalC, "the prompt after an interrupt was answered without asking").toBeDefined();
      await s.api(`/api/sessions/${c}/approvals/${approvalC!.requestId}`, { json: { decision: "allow" } });
      expectAskedThenAnswered(await next);
    } finally {
      await s.close();
    }
  });
});

describe("threads and archived sessions", () => {
  it("refuses to delete the thread of a session that is not archived, and deletes it once archived", async () => {
    const s = await startServer();
    try {
      const id = await created(s, "fake", "review-thread");
      const from = await lastSeq(s, id);
      await s.api(`/api/sessions/${id}/submit`, { json: { text: "hello" } });
      expect((await runAfter(s, id, from)).some((f) => f.event === "run.completed")).toBe(true);
      // Between runs: the run's lease is released, the session (idle, not archived) still drives the thread.
      await until(async () => (((await (await s.api(`/api/threads/${id}`)).json()) as { leased: boolean }).leased ? undefined : true));
      const refused = await s.api(`/api/threads/${id}`, { method: "DELETE" });
      expect(refused.status).toBe(409);
      const next = await lastSeq(s, id);
      await s.api(`/api/sessions/${id}/submit`, { json: { text: "hello again" } });
      const frames = await runAfter(s, id, next);
      expect(frames.filter((f) => f.event === "run.failed").map((f) => f.data)).toEqual([]);
      await s.api(`/api/sessions/${id}/archive`, { method: "POST" });
      expect((await s.api(`/api/threads/${id}`, { method: "DELETE" })).status).toBe(204);
    } finally {
      await s.close();
    }
  });

  it("ends the event stream of an archived session after its last event", async () => {
    const s = await startServer();
    try {
      const id = await created(s, "fake", "review-archived");
      await s.api(`/api/sessions/${id}/archive`, { method: "POST" });
      const end = await lastSeq(s, id);
      const frames = await readFrames(await s.api(`/api/sessions/${id}/events`), () => false);
      expect(frames.filter((f) => f.id !== undefined).at(-1)!.id).toBe(end);
      expect(frames.some((f) => f.data !== undefined && JSON.parse(f.data).state === "archived")).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe("bodies that are not declared JSON", () => {
  it("refuses a body that is not declared JSON as a client error", async () => {
    const s = await startServer();
    try {
      const id = await created(s, "fake", "review-media");
      const attempts = [
        s.api("/api/sessions", { method: "POST", body: JSON.stringify({ agent: "fake" }), headers: { "content-type": "application/x-www-form-urlencoded" } }),
        s.api(`/api/sessions/${id}/submit`, { method: "POST", body: JSON.stringify({ text: "hi" }), headers: { "content-type": "text/plain" } }),
      ];
      for (const response of await Promise.all(attempts)) {
        expect([400, 415]).toContain(response.status);
        const body = (await response.json()) as { error: { code: string } };
        expect(["body_invalid", "unsupported_media_type"]).toContain(body.error.code);
      }
      expect(s.logs.filter((line) => line.includes("internal error"))).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe("what the server keeps driving", () => {
  it("lets go of a session once it is archived", async () => {
    const s = await startServer();
    try {
      const driven = async (): Promise<number> => ((await (await s.api("/api/health")).json()) as { sessions: number }).sessions;
      const before = await driven();
      const ids = [await created(s, "fake"), await created(s, "fake"), await created(s, "fake")];
      expect(await driven()).toBe(before + 3);
      for (const id of ids) expect((await s.api(`/api/sessions/${id}/archive`, { method: "POST" })).status).toBe(200);
      expect(await driven()).toBe(before);
    } finally {
      await s.close();
    }
  });

  it("refuses an AG-UI run on the thread of a session that is not archived", async () => {
    const root = tempDir("aa-review-agui-");
    roots.push(root);
    const s = await startServer({ config: fakeConfig(root, { server: { agUi: true } }) });
    try {
      const id = await created(s, "fake", "review-agui");
      await s.api(`/api/sessions/${id}/hold`, { json: { reason: "nothing runs now" } });
      const input = { threadId: id, runId: "r1", messages: [{ id: "m1", role: "user", content: "hello" }], tools: [], context: [], state: {}, forwardedProps: {} };
      const response = await s.api("/api/agents/fake/ag-ui", { json: input });
      await response.body?.cancel();
      expect(response.status).toBe(409);
      const history = (await (await s.api(`/api/threads/${encodeURIComponent(id)}/history`)).json()) as { turns: unknown[] };
      expect(history.turns).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe("a tripped budget", () => {
  it("names the route that lifts it, and raising it over HTTP lets the session run again", async () => {
    const root = tempDir("aa-review-budget-");
    roots.push(root);
    const s = await startServer({ config: undefined, stateDir: join(root, "state") });
    try {
      const id = "review-budget";
      expect((await s.api("/api/sessions", { json: { agent: "demo", id, budget: { sessionTokens: 1 } } })).status).toBe(201);
      await s.api(`/api/sessions/${id}/submit`, { json: { text: "hello" } });
      await until(async () => (((await (await s.api(`/api/sessions/${id}`)).json()) as { guardrails: { tripped?: unknown } }).guardrails.tripped ? true : undefined));
      await until(async () => (((await (await s.api(`/api/sessions/${id}`)).json()) as { state: string }).state === "idle" ? true : undefined));
      const refused = await s.api(`/api/sessions/${id}/submit`, { json: { text: "again" } });
      expect(refused.status).toBe(409);
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("budget_exhausted");
      expect(error.message).toContain("/budget");
      expect(error.message).not.toContain("addBudget()");
      expect((await s.api(`/api/sessions/${id}/budget`, { json: { tokens: 100_000 } })).status).toBe(200);
      expect((await s.api(`/api/sessions/${id}/submit`, { json: { text: "again" } })).status).toBe(202);
      expect((await approvalOf(s, id)).kind).toBe("command");
      await s.api(`/api/sessions/${id}/interrupt`, { method: "POST" });
    } finally {
      await s.close();
    }
  });
});
