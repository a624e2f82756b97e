/**
 * What the server keeps driving: an archived session is let go at once, and its event stream ends
 * after the `archived` notice (for a stream open at the time and for a new one); a session nobody
 * uses is closed after the idle period and opened again on demand, while one with a viewer or a
 * request waiting stays.
 */
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAttachServer, parseServerConfig } from "../../../src/server/index.js";
import { fakeConfig, readFrames, startServer, tempDir, until, type Frame, type TestServer } from "./helpers.js";

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function server(idleCloseMs?: number): Promise<TestServer> {
  const s = await startServer(idleCloseMs !== undefined ? { idleCloseMs } : {});
  servers.push(s);
  return s;
}

const driven = async (s: TestServer): Promise<number> => ((await (await s.api("/api/health")).json()) as { sessions: number }).sessions;
const view = async (s: TestServer, id: string): Promise<{ live: boolean; lastSeq: number; state: string }> =>
  (await (await s.api(`/api/sessions/${encodeURIComponent(id)}`)).json()) as { live: boolean; lastSeq: number; state: string };

async function create(s: TestServer, id: string): Promise<void> {
  expect((await s.api("/api/sessions", { json: { agent: "fake", id } })).status).toBe(201);
}

const isArchived = (f: Frame): boolean => f.event === "session.state" && JSON.parse(f.data!).state === "archived";

describe("archived sessions", () => {
  it("are let go at once: health counts the sessions driven now", async () => {
    const s = await server();
    const before = await driven(s);
    const ids = ["gone-1", "gone-2", "gone-3", "gone-4", "gone-5"];
    for (const id of ids) await create(s, id);
    expect(await driven(s)).toBe(before + ids.length);
    for (const id of ids) expect((await s.api(`/api/sessions/${id}/archive`, { method: "POST" })).status).toBe(200);
    expect(await driven(s)).toBe(before);
    for (const id of ids) expect(await view(s, id)).toMatchObject({ state: "archived", live: false });
    // Reading an archived session does not adopt it again; driving it is refused.
    expect(await (await s.api("/api/sessions/gone-1/pending")).json()).toEqual({ approvals: [], questions: [] });
    expect((await s.api("/api/sessions/gone-1/inspection")).status).toBe(200);
    expect((await s.api("/api/sessions/gone-1/archive", { method: "POST" })).status).toBe(200);
    const submit = await s.api("/api/sessions/gone-1/submit", { json: { text: "hello" } });
    expect(submit.status).toBe(409);
    expect(((await submit.json()) as { error: { code: string } }).error.code).toBe("session_archived");
    expect(await driven(s)).toBe(before);
  });

  it("ends a new event stream after replaying through the archived notice, from the start or from a later seq", async () => {
    const s = await server();
    await create(s, "replayed");
    const from = (await view(s, "replayed")).lastSeq;
    await s.api("/api/sessions/replayed/submit", { json: { text: "hello" } });
    await until(async () => ((await view(s, "replayed")).state === "idle" ? true : undefined));
    await s.api("/api/sessions/replayed/archive", { method: "POST" });
    const end = (await view(s, "replayed")).lastSeq;
    // `() => false`: only the server ending the response ends the read.
    const all = await readFrames(await s.api("/api/sessions/replayed/events"), () => false);
    const ids = all.filter((f) => f.id !== undefined).map((f) => f.id!);
    expect(ids).toEqual(Array.from({ length: end }, (_, i) => i + 1));
    expect(isArchived(all.filter((f) => f.id !== undefined).at(-1)!)).toBe(true);
    expect(all.some((f) => f.event === "run.completed")).toBe(true);
    const tail = await readFrames(await s.api(`/api/sessions/replayed/events?after=${from}`), () => false);
    expect(tail.filter((f) => f.id !== undefined).map((f) => f.id)).toEqual(ids.filter((id) => id > from));
    const none = await readFrames(await s.api("/api/sessions/replayed/events", { headers: { "last-event-id": String(end) } }), () => false);
    expect(none.filter((f) => f.id !== undefined)).toEqual([]);
  });

  it("ends a stream open when the session is archived, after the archived notice", async () => {
    const s = await server();
    await create(s, "watched");
    const response = await s.api("/api/sessions/watched/events");
    const reading = readFrames(response, () => false);
    // The stream is open (the session counts a viewer) before the archive.
    await s.api("/api/sessions/watched/submit", { json: { text: "hello" } });
    await until(async () => ((await view(s, "watched")).state === "idle" ? true : undefined));
    await s.api("/api/sessions/watched/archive", { method: "POST" });
    const frames = await reading;
    const last = frames.filter((f) => f.id !== undefined).at(-1)!;
    expect(isArchived(last)).toBe(true);
    expect(last.id).toBe((await view(s, "watched")).lastSeq);
  });
});

describe("idle sessions", () => {
  it("are closed after the idle period and opened again on demand; one watched or waiting for an answer stays", async () => {
    const s = await server(100);
    await create(s, "watched");
    await create(s, "waiting");
    const abort = new AbortController();
    const watching = readFrames(await s.api("/api/sessions/watched/events", { signal: abort.signal }), () => false, abort).catch(() => []);
    await s.api("/api/sessions/waiting/submit", { json: { text: "approve" } });
    const approval = await until(async () => ((await (await s.api("/api/sessions/waiting/pending")).json()) as { approvals: { requestId: string }[] }).approvals[0]);

    await create(s, "unused");
    await until(async () => ((await view(s, "unused")).live ? undefined : true));
    // Opened again on demand, and it runs; then closed again once unused.
    await s.api("/api/sessions/unused/submit", { json: { text: "hello" } });
    await until(async () => ((await view(s, "unused")).state === "idle" ? true : undefined));
    await until(async () => ((await view(s, "unused")).live ? undefined : true));
    // Two idle periods went by for the two sessions created earlier: both are still driven.
    expect((await view(s, "watched")).live).toBe(true);
    expect((await view(s, "waiting")).live).toBe(true);
    expect(await driven(s)).toBe(2);

    await s.api(`/api/sessions/waiting/approvals/${approval.requestId}`, { json: { decision: "allow" } });
    await until(async () => ((await view(s, "waiting")).state === "idle" ? true : undefined));
    await until(async () => ((await view(s, "waiting")).live ? undefined : true));
    abort.abort();
    await watching;
    await until(async () => ((await view(s, "watched")).live ? undefined : true));
    expect(await driven(s)).toBe(0);
    // The history survived the closes: the approved run completed.
    const events = await readFrames(await s.api("/api/sessions/waiting/events"), (f) => f.some((x) => x.event === "run.completed"));
    expect(events.some((f) => f.event === "run.completed")).toBe(true);
  });

  it("lets another server on the same store take a session over once the first has closed it", async () => {
    const a = await server(100);
    const b = await startServer({ stateDir: a.stateDir, config: fakeConfig(a.workspace) });
    servers.push(b);
    await create(a, "handed");
    const owned = await b.api("/api/sessions/handed/submit", { json: { text: "from b" } });
    expect(owned.status).toBe(409);
    expect(((await owned.json()) as { error: { code: string } }).error.code).toBe("session_owned");
    await until(async () => ((await view(a, "handed")).live ? undefined : true));
    expect((await b.api("/api/sessions/handed/submit", { json: { text: "from b" } })).status).toBe(202);
    await until(async () => ((await view(b, "handed")).state === "idle" ? true : undefined));
    const frames = await readFrames(await b.api("/api/sessions/handed/events"), (f) => f.some((x) => x.event === "run.completed"));
    expect(frames.some((f) => f.event === "run.completed")).toBe(true);
  });

  it("refuses an idle period that is not a positive integer", async () => {
    // Refused before anything is made: the state directory is never created.
    const stateDir = join(tmpdir(), `aa-idle-refused-${process.pid}`);
    for (const idleCloseMs of [0, -1, 1.5, 2 ** 31]) {
      await expect(createAttachServer({ idleCloseMs, stateDir, port: 0 })).rejects.toThrow(/idleCloseMs/);
    }
    expect(existsSync(stateDir)).toBe(false);
    expect(() => parseServerConfig({ server: { idleCloseMs: 0 }, agents: { demo: { driver: "demo" } } })).toThrow(/idleCloseMs/);
  });

  it("takes the idle period from the configuration's [server] idleCloseMs", async () => {
    const root = tempDir("aa-idle-config-");
    try {
      const s = await startServer({ config: fakeConfig(root, { server: { idleCloseMs: 50 } }) });
      try {
        await create(s, "configured-idle");
        await until(async () => ((await view(s, "configured-idle")).live ? undefined : true));
        expect(await driven(s)).toBe(0);
      } finally {
        await s.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
