/**
 * `toAgUi(stream)` (issue #19 item 3): the canonical events of a run as AG-UI events, each valid
 * for `@ag-ui/core`'s EventSchemas; questions through the endpoint as interrupts answered by
 * `resume`; the endpoint without `@ag-ui/core` fails naming the install command.
 */
import { afterEach, describe, expect, it } from "vitest";
import { agUiHandler, AG_UI_INSTALL, toAgUi, type AgUiEvent } from "../../src/bridges/ag-ui/index.js";
import { createAgent, ExecutableNotFoundError } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";
import { APPROVAL_SCRIPT, expectValidAgUi, postRaw, RICH_SCRIPT, serveHandler, userInput } from "./ag-ui-helpers.js";

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function collect(events: AsyncIterable<AgUiEvent>): Promise<AgUiEvent[]> {
  const out: AgUiEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("toAgUi", () => {
  it("maps a run in order: RUN_STARTED, state snapshot, reasoning, tool call and result, plan delta, text, RUN_FINISHED with usage", async () => {
    await using agent = createAgent(fakeDriver({ script: RICH_SCRIPT }));
    const stream = agent.stream("go");
    const events = await collect(toAgUi(stream, { threadId: "t-1", state: { mine: 1 } }));
    expectValidAgUi(events);
    expect(events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "STATE_SNAPSHOT",
      "CUSTOM",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "STATE_DELTA",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "STATE_DELTA",
      "RUN_FINISHED",
    ]);
    expect(events[0]).toMatchObject({ threadId: "t-1", runId: stream.runId });
    expect(events[1]).toMatchObject({ snapshot: { mine: 1, agentAdaptor: { plan: [], pendingApprovals: [], pendingQuestions: [] } } });
    expect(events.filter((e) => e.type === "STATE_DELTA").map((e) => (e as { delta: unknown }).delta)).toEqual([
      [{ op: "add", path: "/agentAdaptor/plan", value: [{ text: "list files", status: "completed" }] }],
      [{ op: "add", path: "/agentAdaptor/usage", value: { input_tokens: 12, output_tokens: 5 } }],
    ]);
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", threadId: "t-1", result: { text: "Hello" }, outcome: { type: "success" } });
  });

  it("a message reported only whole, a tool reported only at its end, a cancelled run", async () => {
    const script = {
      steps: [
        { markDelivered: true as const },
        { emit: { type: "message.completed" as const, itemId: "m", text: "whole" } },
        { emit: { type: "tool.completed" as const, callId: "late", status: "failed" as const, output: "boom" } },
        { emit: { type: "message.delta" as const, itemId: "open", text: "unfinished" } },
        { waitForAbort: true as const },
      ],
    };
    await using agent = createAgent(fakeDriver({ script }));
    const stream = agent.stream("go");
    const events: AgUiEvent[] = [];
    for await (const event of toAgUi(stream)) {
      events.push(event);
      if (event.type === "TEXT_MESSAGE_CONTENT" && event.delta === "unfinished") stream.cancel("enough");
    }
    expectValidAgUi(events);
    const types = events.map((e) => e.type);
    expect(types.slice(3, 6)).toEqual(["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]);
    expect(types.slice(6, 10)).toEqual(["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]);
    expect(JSON.parse((events[9] as { content: string }).content)).toEqual({ status: "failed", output: "boom" });
    // The open message is closed before the run finishes cancelled.
    expect(types.slice(-2)).toEqual(["TEXT_MESSAGE_END", "RUN_FINISHED"]);
    expect(events.at(-1)).toMatchObject({ outcome: { type: "cancelled" } });
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
  });

  it("approvals are listed in the shared state while pending (answered on the run's own stream)", async () => {
    await using agent = createAgent(fakeDriver({ script: APPROVAL_SCRIPT }));
    const stream = agent.stream("go", { onApproval: "stream" });
    const events: AgUiEvent[] = [];
    for await (const event of toAgUi(stream)) {
      events.push(event);
      if (event.type === "STATE_DELTA" && JSON.stringify(event.delta).includes("approval-1")) stream.respond("approval-1", { decision: "allow" });
    }
    expectValidAgUi(events);
    const pending = events.filter((e) => e.type === "STATE_DELTA").map((e) => (e as { delta: { value: unknown[] }[] }).delta[0]!.value.length);
    expect(pending).toEqual([1, 0]);
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
  });

  it("stopping the iteration cancels the run", async () => {
    const driver = fakeDriver({ script: { steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "x" } }, { waitForAbort: true }] } });
    await using agent = createAgent(driver);
    const stream = agent.stream("go");
    for await (const event of toAgUi(stream)) if (event.type === "TEXT_MESSAGE_CONTENT") break;
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
  });
});

describe("AG-UI endpoint: questions and the optional package", () => {
  it("a question is a user_input interrupt; the resume's answers reach the provider", async () => {
    const script = {
      steps: [
        { markDelivered: true as const },
        { ask: { requestId: "ask-1", questions: [{ id: "color", question: "Which colour?", options: [{ label: "red" }, { label: "blue" }] }] } },
        { emit: { type: "message.completed" as const, itemId: "m", text: "done" } },
      ],
      text: "done",
    };
    const agent = createAgent(fakeDriver({ script }));
    const served = await serveHandler(await agUiHandler({ agent }));
    cleanup.push(() => agent.close(), () => served.close());
    const first = await postRaw(served.url, userInput("t-q", "r-1", "Pick"));
    expectValidAgUi(first.events);
    const finished = first.events.at(-1) as { outcome: { interrupts: { id: string; reason: string; message: string; responseSchema: unknown }[] } };
    expect(finished.outcome.interrupts).toMatchObject([{ id: "ask-1", reason: "user_input", message: "Which colour?" }]);
    expect(Date.parse((finished.outcome.interrupts[0] as unknown as { expiresAt: string }).expiresAt)).toBeGreaterThan(Date.now());
    const second = await postRaw(served.url, { ...userInput("t-q", "r-2", "Pick"), resume: [{ interruptId: "ask-1", status: "resolved", payload: { answers: { color: "blue" } } }] });
    expectValidAgUi(second.events);
    expect(second.events.some((e) => e.type === "CUSTOM" && JSON.stringify(e.value).includes('{\\"color\\":\\"blue\\"}'))).toBe(true);
    expect(second.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", runId: "r-2", outcome: { type: "success" } });
  });

  it("an interrupt not resumed in time cancels the paused run", async () => {
    const driver = fakeDriver({ script: APPROVAL_SCRIPT, process: true });
    const agent = createAgent(driver);
    const served = await serveHandler(await agUiHandler({ agent, interruptTimeoutMs: 200 }));
    cleanup.push(() => agent.close(), () => served.close());
    const first = await postRaw(served.url, userInput("t-late", "r-1", "Clean"));
    expect(first.events.at(-1)).toMatchObject({ outcome: { type: "interrupt" } });
    const history = async () => (await (await agent.resumeThread("t-late")).history()).turns.map((turn) => turn.status);
    await expect.poll(history, { timeout: 10_000 }).toEqual(["cancelled"]);
    expect(driver.probe.livePids()).toEqual([]);
    const late = await postRaw(served.url, { ...userInput("t-late", "r-2", "Clean"), resume: [{ interruptId: "approval-1", status: "resolved", payload: true }] });
    expect(late.status).toBe(409);
  });

  it("without @ag-ui/core the endpoint is refused naming the install command", async () => {
    await using agent = createAgent(fakeDriver());
    const failing = () => Promise.reject(new Error("Cannot find package '@ag-ui/core'"));
    const error = await agUiHandler({ agent, importer: failing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutableNotFoundError);
    expect((error as ExecutableNotFoundError).install).toBe(AG_UI_INSTALL);
    expect((error as Error).message).toContain("npm install @ag-ui/core");
  });
});
