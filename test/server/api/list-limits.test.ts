/** The lists' limits as docs/server.md gives them: the newest 100 by default, 1 to 1000 when asked. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./helpers.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

const count = async (path: string): Promise<number> => ((await (await s.api(path)).json()) as { sessions: unknown[] }).sessions.length;

describe("list limits", () => {
  it("answers the newest 100 sessions without a limit, up to 1000 with one, and refuses more", async () => {
    for (let i = 0; i < 101; i++) expect((await s.api("/api/sessions", { json: { agent: "fake", id: `listed-${i}` } })).status).toBe(201);
    expect(await count("/api/sessions")).toBe(100);
    expect(await count("/api/sessions?limit=1000")).toBe(101);
    const newest = ((await (await s.api("/api/sessions?limit=1")).json()) as { sessions: { id: string }[] }).sessions[0]!.id;
    expect(newest).toBe("listed-100");
    for (const path of ["/api/sessions?limit=1001", "/api/threads?limit=1001", "/api/sessions?limit=0"]) {
      const refused = await s.api(path);
      expect([path, refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([path, 400, "query_invalid"]);
    }
  });
});
