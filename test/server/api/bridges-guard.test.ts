/**
 * The protocol endpoints never run on the thread of a session that is not archived: an AG-UI
 * `threadId` or an A2A `contextId` naming it is refused with 409 `thread_busy`, nothing runs there
 * (even with the session's gate closed), while new thread ids and the thread of an archived
 * session are served.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeConfig, readFrames, startServer, tempDir, type TestServer } from "./helpers.js";

const workspace = tempDir("aa-server-bridges-guard-");
let s: TestServer;
beforeAll(async () => {
  s = await startServer({ config: fakeConfig(workspace, { server: { agUi: true, a2a: true } }) });
});
afterAll(async () => {
  await s?.close();
  rmSync(workspace, { recursive: true, force: true });
});

async function created(id: string): Promise<void> {
  expect((await s.api("/api/sessions", { json: { agent: "fake", id } })).status).toBe(201);
}

const turns = async (threadId: string): Promise<unknown[]> =>
  ((await (await s.api(`/api/threads/${encodeURIComponent(threadId)}/history`)).json()) as { turns: unknown[] }).turns;

const agUiInput = (threadId: string) => ({
  threadId,
  runId: `run-${threadId}`,
  messages: [{ id: "u1", role: "user", content: "hello from ag-ui" }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
});

const a2aSend = (contextId: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: `m-${contextId}`, contextId, role: "ROLE_USER", parts: [{ text: "hello from a2a" }] } },
});

const A2A_HEADERS = { "a2a-version": "1.0" };

async function refused(response: Response): Promise<void> {
  expect(response.status).toBe(409);
  expect(await response.json()).toEqual({ error: { code: "thread_busy", message: "a session drives this thread" } });
}

describe("AG-UI", () => {
  it("refuses a run on the thread of a session, held or idle, and runs on it once the session is archived", async () => {
    await created("guard-agui");
    await s.api("/api/sessions/guard-agui/hold", { json: { reason: "nothing runs now" } });
    await refused(await s.api("/api/agents/fake/ag-ui", { json: agUiInput("guard-agui") }));
    expect(await turns("guard-agui")).toEqual([]);
    await created("guard-agui-idle");
    await refused(await s.api("/api/agents/fake/ag-ui", { json: agUiInput("guard-agui-idle") }));
    expect(await turns("guard-agui-idle")).toEqual([]);

    expect((await s.api("/api/sessions/guard-agui/archive", { method: "POST" })).status).toBe(200);
    const response = await s.api("/api/agents/fake/ag-ui", { json: agUiInput("guard-agui") });
    expect(response.status).toBe(200);
    const types = (await readFrames(response, () => false)).flatMap((f) => (f.data ? [(JSON.parse(f.data) as { type: string }).type] : []));
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(await turns("guard-agui")).toHaveLength(1);
  });

  it("runs on a thread id no session drives, which then exists as a thread", async () => {
    const response = await s.api("/api/agents/fake/ag-ui", { json: agUiInput("bridge-only-thread") });
    expect(response.status).toBe(200);
    await readFrames(response, () => false);
    expect(await turns("bridge-only-thread")).toHaveLength(1);
  });
});

describe("A2A", () => {
  it("refuses a message whose contextId is the thread of a session; serves another context", async () => {
    await created("guard-a2a");
    await refused(await s.api("/api/a2a/fake", { json: a2aSend("guard-a2a"), headers: A2A_HEADERS }));
    expect(await turns("guard-a2a")).toEqual([]);

    const answer = (await (await s.api("/api/a2a/fake", { json: a2aSend("a2a-only-context"), headers: A2A_HEADERS })).json()) as { result?: unknown; error?: unknown };
    expect(answer.error).toBeUndefined();
    expect(answer.result).toBeDefined();
    expect(await turns("a2a-only-context")).toHaveLength(1);
  });
});
