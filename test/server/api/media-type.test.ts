/**
 * A body must be declared JSON: anything else (or no content type at all) is refused as the
 * client's mistake with 415 `unsupported_media_type`, never a 500; a route without a body needs none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./helpers.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

async function refusal(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

describe("bodies not declared as JSON", () => {
  it("answers 415 unsupported_media_type, saying what to send, for another or a missing content type", async () => {
    const created = await s.api("/api/sessions", { json: { agent: "fake", id: "media" } });
    expect(created.status).toBe(201);
    const attempts = [
      s.api("/api/sessions", { method: "POST", body: JSON.stringify({ agent: "fake" }), headers: { "content-type": "application/x-www-form-urlencoded" } }),
      s.api("/api/sessions/media/submit", { method: "POST", body: JSON.stringify({ text: "hi" }), headers: { "content-type": "text/plain" } }),
      s.api("/api/sessions/media/submit", { method: "POST", body: new Blob([JSON.stringify({ text: "hi" })]) }),
    ];
    for (const response of await Promise.all(attempts)) {
      const answer = await refusal(response);
      expect(answer).toEqual({ status: 415, code: "unsupported_media_type", message: expect.stringContaining("content-type: application/json") });
    }
    expect(s.logs.filter((line) => line.includes("internal error"))).toEqual([]);
    // Nothing was queued by the refused submits.
    const view = (await (await s.api("/api/sessions/media")).json()) as { lastSeq: number; queued: string[]; state: string };
    expect(view.queued).toEqual([]);
    expect(view.state).toBe("created");
  });

  it("accepts a JSON content type with parameters, and a bodyless POST without any", async () => {
    const created = await s.api("/api/sessions", { method: "POST", body: JSON.stringify({ agent: "fake", id: "media-charset" }), headers: { "content-type": "application/json; charset=utf-8" } });
    expect(created.status).toBe(201);
    const interrupted = await s.api("/api/sessions/media-charset/interrupt", { method: "POST" });
    expect(interrupted.status).toBe(200);
    expect(await interrupted.json()).toEqual({ wasRunning: false });
  });

  it("lists 415 among every route's documented answers", async () => {
    const doc = (await (await s.api("/api/openapi.json")).json()) as { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };
    expect(doc.paths["/api/sessions/{id}/submit"]!.post!.responses["415"]!.description).toContain("unsupported_media_type");
  });
});
