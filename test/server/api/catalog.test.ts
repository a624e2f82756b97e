/**
 * The catalog routes over real HTTP (agents, an agent's inspection, threads list/show/history/
 * delete with their 404 and 409), and the OpenAPI document: 3.1, generated, listing exactly the
 * routes the app serves — so a route added without a schema fails here.
 */
import { readFileSync } from "node:fs";
import type { Hono } from "hono";
import { SERVER_ERROR_STATUS } from "../../../src/server/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, until, type TestServer } from "./helpers.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

const idle = (id: string) =>
  until(async () => (((await (await s.api(`/api/sessions/${id}`)).json()) as { state: string }).state === "idle" ? true : undefined));

describe("agents", () => {
  it("lists the configured agents and shows one's inspection; an unknown agent is 404", async () => {
    const agents = await s.api("/api/agents");
    expect(await agents.json()).toEqual({ agents: [{ name: "fake", driver: { id: "fake", name: "Fake driver" }, workspace: s.workspace }] });
    const inspection = await s.api("/api/agents/fake/inspection");
    expect(inspection.status).toBe(200);
    expect(await inspection.json()).toMatchObject({ driver: { id: "fake" }, environment: expect.any(Object) });
    expect((await s.api("/api/agents/nobody/inspection")).status).toBe(404);
  });
});

describe("threads", () => {
  it("lists, shows, pages the history of and deletes threads; 404 unknown; 409 while a session drives the thread", async () => {
    const { id } = (await (await s.api("/api/sessions", { json: { agent: "fake", id: "with-thread" } })).json()) as { id: string };
    await s.api(`/api/sessions/${id}/submit`, { json: { text: "hello" } });
    await idle(id);
    await s.api(`/api/sessions/${id}/submit`, { json: { text: "hello again" } });
    await idle(id);

    const listed = (await (await s.api("/api/threads")).json()) as { threads: { id: string; driver: string; leased: boolean }[] };
    expect(listed.threads).toContainEqual(expect.objectContaining({ id, driver: "fake", workspace: s.workspace }));
    const byAgent = (await (await s.api("/api/threads?agent=fake&limit=5")).json()) as { threads: { id: string }[] };
    expect(byAgent.threads.map((t) => t.id)).toContain(id);
    expect((await s.api("/api/threads?agent=nobody")).status).toBe(404);
    expect((await s.api("/api/threads?limit=0")).status).toBe(400);

    const shown = await s.api(`/api/threads/${id}`);
    expect(await shown.json()).toMatchObject({ id, driver: "fake", leased: false, metadata: expect.any(Object) });
    const history = (await (await s.api(`/api/threads/${id}/history?limit=1`)).json()) as { turns: { turn: number }[]; nextBefore?: number };
    expect(history.turns).toHaveLength(1);
    expect(history.nextBefore).toBeDefined();
    const older = (await (await s.api(`/api/threads/${id}/history?before=${history.nextBefore}`)).json()) as { turns: { turn: number }[] };
    expect(older.turns).toHaveLength(1);
    expect(older.turns[0]!.turn).toBeLessThan(history.turns[0]!.turn);
    for (const path of ["/api/threads/nope", "/api/threads/nope/history"]) expect((await s.api(path)).status).toBe(404);
    expect((await s.api("/api/threads/nope", { method: "DELETE" })).status).toBe(404);

    // An idle session still drives its thread.
    const idleBusy = await s.api(`/api/threads/${id}`, { method: "DELETE" });
    expect(idleBusy.status).toBe(409);
    expect(await idleBusy.json()).toMatchObject({ error: { code: "thread_busy" } });

    await s.api(`/api/sessions/${id}/submit`, { json: { text: "wait here" } });
    await until(async () => (((await (await s.api(`/api/threads/${id}`)).json()) as { leased: boolean }).leased ? true : undefined));
    const busy = await s.api(`/api/threads/${id}`, { method: "DELETE" });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: { code: "thread_busy" } });
    await s.api(`/api/sessions/${id}/interrupt`, { method: "POST" });
    await idle(id);
    await s.api(`/api/sessions/${id}/archive`, { method: "POST" });
    await until(async () => (((await (await s.api(`/api/threads/${id}`)).json()) as { leased: boolean }).leased ? undefined : true));
    const deleted = await s.api(`/api/threads/${id}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect((await s.api(`/api/threads/${id}`)).status).toBe(404);
  });
});

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 with the bearer scheme, and lists exactly the routes the app serves, each with responses", async () => {
    const response = await s.api("/api/openapi.json");
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      info: { title: string; version: string };
      paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
      security: unknown[];
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(doc.components.securitySchemes.bearer).toEqual({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(["SessionView", "ThreadView", "Error", "PendingApproval"]));

    const documented = Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    // What the app really routes under /api: every handler hono registered, middleware aside.
    const app = s.server.app as unknown as Hono;
    const served = [
      ...new Set(
        app.routes
          .filter((r) => r.path.startsWith("/api/") && r.method !== "ALL" && !r.path.includes("*"))
          .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, "{$1}")}`),
      ),
    ].sort();
    expect(documented).toEqual(served);
    expect(served).toHaveLength(28);
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect([method, path, Object.keys(operation.responses)]).toEqual([method, path, expect.arrayContaining(["401", "500"])]);
        if (method === "post" && !/archive|interrupt|reset-run-ceiling/.test(path)) expect([path, operation.requestBody]).toEqual([path, expect.anything()]);
      }
    }
    expect(doc.paths["/api/sessions/{id}/events"]!.get!.responses["200"]).toMatchObject({ content: { "text/event-stream": expect.any(Object) } });
    // Every reference points at a component the document holds.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const name of new Set(refs)) expect([name, doc.components.schemas[name] !== undefined]).toEqual([name, true]);
  });
});

describe("error codes", () => {
  it("docs/server.md lists every code the server answers with, under its status", () => {
    const doc = readFileSync(new URL("../../../docs/server.md", import.meta.url), "utf8");
    const table = doc.slice(doc.indexOf("## Errors"));
    for (const [code, status] of Object.entries(SERVER_ERROR_STATUS)) {
      const row = table.split("\n").find((line) => line.startsWith(`| ${status} |`));
      expect([code, row?.includes(`\`${code}\``)]).toEqual([code, true]);
    }
  });
});
