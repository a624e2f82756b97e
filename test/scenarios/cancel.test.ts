/**
 * Cancelling at the worst moment, on the fake driver's real child processes: before the run starts,
 * during prepare(), while an approval or a question waits, as run.completed is published, twice,
 * by `break` followed by another run on the same thread, and by close() during a run (twice).
 * Each time: exactly one terminal event, no provider process left, the agent or thread usable
 * afterwards and no prompt delivered twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent, isTerminalEvent, type AgentEvent } from "../../src/index.js";
import { fakeDriver, type FakeDriver, type FakeRunScript } from "../../src/testing/index.js";

const root = mkdtempSync(join(tmpdir(), "aa-scenario-cancel-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls until no child the driver ever started is alive (bounded, not a timing assertion). */
async function expectNoChildLeft(driver: FakeDriver): Promise<void> {
  const deadline = Date.now() + 5000;
  while (driver.probe.startedPids().some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(driver.probe.startedPids().filter(alive)).toEqual([]);
  expect(driver.probe.livePids()).toEqual([]);
}

const terminals = (events: AgentEvent[]) => events.filter((event) => isTerminalEvent(event)).map((event) => event.type);

/** Replies `ok` to every prompt but `block`, which streams and then waits on the named gate. */
const script = (prompt: string): FakeRunScript => {
  if (prompt === "approve")
    return { steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "a" } }, { approve: { requestId: "ap1", kind: "command", summary: "rm -rf", options: [] } }, { emit: { type: "message.completed", itemId: "m", text: "a" } }] };
  if (prompt === "ask")
    return { steps: [{ markDelivered: true }, { ask: { requestId: "q1", questions: [{ id: "q", question: "which?", options: [{ label: "a" }, { label: "b" }] }] } as never }, { emit: { type: "message.completed", itemId: "m", text: "a" } }] };
  if (prompt === "block") return { steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "partial" } }, { deltas: { count: 50, itemId: "m" } }, { waitForAbort: true }] };
  return { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "m", text: `re: ${prompt}` } }], text: `re: ${prompt}` };
};

describe("cancel at the worst moment", () => {
  it("an already aborted signal: one run.cancelled, the driver never called, the agent usable", async () => {
    const driver = fakeDriver({ process: true, script });
    const agent = createAgent(driver, { workspace: root });
    const events: AgentEvent[] = [];
    const stream = agent.stream("first", { signal: AbortSignal.abort("no") });
    for await (const event of stream) events.push(event);
    await expect(stream.result).rejects.toMatchObject({ name: "RunCancelledError" });
    expect(terminals(events)).toEqual(["run.cancelled"]);
    expect(driver.probe.runs.map((run) => run.prompt)).toEqual([]);
    expect((await agent.run("second")).text).toBe("re: second");
    expect(driver.probe.runs.map((run) => run.prompt)).toEqual(["second"]);
    await agent.close();
    await expectNoChildLeft(driver);
  });

  it("aborting prepare(): it rejects, no standby is left, the next run works", async () => {
    const driver = fakeDriver({ process: true, script, prepareBlocks: true, prepare: "ready" });
    const agent = createAgent(driver, { workspace: root });
    const controller = new AbortController();
    const prepared = agent.prepare({ signal: controller.signal });
    while (driver.probe.calls.prepare === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await expect(prepared).rejects.toThrow();
    expect((await agent.run("after")).text).toBe("re: after");
    await agent.close();
    await expectNoChildLeft(driver);
  });

  it.each(["approve", "ask"])("aborting while a %s request is pending: one run.cancelled, the child gone", async (prompt) => {
    const driver = fakeDriver({ process: true, script });
    const agent = createAgent(driver, { workspace: root });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    const stream = agent.stream(prompt, { signal: controller.signal, onApproval: "stream", onUserInput: "stream" } as never);
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval.requested" || event.type === "question.requested") {
        controller.abort();
        controller.abort();
        stream.cancel();
      }
    }
    await expect(stream.result).rejects.toMatchObject({ name: "RunCancelledError" });
    expect(terminals(events)).toEqual(["run.cancelled"]);
    expect(events.at(-1)?.type).toBe("run.cancelled");
    await expectNoChildLeft(driver);
    expect((await agent.run("again")).text).toBe("re: again");
    await agent.close();
    await expectNoChildLeft(driver);
  });

  it("aborting as run.completed is published (twice) keeps it completed", async () => {
    const driver = fakeDriver({ process: true, script });
    const agent = createAgent(driver, { workspace: root });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    const stream = agent.stream("x", { signal: controller.signal });
    for await (const event of stream) {
      events.push(event);
      if (event.type === "run.completed") {
        controller.abort();
        stream.cancel();
        controller.abort();
      }
    }
    await expect(stream.result).resolves.toMatchObject({ text: "re: x" });
    expect(terminals(events)).toEqual(["run.completed"]);
    await agent.close();
    await expectNoChildLeft(driver);
  });

  it("break out of a thread's stream, then run again on the same thread: the first prompt is not replayed", async () => {
    const driver = fakeDriver({ process: true, script });
    const agent = createAgent(driver, { workspace: root });
    const thread = await agent.startThread();
    const stream = thread.stream("block");
    for await (const event of stream) if (event.type === "message.delta") break;
    await expect(stream.result).rejects.toMatchObject({ name: "RunCancelledError" });
    const second = await thread.run("next");
    expect(second.text).toBe("re: next");
    expect(driver.probe.runs.map((run) => run.prompt)).toEqual(["block", "next"]);
    const page = await thread.history();
    expect(page.turns.map((turn) => [turn.status, turn.prompt])).toEqual([["completed", "next"], ["cancelled", "block"]]);
    await agent.close();
    await expectNoChildLeft(driver);
  });

  it("break out of a thread's stream and run again at once, without waiting for the first to unwind", async () => {
    const driver = fakeDriver({ process: true, script });
    const agent = createAgent(driver, { workspace: root });
    const thread = await agent.startThread();
    for await (const event of thread.stream("block")) if (event.type === "message.delta") break;
    expect((await thread.run("next")).text).toBe("re: next");
    for await (const event of thread.stream("block")) if (event.type === "message.delta") break;
    const again = thread.stream("again");
    const types: string[] = [];
    for await (const event of again) types.push(event.type);
    expect(types.filter((type) => type.startsWith("run."))).toEqual(["run.started", "run.completed"]);
    expect(driver.probe.runs.map((run) => run.prompt)).toEqual(["block", "next", "block", "again"]);
    await agent.close();
    await expectNoChildLeft(driver);
  });

  it("close() while prepare() waits, and a run waiting on it: both settle, nothing left", async () => {
    const driver = fakeDriver({ process: true, script, prepareBlocks: true, prepare: "ready" });
    const agent = createAgent(driver, { workspace: root });
    const prepared = agent.prepare();
    while (driver.probe.calls.prepare === 0) await new Promise((r) => setTimeout(r, 5));
    const events: AgentEvent[] = [];
    const stream = agent.stream("x");
    const drained = (async () => {
      for await (const event of stream) events.push(event);
    })();
    await Promise.all([agent.close(), agent.close()]);
    await expect(prepared).rejects.toThrow();
    await drained;
    await stream.result.catch(() => undefined);
    expect(terminals(events).length).toBeLessThanOrEqual(1);
    if (events.length > 0) expect(terminals(events)).toHaveLength(1);
    await expectNoChildLeft(driver);
  });

  it("break out of an agent's stream, then run() on the same agent", async () => {
    const driver = fakeDriver({ process: true, script });
    const agent = createAgent(driver, { workspace: root });
    for await (const event of agent.stream("block")) if (event.type === "message.delta") break;
    expect((await agent.run("next")).text).toBe("re: next");
    expect(driver.probe.runs.map((run) => run.prompt)).toEqual(["block", "next"]);
    await agent.close();
    await expectNoChildLeft(driver);
  });

  it("close() during a run, twice and concurrently: one terminal, the child gone, later calls refused", async () => {
    const driver = fakeDriver({ process: true, script });
    const agent = createAgent(driver, { workspace: root });
    const events: AgentEvent[] = [];
    const stream = agent.stream("block");
    let closes: Promise<void>[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "message.delta" && closes.length === 0) closes = [agent.close(), agent.close()];
    }
    await Promise.all(closes);
    await agent.close();
    await expect(stream.result).rejects.toThrow();
    expect(terminals(events)).toHaveLength(1);
    expect(events.at(-1)?.type).toMatch(/^run\.(cancelled|failed)$/);
    await expectNoChildLeft(driver);
    await expect(agent.run("later")).rejects.toMatchObject({ name: "AgentClosedError" });
    expect(driver.probe.runs.map((run) => run.prompt)).toEqual(["block"]);
  });

  /**
   * A provider far ahead of its reader, in a real child: 5000 deltas, then it waits. `full`
   * resolves once an event was not taken at once (the buffer is full, the driver now waits).
   */
  function floodingDriver(): { driver: FakeDriver; full: Promise<void> } {
    let markFull!: () => void;
    const full = new Promise<void>((resolve) => (markFull = resolve));
    const base = fakeDriver({ process: true, script: { steps: [{ markDelivered: true }, { deltas: { count: 5000, itemId: "m" } }, { waitForAbort: true }] } });
    const driver: FakeDriver = {
      ...base,
      run(request, sink, signal) {
        return base.run(request, {
          emit(event) {
            const pending = sink.emit(event);
            if (pending) markFull();
            return pending;
          },
        }, signal);
      },
    };
    return { driver, full };
  }

  it("awaiting close() inside the loop while the provider has filled the buffer: close settles, one terminal", async () => {
    const { driver, full } = floodingDriver();
    const agent = createAgent(driver, { workspace: root, events: { bufferSize: 64 } });
    const events: AgentEvent[] = [];
    const stream = agent.stream("flood");
    for await (const event of stream) {
      events.push(event);
      if (events.length === 2) {
        await full;
        await agent.close();
      }
    }
    await expect(stream.result).rejects.toMatchObject({ name: "RunCancelledError" });
    expect(terminals(events)).toEqual(["run.cancelled"]);
    expect(events.at(-1)?.type).toBe("run.cancelled");
    await expectNoChildLeft(driver);
  });

  it("close() with a stream never read while its provider filled the buffer: close settles, the result rejects", async () => {
    const { driver, full } = floodingDriver();
    const agent = createAgent(driver, { workspace: root, events: { bufferSize: 64 } });
    const stream = agent.stream("flood");
    await full;
    await agent.close();
    await expect(stream.result).rejects.toMatchObject({ name: "RunCancelledError" });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    // A stopped run is read quietly: what was queued but not read before the stop is skipped.
    expect(types).toEqual(["run.cancelled"]);
    await expectNoChildLeft(driver);
  });

  it("close() while a thread run waits on an approval: one terminal, the thread resumable by a new agent", async () => {
    const driver = fakeDriver({ process: true, script });
    const { memoryThreadStore } = await import("../../src/index.js");
    const store = memoryThreadStore();
    const agent = createAgent(driver, { workspace: root, threadStore: store });
    const thread = await agent.startThread({ id: "t-close" });
    const events: AgentEvent[] = [];
    const stream = thread.stream("approve", { onApproval: () => new Promise(() => {}) });
    let closing: Promise<void> | undefined;
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval.requested") closing = agent.close();
    }
    await closing;
    expect(terminals(events)).toHaveLength(1);
    await expectNoChildLeft(driver);
    const again = createAgent(driver, { workspace: root, threadStore: store });
    const resumed = await again.resumeThread("t-close");
    expect((await resumed.run("after")).text).toBe("re: after");
    expect(driver.probe.runs.map((run) => run.prompt)).toEqual(["approve", "after"]);
    await again.close();
    await expectNoChildLeft(driver);
  });
});
