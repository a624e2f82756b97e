/**
 * `a2aServer()` driven by the A2A project's own client (`@a2a-js/sdk`'s ClientFactory over
 * JSON-RPC) against an agent on the fake driver: message/send (SendMessage), message/stream
 * (SendStreamingMessage), tasks/get, tasks/cancel, input-required for an approval and a question
 * answered by the client, context ids continuing one thread, and host paths hidden from task
 * failures.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { createAgent, type Agent } from "../../src/agent/agent.js";
import { fakeDriver } from "../../src/testing/fake-driver/driver.js";
import type { FakeRunScript } from "../../src/testing/fake-driver/script.js";
import { EVENT_METADATA_KEY } from "../../src/bridges/a2a/protocol.js";
import { data, request, serve, text, textOf, userMessage, type Served } from "./a2a-helpers.js";

const say = (reply: string): FakeRunScript => ({ steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m1", text: reply.slice(0, 3) } }, { emit: { type: "message.delta", itemId: "m1", text: reply.slice(3) } }, { emit: { type: "message.completed", itemId: "m1", text: reply } }], text: reply });

const scripts = (prompt: string): FakeRunScript => {
  if (prompt.startsWith("WAIT")) return { steps: [{ markDelivered: true }, { waitForAbort: true }] };
  if (prompt.startsWith("APPROVE")) {
    return {
      steps: [
        { markDelivered: true },
        { approve: { requestId: "ap-1", kind: "command", summary: "run rm -rf build", options: [{ id: "ok", label: "Run it", kind: "allow_once" }, { id: "no", label: "Refuse", kind: "deny" }] } },
        { emit: { type: "message.completed", itemId: "m1", text: "approved path" } },
      ],
      text: "approved path",
    };
  }
  if (prompt.startsWith("ASK")) return { steps: [{ markDelivered: true }, { ask: { requestId: "q-1", questions: [{ id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] }] } }], text: "asked" };
  return say(`Hello: ${prompt}`);
};

let served: Served | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await served?.close();
  await agent?.close();
  served = agent = undefined;
});

async function start(options: Parameters<typeof serve>[1] = {}) {
  agent = createAgent(fakeDriver({ script: scripts }), { workspace: process.cwd() });
  served = await serve(agent, options);
  return { client: await served.client(), agent };
}

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const stateOf = (e: StreamResponse | undefined) => (e?.payload?.$case === "statusUpdate" ? e.payload.value.status?.state : e?.payload?.$case === "task" ? e.payload.value.status?.state : undefined);

describe("a2aServer with the @a2a-js/sdk client", () => {
  it("serves the agent card at the well-known path with truthful capabilities", async () => {
    await start();
    const card = await (await served!.client()).getAgentCard();
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
    expect(card.supportedInterfaces[0]).toMatchObject({ url: served!.url, protocolBinding: "JSONRPC", protocolVersion: "1.0" });
    const root = await fetch(new URL("/.well-known/agent-card.json", served!.url));
    expect(root.status).toBe(200);
  });

  it("message/send runs the agent and returns the completed task", async () => {
    const { client } = await start();
    const result = (await client.sendMessage(request(userMessage([text("one")])))) as Task;
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(result.status?.message)).toBe("Hello: one");
    expect(result.artifacts.map((a) => textOf({ parts: a.parts } as never))).toEqual(["Hello: one"]);
    const fetched = await client.getTask({ tenant: "", id: result.id, historyLength: undefined });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(fetched.history.some((m) => textOf(m) === "one")).toBe(true);
  });

  it("message/stream streams the task: submitted, working, text chunks, completed with the result", async () => {
    const { client } = await start();
    const events = await collect(client.sendMessageStream(request(userMessage([text("two")]))));
    expect(events[0]?.payload?.$case).toBe("task");
    const chunks = events.flatMap((e) => (e.payload?.$case === "artifactUpdate" ? [{ text: textOf({ parts: e.payload.value.artifact!.parts } as never), append: e.payload.value.append, last: e.payload.value.lastChunk }] : []));
    expect(chunks).toEqual([
      { text: "Hel", append: false, last: false },
      { text: "lo: two", append: true, last: false },
      { text: "Hello: two", append: false, last: true },
    ]);
    const last = events.at(-1)!;
    expect(stateOf(last)).toBe(TaskState.TASK_STATE_COMPLETED);
    const carried = last.payload?.$case === "statusUpdate" ? last.payload.value.status?.message?.metadata?.[EVENT_METADATA_KEY] : undefined;
    expect(carried).toMatchObject({ type: "run.completed", result: { text: "Hello: two", status: "completed" } });
  });

  it("tasks/cancel cancels the running run: the stream ends canceled", async () => {
    const { client } = await start();
    const stream = client.sendMessageStream(request(userMessage([text("WAIT for cancel")])));
    const events: StreamResponse[] = [];
    let taskId: string | undefined;
    for await (const e of stream) {
      events.push(e);
      if (e.payload?.$case === "task") taskId = e.payload.value.id;
      if (stateOf(e) === TaskState.TASK_STATE_WORKING && events.length === 2) {
        const cancelled = await client.cancelTask({ tenant: "", id: taskId!, metadata: undefined });
        expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      }
    }
    expect(stateOf(events.at(-1))).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: "", id: taskId!, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("an approval turns the task input-required; the client's answer reaches the run", async () => {
    const { client } = await start();
    const first = await collect(client.sendMessageStream(request(userMessage([text("APPROVE please")]))));
    const waiting = first.at(-1)!;
    expect(stateOf(waiting)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const status = waiting.payload?.$case === "statusUpdate" ? waiting.payload.value : undefined;
    expect(textOf(status?.status?.message)).toContain("run rm -rf build");
    const asked = status!.status!.message!.parts.find((p) => p.content?.$case === "data")?.content;
    expect(asked).toMatchObject({ value: { requestId: "ap-1", kind: "command", options: [{ id: "ok" }, { id: "no" }] } });

    // A refused answer keeps the task waiting and says why.
    const refused = await collect(client.sendMessageStream(request(userMessage([text("maybe")], { taskId: status!.taskId, contextId: status!.contextId }))));
    expect(stateOf(refused.at(-1))).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const refusal = refused.at(-1)!.payload;
    expect(textOf(refusal?.$case === "statusUpdate" ? refusal.value.status?.message : undefined)).toContain("answer refused");

    const rest = await collect(client.sendMessageStream(request(userMessage([data({ optionId: "ok" })], { taskId: status!.taskId, contextId: status!.contextId }))));
    expect(rest[0]?.payload?.$case).toBe("task");
    const notices = rest.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.metadata?.[EVENT_METADATA_KEY]] : [])).filter((m) => m?.type === "notice");
    expect(notices).toContainEqual(expect.objectContaining({ code: "fake_approval", message: "decision: allow" }));
    expect(rest.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.metadata?.[EVENT_METADATA_KEY]] : []))).toContainEqual(expect.objectContaining({ type: "approval.resolved", requestId: "ap-1", by: "stream" }));
    expect(stateOf(rest.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("a question answered in plain text reaches the run", async () => {
    const { client } = await start();
    const first = (await client.sendMessage(request(userMessage([text("ASK me")])))) as Task;
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(first.status?.message)).toContain("Which database?");
    const done = (await client.sendMessage(request(userMessage([text("SQLite")], { taskId: first.id, contextId: first.contextId })))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const fetched = await client.getTask({ tenant: "", id: first.id, historyLength: undefined });
    expect(JSON.stringify(fetched.metadata)).not.toContain("fake_answer_missing");
  });

  it("a context id names a thread: the second task continues it", async () => {
    const { client, agent } = await start();
    const first = (await client.sendMessage(request(userMessage([text("first")])))) as Task;
    const second = (await client.sendMessage(request(userMessage([text("second")], { contextId: first.contextId })))) as Task;
    expect(second.contextId).toBe(first.contextId);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const thread = await agent.resumeThread(first.contextId);
    expect((await thread.info()).checkpoint.turns).toBe(2);
  });
});

describe("a2aServer keeps host paths out of task failures", () => {
  it("a run that fails with the workspace path in its message shows <path> in the task status and the carried event", async () => {
    const workspace = await mkdtemp(join(tmpdir(), "a2a-hidden-workspace-"));
    try {
      const message = `cannot write ${join(workspace, "build", "out.txt")} (permission denied)`;
      agent = createAgent(fakeDriver({ script: () => ({ steps: [{ markDelivered: true }, { fail: { message } }] }) }), { workspace });
      served = await serve(agent);
      const client = await served.client();
      const task = (await client.sendMessage(request(userMessage([text("fail")])))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      const shown = textOf(task.status?.message);
      expect(shown).toContain("cannot write <path> (permission denied)");
      expect(shown).not.toContain(workspace);
      const carried = task.status?.message?.metadata?.[EVENT_METADATA_KEY] as { type: string; error: { message: string } } | undefined;
      expect(carried).toMatchObject({ type: "run.failed", error: { message: shown } });
      const fetched = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
      expect(JSON.stringify(fetched)).not.toContain(workspace);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
