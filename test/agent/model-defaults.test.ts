/**
 * One rule for model and effort (issue #13 item 6): a driver config may give defaults
 * (`Driver.defaults()`), the agent's `defaults` override them, a call overrides both; core folds
 * them into `RunRequest.model/effort` and `PrepareRequest`; the standby signature sees the
 * effective values and the thread fingerprint the driver config's (the agent's `defaults` are call
 * settings, per turn, as test/agent/threads.test.ts keeps).
 */
import { describe, expect, it } from "vitest";
import { createAgent, memoryThreadStore, ThreadIncompatibleError, type Driver, type ModelDefaults } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

interface Seen {
  runs: { model?: string | undefined; effort?: string | undefined }[];
  signatures: string[];
}

/** The fake driver with config defaults, recording what core hands it. */
function driverWithDefaults(defaults: ModelDefaults | undefined, seen: Seen): Driver {
  const inner = fakeDriver({ prepare: "transient" });
  return {
    ...inner,
    ...(defaults ? { defaults: () => defaults } : {}),
    run(request, sink, signal) {
      seen.runs.push({ model: request.model, effort: request.effort });
      return inner.run(request, sink, signal);
    },
    prepare(request, signal) {
      seen.signatures.push(request.signature);
      return inner.prepare(request, signal);
    },
  };
}

const fresh = (): Seen => ({ runs: [], signatures: [] });

describe("model and effort: one rule", () => {
  it("the driver config's defaults reach RunRequest when neither the agent nor the call gives any", async () => {
    const seen = fresh();
    await using agent = createAgent(driverWithDefaults({ model: "config-model", effort: "high" }, seen));
    await agent.run("hi");
    expect(seen.runs).toEqual([{ model: "config-model", effort: "high" }]);
  });

  it("the agent's defaults override the driver config's, field by field", async () => {
    const seen = fresh();
    await using agent = createAgent(driverWithDefaults({ model: "config-model", effort: "high" }, seen), { defaults: { model: "agent-model" } });
    await agent.run("hi");
    expect(seen.runs).toEqual([{ model: "agent-model", effort: "high" }]);
  });

  it("a call's model and effort win over every default", async () => {
    const seen = fresh();
    await using agent = createAgent(driverWithDefaults({ model: "config-model", effort: "high" }, seen), { defaults: { model: "agent-model" } });
    await agent.run("hi", { model: "call-model", effort: "low" });
    expect(seen.runs).toEqual([{ model: "call-model", effort: "low" }]);
  });

  it("run.started names the effective model", async () => {
    await using agent = createAgent(driverWithDefaults({ model: "config-model" }, fresh()));
    const stream = agent.stream("hi");
    const types: { type: string; model?: string }[] = [];
    for await (const event of stream) types.push(event as { type: string; model?: string });
    expect(types[0]).toMatchObject({ type: "run.started", model: "config-model" });
  });

  it("a driver without defaults leaves model and effort unset", async () => {
    const seen = fresh();
    await using agent = createAgent(driverWithDefaults(undefined, seen));
    await agent.run("hi");
    expect(seen.runs).toEqual([{ model: undefined, effort: undefined }]);
  });

  it("a change of the config default changes the standby signature; an equal call override matches it", async () => {
    const signatureWith = async (defaults: ModelDefaults | undefined, agentDefaults?: { model?: string; effort?: string }) => {
      const seen = fresh();
      await using agent = createAgent(driverWithDefaults(defaults, seen), agentDefaults ? { defaults: agentDefaults } : {});
      await agent.prepare();
      return seen.signatures[0];
    };
    const a = await signatureWith({ model: "m1", effort: "low" });
    const b = await signatureWith({ model: "m2", effort: "low" });
    const c = await signatureWith({ model: "m1", effort: "high" });
    expect(a).not.toBe(b);
    expect(a).not.toBe(c);
    // The effective values are what count: the same values given by the agent key the same standby.
    expect(await signatureWith(undefined, { model: "m1", effort: "low" })).toBe(a);
  });

  it("a change of the config default makes a stored thread incompatible, naming the dimension", async () => {
    const store = memoryThreadStore();
    try {
      const first = createAgent(driverWithDefaults({ model: "m1" }, fresh()), { threadStore: store });
      const thread = await first.startThread({ id: "t1" });
      await thread.run("hi");
      await first.close();

      const same = createAgent(driverWithDefaults({ model: "m1" }, fresh()), { threadStore: store });
      await expect(same.resumeThread("t1")).resolves.toBeDefined();
      await same.close();

      const changed = createAgent(driverWithDefaults({ model: "m2" }, fresh()), { threadStore: store });
      const refused = await changed.resumeThread("t1").then(() => undefined, (error: unknown) => error);
      await changed.close();
      expect(refused).toBeInstanceOf(ThreadIncompatibleError);
      expect((refused as ThreadIncompatibleError).dimensions).toEqual(["model"]);
    } finally {
      await store.close();
    }
  });

  it("a call override on a thread run wins without touching the thread's compatibility", async () => {
    const seen = fresh();
    const store = memoryThreadStore();
    try {
      await using agent = createAgent(driverWithDefaults({ model: "m1" }, seen), { threadStore: store });
      const thread = await agent.startThread({ id: "t2" });
      await thread.run("one");
      await thread.run("two", { model: "m9" });
      expect(seen.runs.map((run) => run.model)).toEqual(["m1", "m9"]);
      await expect(agent.resumeThread("t2")).resolves.toBeDefined();
    } finally {
      await store.close();
    }
  });
});
