/**
 * The protocol endpoints never run on the thread of a session that is not archived: an AG-UI
 * `threadId`, an A2A `contextId`, or an A2A message naming only a task of that context, is
 * refused with 409 `thread_busy`, nothing runs there
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

describe("A2A by task id", () => {
  it("refuses a message naming only the task of a context that became a session's thread", async () => {
    const context = "guard-a2a-task";
    const ask = { jsonrpc: "2.0", id: 2, method: "SendMessage", params: { message: { messageId: "m-task-1", contextId: context, role: "ROLE_USER", parts: [{ text: "please approve" }] } } };
    const first = (await (await s.api("/api/a2a/fake", { json: ask, headers: A2A_HEADERS })).json()) as { result?: { task?: { id: string; contextId: string; status?: { state?: string } } } };
    const task = first.result?.task;
    expect(task?.contextId).toBe(context);
    expect(task?.status?.state).toBe("TASK_STATE_INPUT_REQUIRED");

    await created(context);
    const byTask = { jsonrpc: "2.0", id: 3, method: "SendMessage", params: { message: { messageId: "m-task-2", taskId: task!.id, role: "ROLE_USER", parts: [{ text: "allow" }] } } };
    await refused(await s.api("/api/a2a/fake", { json: byTask, headers: A2A_HEADERS }));
    const streaming = { ...byTask, id: 4, method: "SendStreamingMessage" };
    await refused(await s.api("/api/a2a/fake", { json: streaming, headers: A2A_HEADERS }));
    // The answer was not delivered: the task still waits for it.
    const get = { jsonrpc: "2.0", id: 5, method: "GetTask", params: { id: task!.id } };
    const now = (await (await s.api("/api/a2a/fake", { json: get, headers: A2A_HEADERS })).json()) as { result?: { status?: { state?: string } } };
    expect(now.result?.status?.state).toBe("TASK_STATE_INPUT_REQUIRED");
  });

  it("passes a message naming an unknown task on to the A2A server, which refuses it", async () => {
    const byTask = { jsonrpc: "2.0", id: 6, method: "SendMessage", params: { message: { messageId: "m-task-3", taskId: "no-such-task", role: "ROLE_USER", parts: [{ text: "hi" }] } } };
    const response = await s.api("/api/a2a/fake", { json: byTask, headers: A2A_HEADERS });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { error?: { message?: string } }).error?.message).toContain("no-such-task");
  });
});
