/** `GET /api/sessions/:id/queue`: the inbox with each message's text (bounded) and who queued it. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, until, type TestServer } from "./helpers.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
});

interface Queue {
  prompts: { promptId: string; kind: string; from?: string; text: string; truncated?: boolean; inputCount: number; queuedAt: string }[];
}

describe("the queue route", () => {
  it("lists held messages oldest first with their text and originator, long text cut at 2000 characters", async () => {
    expect((await s.api("/api/sessions", { json: { agent: "fake", id: "queued" } })).status).toBe(201);
    expect((await s.api("/api/sessions/queued/hold", { json: { reason: "reviewing" } })).status).toBe(200);
    const first = (await (await s.api("/api/sessions/queued/submit", { json: { text: "first <b>message</b>", from: "ci-bot" } })).json()) as { promptId: string };
    const long = "x".repeat(2500);
    const second = (await (await s.api("/api/sessions/queued/submit", { json: { text: long } })).json()) as { promptId: string };

    const queue = (await (await s.api("/api/sessions/queued/queue")).json()) as Queue;
    expect(queue.prompts.map((p) => p.promptId)).toEqual([first.promptId, second.promptId]);
    expect(queue.prompts[0]).toMatchObject({ kind: "prompt", from: "ci-bot", text: "first <b>message</b>", inputCount: 0 });
    expect(queue.prompts[0]!.truncated).toBeUndefined();
    expect(queue.prompts[1]).toMatchObject({ text: "x".repeat(2000), truncated: true });
    expect(queue.prompts[1]!.from).toBeUndefined();

    expect((await s.api("/api/sessions/queued/resume", { json: { mode: "continue" } })).status).toBe(200);
    await until(async () => (((await (await s.api("/api/sessions/queued/queue")).json()) as Queue).prompts.length === 0 ? true : undefined));
    expect((await s.api("/api/sessions/nope/queue")).status).toBe(404);
  });
});
