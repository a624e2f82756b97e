/**
 * GET /api/sessions/:id/events over real HTTP: a session of more than 1,000 events read by a client
 * that disconnects mid-stream (the fetch aborted) and reconnects with `Last-Event-ID`, or with
 * `?after=`: every seq from 1 to the last arrives exactly once, in order.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { readFrames, startServer, until, type Frame, type TestServer } from "./helpers.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

async function session(): Promise<string> {
  const response = await s.api("/api/sessions", { json: { agent: "fake" } });
  return ((await response.json()) as { id: string }).id;
}

const settled = (id: string) =>
  until(async () => {
    const v = (await (await s.api(`/api/sessions/${id}`)).json()) as { state: string; lastSeq: number };
    return v.state === "idle" ? v.lastSeq : undefined;
  });

/** Whether the frames reached the end of the run: `run.completed`, then the session's return to idle. */
function runEnded(frames: Frame[]): boolean {
  const done = frames.findIndex((f) => f.event === "run.completed");
  return done >= 0 && frames.slice(done).some((f) => f.event === "session.state" && JSON.parse(f.data!).state === "idle");
}

/**
 * Opens the stream, submits a 1,000-delta prompt, reads 300 frames, aborts the request, and
 * reconnects at once (the run may still be writing) as `resume(lastId)` says, until the run ended.
 */
async function readWithDisconnect(id: string, resume: (last: number) => { path: string; headers?: Record<string, string> }): Promise<Frame[]> {
  const first = new AbortController();
  const opened = await s.api(`/api/sessions/${id}/events`, { signal: first.signal });
  expect(opened.status).toBe(200);
  expect(opened.headers.get("content-type")).toMatch(/^text\/event-stream/);
  await s.api(`/api/sessions/${id}/submit`, { json: { text: "many deltas" } });
  const head = await readFrames(opened, (f) => f.length >= 300, first);
  expect(head.at(-1)!.id).toBe(300);
  const again = resume(300);
  const second = new AbortController();
  const reopened = await s.api(again.path, { signal: second.signal, ...(again.headers ? { headers: again.headers } : {}) });
  expect(reopened.status).toBe(200);
  const tail = await readFrames(reopened, runEnded, second);
  return [...head, ...tail];
}

function expectEverySeqOnce(frames: Frame[], end: number): void {
  const ids = frames.map((f) => f.id);
  expect(ids).toEqual(Array.from({ length: end }, (_, i) => i + 1));
  expect(frames.filter((f) => f.event === "message.delta")).toHaveLength(1000);
  expect(frames.filter((f) => f.event === "run.completed")).toHaveLength(1);
}

it("a client cut mid-stream resumes with Last-Event-ID: every seq 1..N exactly once, in order", async () => {
  const id = await session();
  const frames = await readWithDisconnect(id, (last) => ({ path: `/api/sessions/${id}/events`, headers: { "last-event-id": String(last) } }));
  const end = await settled(id);
  expect(end).toBeGreaterThan(1000);
  expectEverySeqOnce(frames, end);
});

it("resumes with ?after= (the header wins when both are sent)", async () => {
  const id = await session();
  const frames = await readWithDisconnect(id, (last) => ({ path: `/api/sessions/${id}/events?after=${last}` }));
  expectEverySeqOnce(frames, await settled(id));
  const abort = new AbortController();
  const both = await s.api(`/api/sessions/${id}/events?after=5`, { headers: { "last-event-id": "10" }, signal: abort.signal });
  const next = await readFrames(both, (f) => f.length >= 1, abort);
  expect(next[0]!.id).toBe(11);
});

it("refuses a malformed Last-Event-ID or ?after= with 400", async () => {
  const id = await session();
  const header = await s.api(`/api/sessions/${id}/events`, { headers: { "last-event-id": "abc" } });
  expect(header.status).toBe(400);
  const query = await s.api(`/api/sessions/${id}/events?after=-1`);
  expect(query.status).toBe(400);
  expect(await query.json()).toMatchObject({ error: { code: "query_invalid" } });
});
