/**
 * The AG-UI endpoint driven by AG-UI's own client (issue #19 item 3): `@ag-ui/client`'s HttpAgent
 * against a real node:http server runs a fake agent with reasoning, a tool call, text, a plan,
 * usage, an approval answered through AG-UI interrupts and a failure; every event on the wire
 * validates against `@ag-ui/core`'s EventSchemas.
 */
import { HttpAgent } from "@ag-ui/client";
import { afterEach, describe, expect, it } from "vitest";
import { agUiHandler } from "../../src/bridges/ag-ui/index.js";
import { createAgent, type Agent } from "../../src/index.js";
import { fakeDriver, type FakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { APPROVAL_SCRIPT, expectValidAgUi, postRaw, RICH_SCRIPT, serveHandler, userInput, type Served } from "./ag-ui-helpers.js";

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function setUp(script: (prompt: string) => FakeRunScript, options: { process?: boolean } = {}): Promise<{ driver: FakeDriver; agent: Agent; served: Served }> {
  const driver = fakeDriver({ script, ...(options.process ? { process: true } : {}) });
  const agent = createAgent(driver);
  const served = await serveHandler(await agUiHandler({ agent }));
  cleanup.push(() => agent.close(), () => served.close());
  return { driver, agent, served };
}

function recordingAgent(url: string, threadId: string) {
  const client = new HttpAgent({ url, threadId });
  const events: unknown[] = [];
  client.subscribe({ onEvent: ({ event }) => void events.push(event) });
  return { client, events };
}

describe("AG-UI endpoint with HttpAgent", () => {
  it("a complete run: reasoning, a tool call with its result, text, plan and usage in the state", async () => {
    const { served } = await setUp(() => RICH_SCRIPT);
    const { client, events } = recordingAgent(served.url, "thread-rich");
    client.addMessage({ id: "u1", role: "user", content: "List the files" });
    const result = await client.runAgent();
    expectValidAgUi(events);
    expect(result.result).toEqual({ text: "Hello" });
    const byRole = (role: string) => client.messages.filter((message) => message.role === role);
    expect(byRole("reasoning").map((m) => m.content)).toEqual(["Let me look."]);
    const call = byRole("assistant").flatMap((m) => ("toolCalls" in m ? (m.toolCalls ?? []) : []))[0];
    expect(call).toMatchObject({ id: "c1", function: { name: "shell" } });
    expect(JSON.parse(call!.function.arguments)).toEqual({ command: ["ls"] });
    const toolResult = byRole("tool")[0] as { toolCallId: string; content: string };
    expect(toolResult.toolCallId).toBe("c1");
    expect(JSON.parse(toolResult.content)).toEqual({ status: "completed", output: "a.txt\n", exitCode: 0 });
    expect(byRole("assistant").some((m) => m.content === "Hello")).toBe(true);
    expect(client.state).toMatchObject({ agentAdaptor: { plan: [{ text: "list files", status: "completed" }], pendingApprovals: [], pendingQuestions: [] } });
    const finished = events.find((e) => (e as { type: string }).type === "RUN_FINISHED") as { usage?: unknown[]; outcome?: unknown };
    expect(finished.outcome).toEqual({ type: "success" });
    expect(finished.usage).toEqual([{ provider: "fake", inputTokens: 12, outputTokens: 5 }]);
  });

  it("the raw SSE body validates event by event and starts with RUN_STARTED echoing the input", async () => {
    const { served } = await setUp(() => RICH_SCRIPT);
    const raw = await postRaw(served.url, userInput("thread-raw", "run-raw", "List the files"));
    expect(raw.status).toBe(200);
    expect(raw.contentType).toMatch(/^text\/event-stream/);
    expectValidAgUi(raw.events);
    expect(raw.events[0]).toMatchObject({ type: "RUN_STARTED", threadId: "thread-raw", runId: "run-raw" });
    expect(raw.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", threadId: "thread-raw", runId: "run-raw" });
    const types = raw.events.map((e) => e.type);
    for (const type of ["REASONING_START", "REASONING_MESSAGE_CONTENT", "REASONING_END", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STATE_SNAPSHOT", "STATE_DELTA"]) {
      expect(types).toContain(type);
    }
  });

  it("an approval is an interrupt; the resume answers it and the same run goes on", async () => {
    const { served, driver } = await setUp(() => APPROVAL_SCRIPT);
    const { client, events } = recordingAgent(served.url, "thread-approve");
    client.addMessage({ id: "u1", role: "user", content: "Clean up" });
    await client.runAgent();
    expect(client.pendingInterrupts).toHaveLength(1);
    const [interrupt] = client.pendingInterrupts;
    expect(interrupt).toMatchObject({ id: "approval-1", reason: "tool_approval", message: "Run `rm -rf build`", toolCallId: "c2" });
    expect(interrupt!.metadata).toMatchObject({ kind: "command", options: [{ id: "accept" }, { id: "decline" }] });
    expect(client.state).toMatchObject({ agentAdaptor: { pendingApprovals: [{ requestId: "approval-1", callId: "c2" }] } });

    await client.runAgent({ resume: [{ interruptId: "approval-1", status: "resolved", payload: { optionId: "accept" } }] });
    expectValidAgUi(events);
    expect(client.pendingInterrupts).toEqual([]);
    expect(client.messages.some((m) => m.role === "assistant" && m.content === "Removed.")).toBe(true);
    expect(client.state).toMatchObject({ agentAdaptor: { pendingApprovals: [] } });
    const notices = events.filter((e) => (e as { type: string; name?: string }).name === "agent-adaptor.notice").map((e) => (e as { value: { message: string } }).value.message);
    expect(notices).toContain("decision: allow");
    expect(driver.probe.calls.run).toBe(1);
  });

  it("a cancelled resume denies the approval; an unknown interrupt is 409 and a bad payload 400", async () => {
    const { served } = await setUp(() => APPROVAL_SCRIPT);
    const first = await postRaw(served.url, userInput("thread-deny", "run-1", "Clean up"));
    expect(first.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt" } });
    const resume = (runId: string, entry: unknown) => ({ ...userInput("thread-deny", runId, "Clean up"), resume: [entry] });
    expect((await postRaw(served.url, resume("run-2", { interruptId: "nope", status: "resolved", payload: true }))).status).toBe(409);
    expect((await postRaw(served.url, resume("run-3", { interruptId: "approval-1", status: "resolved", payload: { decision: "maybe" } }))).status).toBe(400);
    const denied = await postRaw(served.url, resume("run-4", { interruptId: "approval-1", status: "cancelled" }));
    expectValidAgUi(denied.events);
    expect(denied.events.some((e) => e.type === "CUSTOM" && (e.value as { message?: string }).message === "decision: deny")).toBe(true);
    expect(denied.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", runId: "run-4", outcome: { type: "success" } });
  });

  it("a failing run is RUN_ERROR with the error code, seen by HttpAgent's onRunErrorEvent", async () => {
    const { served } = await setUp(() => ({ steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "partial" } }, { fail: { code: "provider_error", message: "the model broke" } }] }));
    const { client, events } = recordingAgent(served.url, "thread-fail");
    client.addMessage({ id: "u1", role: "user", content: "Go" });
    const errors: unknown[] = [];
    await client.runAgent({}, { onRunErrorEvent: ({ event }) => void errors.push(event) });
    expect(errors).toHaveLength(1);
    expectValidAgUi(events);
    const error = events.find((e) => (e as { type: string }).type === "RUN_ERROR") as { code: string; message: string };
    expect(error).toMatchObject({ code: "provider_error" });
    expect(error.message).toContain("the model broke");
    // The open text message was closed before the error.
    expect(events.map((e) => (e as { type: string }).type)).toContain("TEXT_MESSAGE_END");
  });

  it("the threadId is the agent's thread: the second run continues the provider session", async () => {
    const { served, driver } = await setUp(() => ({ steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "m", text: "ok" } }], text: "ok" }));
    const { client } = recordingAgent(served.url, "thread-continue");
    client.addMessage({ id: "u1", role: "user", content: "first" });
    await client.runAgent();
    client.addMessage({ id: "u2", role: "user", content: "second" });
    await client.runAgent();
    expect(driver.probe.runs.map((run) => run.prompt)).toEqual(["first", "second"]);
    expect(driver.probe.runs[0]!.thread?.id).toBe("thread-continue");
    expect(driver.probe.runs[1]!.thread?.providerSessionId).toBeDefined();
  });

  it("refuses what is not a RunAgentInput with 400, and other methods with 405", async () => {
    const { served, driver } = await setUp(() => RICH_SCRIPT);
    expect((await postRaw(served.url, { threadId: "t" })).status).toBe(400);
    expect((await postRaw(served.url, { ...userInput("t", "r", "x"), messages: [] })).status).toBe(400);
    expect((await fetch(served.url)).status).toBe(405);
    expect(driver.probe.calls.run).toBe(0);
  });

  it("a client that goes away mid-run cancels the run and its process is reaped", async () => {
    const { served, driver, agent } = await setUp(() => ({ steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "working" } }, { waitForAbort: true }] }), { process: true });
    const controller = new AbortController();
    const response = await fetch(served.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(userInput("thread-gone", "run-gone", "go")), signal: controller.signal });
    const reader = response.body!.getReader();
    let seen = "";
    while (!seen.includes("TEXT_MESSAGE_CONTENT")) seen += new TextDecoder().decode((await reader.read()).value);
    expect(driver.probe.livePids()).toHaveLength(1);
    controller.abort();
    await expect.poll(() => driver.probe.livePids(), { timeout: 10_000 }).toEqual([]);
    const thread = await agent.resumeThread("thread-gone");
    const [turn] = (await thread.history()).turns;
    expect(turn?.status).toBe("cancelled");
  });
});
