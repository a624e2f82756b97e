import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent, input, type AgentEvent } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";
import { memoryThreadStore } from "../../src/thread/stores/memory.js";

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("threads through the agent", () => {
  it("binds the provider session, checkpoints each turn and resumes natively", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver, { workspace: "/repo" });
    const thread = await agent.startThread({ id: "tenant-42/issue-123", metadata: { owner: "ana" } });
    expect(thread.id).toBe("tenant-42/issue-123");
    const events = await collect(thread.stream("first"));
    expect(events.map((e) => e.type)).toEqual(["run.started", "thread.bound", "message.completed", "run.completed"]);
    expect(events.every((e) => e.threadId === thread.id)).toBe(true);
    const second = await thread.run("second");
    expect(second.threadId).toBe(thread.id);
    expect(driver.probe.runs.map((r) => r.thread)).toEqual([
      { id: thread.id },
      { id: thread.id, providerSessionId: "fake_session_1" },
    ]);
    const info = await thread.info();
    expect(info).toMatchObject({
      id: thread.id,
      driver: "fake",
      providerSessionId: "fake_session_1",
      workspace: "/repo",
      checkpoint: { turns: 2, lastStatus: "completed", lastRunId: second.runId },
      metadata: { owner: "ana" },
    });
    expect(info.lease).toBeUndefined();
    await agent.close();
  });

  it("a second concurrent run on one thread fails fast with thread_busy", async () => {
    const driver = fakeDriver({ script: (p) => (p === "hold" ? { steps: [{ waitForAbort: true }] } : { steps: [], text: "ok" }) });
    const agent = createAgent(driver);
    const thread = await agent.startThread();
    const holder = thread.stream("hold");
    const iterator = holder[Symbol.asyncIterator]();
    await iterator.next(); // run.started
    await iterator.next(); // thread.bound: the lease is held
    const error = await thread.run("second").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "thread_busy", phase: "before_delivery" });
    expect(driver.probe.runs.map((r) => r.prompt)).toEqual(["hold"]);
    holder.cancel();
    await expect(holder.result).rejects.toMatchObject({ code: "run_cancelled" });
    expect((await thread.info()).checkpoint).toMatchObject({ turns: 0, lastStatus: "cancelled" });
    await agent.close();
  });

  it("waitForLease waits for the writer to finish", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const base = fakeDriver();
    const agent = createAgent({ ...base, run: async (req, sink, signal) => { if (req.prompt === "first") await gate; return base.run(req, sink, signal); } });
    const thread = await agent.startThread();
    const first = thread.run("first");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = thread.run("second", { waitForLease: AbortSignal.timeout(30_000) });
    release();
    await first;
    await second;
    expect((await thread.info()).checkpoint.turns).toBe(2);
    await agent.close();
  });

  it("resumeThread refuses an incompatible configuration before any process starts", async () => {
    const store = memoryThreadStore();
    const a = createAgent(fakeDriver(), { workspace: "/repo", threadStore: store });
    const thread = await a.startThread();
    await thread.run("x");
    const driver = fakeDriver();
    const b = createAgent(driver, { workspace: "/elsewhere", instructions: "be terse", threadStore: store });
    const error = await b.resumeThread(thread.id).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "thread_incompatible", dimensions: ["instructions", "workspace"] });
    // Both values of each differing setting are named; none of them is a secret.
    expect(error).toMatchObject({
      mismatches: [
        { dimension: "instructions", recorded: "(not set)", current: '"be terse"' },
        { dimension: "workspace", setting: "createAgent option workspace", recorded: "/repo", current: "/elsewhere" },
      ],
    });
    expect(driver.probe.calls.run).toBe(0);
    const other = createAgent(fakeDriver({ id: "other" }), { workspace: "/repo", threadStore: store });
    await expect(other.resumeThread(thread.id)).rejects.toMatchObject({ code: "thread_incompatible", dimensions: ["driver"] });
    const same = createAgent(fakeDriver(), { workspace: "/repo", threadStore: store });
    const resumed = await same.resumeThread(thread.id);
    await resumed.run("again");
    expect((await resumed.info()).checkpoint.turns).toBe(2);
    for (const agent of [a, b, other, same]) await agent.close();
    await store.close();
  });

  it("per-turn content never enters the fingerprint", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fingerprint-inputs-"));
    const files = ["one.txt", "two.txt"].map((name, i) => {
      writeFileSync(join(dir, name), `input number ${i}`);
      return join(dir, name);
    });
    const inputs = { image: { modes: [] }, file: { modes: ["native" as const] }, audio: { modes: [] } };
    const store = memoryThreadStore();
    const a = createAgent(fakeDriver({ inputs }), { workspace: "/repo", threadStore: store, defaults: { model: "m1", effort: "low", metadata: { t: "1" } } });
    const b = createAgent(fakeDriver({ inputs }), { workspace: "/repo", threadStore: store, defaults: { model: "other", policy: { sandbox: "read-only" } } });
    try {
      const thread = await a.startThread();
      const started = await thread.info();
      await thread.run("prompt one", { model: "m2", effort: "high", metadata: { t: "2" }, inputs: [input.fromPath("file", files[0]!, { mediaType: "text/plain" })] });
      await thread.run("a different prompt", { inputs: [input.fromPath("file", files[1]!, { mediaType: "text/plain" }), input.fromPath("file", files[0]!, { mediaType: "text/plain" })] });
      const afterTurns = await thread.info();
      expect(afterTurns.checkpoint.turns).toBe(2);
      expect(afterTurns.fingerprint).toBe(started.fingerprint);
      expect(afterTurns.fingerprintParts).toEqual(started.fingerprintParts);
      // Another agent that differs only in call defaults computes the same fingerprint and resumes.
      const resumed = await b.resumeThread(thread.id);
      expect(resumed.id).toBe(thread.id);
      expect(await (await b.startThread()).info()).toMatchObject({ fingerprint: started.fingerprint });
      await expect(resumed.run("third", { inputs: [input.fromPath("file", files[1]!, { mediaType: "text/plain" })] })).resolves.toMatchObject({ text: "ok" });
      expect(await resumed.info()).toMatchObject({ fingerprint: started.fingerprint, checkpoint: { turns: 3 } });
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("unknown threads are thread_not_found", async () => {
    const agent = createAgent(fakeDriver());
    await expect(agent.resumeThread("nope")).rejects.toMatchObject({ code: "thread_not_found" });
    await agent.close();
  });

  it("fork continues natively from the checkpoint and leaves the parent alone", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver);
    const parent = await agent.startThread();
    await parent.run("one");
    const child = await parent.fork({ metadata: { branch: "b" } });
    expect(await child.info()).toMatchObject({ parentId: parent.id, providerSessionId: "fake_session_1", checkpoint: { turns: 1, forkPending: true } });
    await child.run("two");
    expect(driver.probe.runs.at(-1)?.thread).toEqual({ id: child.id, providerSessionId: "fake_session_1", fork: true });
    const forked = await child.info();
    expect(forked.providerSessionId).toBe("fake_session_2");
    expect(forked.checkpoint).toMatchObject({ turns: 2 });
    expect(forked.checkpoint.forkPending).toBeUndefined();
    await parent.run("three");
    expect(driver.probe.runs.at(-1)?.thread).toEqual({ id: parent.id, providerSessionId: "fake_session_1" });
    await agent.close();
  });

  it("a pending fork refuses to fork a parent that advanced since", async () => {
    const agent = createAgent(fakeDriver());
    const parent = await agent.startThread();
    await parent.run("one");
    const child = await parent.fork();
    await parent.run("two");
    await expect(child.run("x")).rejects.toMatchObject({ code: "thread_incompatible" });
    await agent.close();
  });

  it("fork without native support is a typed error, never emulated", async () => {
    const agent = createAgent(fakeDriver({ threads: false, script: { steps: [], providerSessionId: "s1" } }));
    const thread = await agent.startThread();
    await thread.run("x");
    await expect(thread.fork()).rejects.toMatchObject({ code: "feature_unsupported", feature: "fork" });
    await agent.close();
  });

  it("a failed run keeps the thread resumable from the last good checkpoint", async () => {
    const driver = fakeDriver({ script: (p) => (p === "bad" ? { steps: [{ markDelivered: true }, { fail: { message: "died" } }] } : { steps: [], text: "ok" }) });
    const agent = createAgent(driver);
    const thread = await agent.startThread();
    await thread.run("good");
    await expect(thread.run("bad")).rejects.toMatchObject({ code: "provider_error", phase: "after_delivery" });
    expect((await thread.info()).checkpoint).toMatchObject({ turns: 1, lastStatus: "failed" });
    await thread.run("good again");
    expect(driver.probe.runs.at(-1)?.thread).toEqual({ id: thread.id, providerSessionId: "fake_session_1" });
    await agent.close();
  });

  it("thread verbs after close reject", async () => {
    const agent = createAgent(fakeDriver());
    const thread = await agent.startThread();
    await agent.close();
    expect(() => thread.stream("x")).toThrow(expect.objectContaining({ code: "agent_closed" }));
    await expect(agent.startThread()).rejects.toMatchObject({ code: "agent_closed" });
  });
});
