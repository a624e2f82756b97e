/**
 * `GET /api/sessions?state=S&limit=N` filters on the state a session shows, which for a live
 * session may be ahead of its stored record: the page still holds N sessions when N match, and a
 * live session that matches only now is listed.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, until, type TestServer } from "./helpers.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
});

const ids = async (path: string): Promise<string[]> => ((await (await s.api(path)).json()) as { sessions: { id: string }[] }).sessions.map((v) => v.id);

describe("a session list filtered by state", () => {
  it("fills the page past a live session whose record lags, and lists that session under its live state", async () => {
    for (const id of ["older", "middle", "live-one"]) expect((await s.api("/api/sessions", { json: { agent: "fake", id } })).status).toBe(201);
    expect((await s.api("/api/sessions/live-one/submit", { json: { text: "wait here" } })).status).toBe(202);
    await until(async () => ((await ids("/api/sessions?state=running")).includes("live-one") ? true : undefined));

    // The record of the running session says `created` (as a record written behind the live state reads).
    const db = new Database(join(s.stateDir, "serve.db"));
    try {
      db.prepare("UPDATE sessions SET state = 'created' WHERE id = ?").run("live-one");
    } finally {
      db.close();
    }

    // The store's newest `created` record is the running session: two asked, two shown.
    expect(await ids("/api/sessions?state=created&limit=2")).toEqual(["middle", "older"]);
    expect(await ids("/api/sessions?state=running")).toEqual(["live-one"]);
    expect(await ids("/api/sessions?state=running&limit=1")).toEqual(["live-one"]);
    await s.api("/api/sessions/live-one/interrupt", { method: "POST" });
  });
});
