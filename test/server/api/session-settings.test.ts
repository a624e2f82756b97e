/**
 * What an operator changes on a session over HTTP: a tripped session budget raised
 * (`POST /budget`), a tripped run ceiling cleared (`POST /reset-run-ceiling`), the model and
 * effort of later runs (`POST /configure`) — each answering the session as it is now.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_SCRIPTS, readFrames, startServer, tempDir, until, type TestServer } from "./helpers.js";

/** A run that reports 110 tokens (60 in, 50 out) and answers. */
const SPEND = {
  promptContains: "spend",
  script: {
    steps: [
      { markDelivered: true },
      { emit: { type: "usage.observed", usage: { input_tokens: 60, output_tokens: 50 } } },
      { emit: { type: "message.completed", itemId: "m1", text: "spent" } },
    ],
  },
};

interface View {
  state: string;
  settings: { model?: string; effort?: string };
  guardrails: { spentTokens: number; budget: Record<string, number>; tripped?: { ceiling: string } };
  lastSeq: number;
}

let s: TestServer;
let workspace: string;
beforeAll(async () => {
  workspace = tempDir("aa-settings-");
  s = await startServer({ config: { agents: { fake: { driver: "fake", workspace, options: { scripts: [SPEND, ...FAKE_SCRIPTS] } } } } });
});
afterAll(async () => {
  await s.close();
  rmSync(workspace, { recursive: true, force: true });
});

const view = async (id: string): Promise<View> => (await (await s.api(`/api/sessions/${id}`)).json()) as View;
const error = async (response: Response): Promise<{ status: number; code: string }> => ({
  status: response.status,
  code: ((await response.json()) as { error: { code: string } }).error.code,
});

async function create(id: string, budget: Record<string, number>): Promise<void> {
  expect((await s.api("/api/sessions", { json: { agent: "fake", id, budget } })).status).toBe(201);
}

/** Submit `text` and read the session's events until its run ends; the run's end event type. */
async function run(id: string, text: string): Promise<string> {
  const from = (await view(id)).lastSeq;
  expect((await s.api(`/api/sessions/${id}/submit`, { json: { text } })).status).toBe(202);
  const abort = new AbortController();
  const ends = ["run.completed", "run.failed", "run.cancelled"];
  const frames = await readFrames(await s.api(`/api/sessions/${id}/events?after=${from}`, { signal: abort.signal }), (f) => f.some((x) => ends.includes(x.event ?? "")), abort);
  return frames.find((f) => ends.includes(f.event ?? ""))!.event!;
}

describe("raising a tripped budget", () => {
  it("raises the session token ceiling, which clears the trip, and the session runs again", async () => {
    await create("budget-tokens", { sessionTokens: 100 });
    await run("budget-tokens", "spend");
    const tripped = await until(async () => ((await view("budget-tokens")).guardrails.tripped ? view("budget-tokens") : undefined));
    expect(tripped.guardrails).toMatchObject({ spentTokens: 110, tripped: { ceiling: "sessionTokens" } });
    const refused = await s.api("/api/sessions/budget-tokens/submit", { json: { text: "spend" } });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: unknown }).error).toEqual({
      code: "budget_exhausted",
      message: "the session's sessionTokens ceiling is tripped: raise it with POST /api/sessions/:id/budget",
    });

    // A ceiling the session was created without cannot be raised; an empty or wrong body is refused.
    expect(await error(await s.api("/api/sessions/budget-tokens/budget", { json: { usd: 1 } }))).toEqual({ status: 400, code: "config_invalid" });
    for (const bad of [{}, { tokens: 0 }, { tokens: -5 }, { tokens: 1.5 }, { usd: "1" }, { tokens: 10, extra: true }]) {
      expect(await error(await s.api("/api/sessions/budget-tokens/budget", { json: bad }))).toEqual({ status: 400, code: "body_invalid" });
    }
    const raised = await s.api("/api/sessions/budget-tokens/budget", { json: { tokens: 100 } });
    expect(raised.status).toBe(200);
    const after = (await raised.json()) as View;
    expect(after.guardrails.budget).toEqual({ sessionTokens: 200 });
    expect(after.guardrails.tripped).toBeUndefined();
    expect(await run("budget-tokens", "hello")).toBe("run.completed");
  });

  it("raises the cost ceiling by usd", async () => {
    await create("budget-usd", { sessionUsd: 1 });
    const raised = await s.api("/api/sessions/budget-usd/budget", { json: { usd: 0.5 } });
    expect(raised.status).toBe(200);
    expect(((await raised.json()) as View).guardrails.budget).toEqual({ sessionUsd: 1.5 });
  });

  it("clears a tripped run ceiling, and leaves a session that tripped none as it was", async () => {
    await create("run-ceiling", { runTokens: 50 });
    await run("run-ceiling", "spend");
    await until(async () => ((await view("run-ceiling")).guardrails.tripped ? true : undefined));
    expect((await view("run-ceiling")).guardrails.tripped!.ceiling).toBe("runTokens");
    const refused = await s.api("/api/sessions/run-ceiling/submit", { json: { text: "hello" } });
    expect([refused.status, ((await refused.json()) as { error: { message: string } }).error.message]).toEqual([409, expect.stringContaining("POST /api/sessions/:id/reset-run-ceiling")]);
    const reset = await s.api("/api/sessions/run-ceiling/reset-run-ceiling", { method: "POST" });
    expect(reset.status).toBe(200);
    expect(((await reset.json()) as View).guardrails.tripped).toBeUndefined();
    expect(await run("run-ceiling", "hello")).toBe("run.completed");
    expect((await s.api("/api/sessions/run-ceiling/reset-run-ceiling", { method: "POST" })).status).toBe(200);
  });
});

describe("configuring later runs", () => {
  it("sets and clears the model and effort; refuses an empty or unknown body; 409 once archived", async () => {
    await create("configured", {});
    const set = await s.api("/api/sessions/configured/configure", { json: { model: "m-2", effort: "high" } });
    expect(set.status).toBe(200);
    expect(((await set.json()) as View).settings).toEqual({ model: "m-2", effort: "high" });
    const cleared = await s.api("/api/sessions/configured/configure", { json: { model: null } });
    expect(((await cleared.json()) as View).settings).toEqual({ effort: "high" });
    expect((await view("configured")).settings).toEqual({ effort: "high" });
    for (const bad of [{}, { model: "" }, { model: 3 }, { temperature: 1 }]) {
      expect(await error(await s.api("/api/sessions/configured/configure", { json: bad }))).toEqual({ status: 400, code: "body_invalid" });
    }
    expect(await error(await s.api("/api/sessions/nobody/configure", { json: { model: "m" } }))).toEqual({ status: 404, code: "not_found" });
    await s.api("/api/sessions/configured/archive", { method: "POST" });
    expect(await error(await s.api("/api/sessions/configured/configure", { json: { model: "m" } }))).toEqual({ status: 409, code: "session_archived" });
    expect(await error(await s.api("/api/sessions/configured/budget", { json: { tokens: 1 } }))).toEqual({ status: 409, code: "session_archived" });
    expect(await error(await s.api("/api/sessions/configured/reset-run-ceiling", { method: "POST" }))).toEqual({ status: 409, code: "session_archived" });
  });

  it("documents the three routes and their bodies in the OpenAPI document", async () => {
    const doc = (await (await s.api("/api/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    for (const path of ["/api/sessions/{id}/budget", "/api/sessions/{id}/reset-run-ceiling", "/api/sessions/{id}/configure"]) expect(doc.paths[path]?.post).toBeDefined();
    expect(doc.components.schemas).toHaveProperty("AddBudget");
    expect(doc.components.schemas).toHaveProperty("Configure");
  });
});
