/**
 * `Thread.compact()` and `Thread.goal()` in core (issue #18 items 7 and 10), on the fake driver
 * with the SPI's compaction flag and goal method added: what a driver is asked, what is refused
 * before anything runs, how a driver's goal answers are checked and redacted, and that a goal
 * change waits for no run (it takes the thread's lease, so a run in flight makes it `thread_busy`).
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { Goal, GoalResponse } from "../../src/driver/goals.js";
import type { CompactSupport, Descriptor, Driver, GoalRequest, RunRequest } from "../../src/driver/types.js";
import { ConfigError, DriverContractError, FeatureUnsupportedError, ThreadBusyError } from "../../src/errors/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import { fakeDriver } from "../../src/testing/fake-driver/driver.js";
import type { FakeRunScript } from "../../src/testing/fake-driver/script.js";

const SECRET = "sk-goal-secret-0123456789";

interface Options {
  compact?: CompactSupport;
  goals?: (request: GoalRequest) => GoalResponse | Promise<GoalResponse>;
  script?: (prompt: string) => FakeRunScript;
}

/** The fake driver with `features.compact` and `goals()` as given; records every run request. */
function driverWith(options: Options): Driver & { requests: RunRequest[]; goalRequests: GoalRequest[] } {
  const fake = fakeDriver(options.script ? { script: options.script } : {});
  const requests: RunRequest[] = [];
  const goalRequests: GoalRequest[] = [];
  const driver: Driver & { requests: RunRequest[]; goalRequests: GoalRequest[] } = {
    ...fake,
    requests,
    goalRequests,
    descriptor(): Descriptor {
      const descriptor = fake.descriptor();
      descriptor.features = { ...descriptor.features, resume: "native", fork: "native" };
      if (options.compact !== undefined) descriptor.features.compact = options.compact;
      return descriptor;
    },
    secrets: () => [SECRET],
    run(request, sink, signal) {
      requests.push(request);
      return fake.run(request, sink, signal);
    },
  };
  if (options.goals) {
    const answer = options.goals;
    driver.goals = async (request) => {
      goalRequests.push(structuredClone(request));
      return answer(request);
    };
  }
  return driver;
}

/** A provider keeping one goal per session, as Codex does. */
function goalKeeper(): (request: GoalRequest) => GoalResponse {
  const goals = new Map<string, Goal>();
  return ({ operation, providerSessionId }) => {
    const id = providerSessionId ?? "";
    const now = new Date(0).toISOString();
    switch (operation.op) {
      case "probe":
        return { supported: true };
      case "get": {
        const goal = goals.get(id);
        return goal ? { supported: true, goal } : { supported: true };
      }
      case "set": {
        const before = goals.get(id);
        const objective = operation.objective ?? before?.objective;
        if (objective === undefined) throw new Error("no goal to change");
        const goal: Goal = { objective, status: operation.status ?? before?.status ?? "active", tokensUsed: 0, timeUsedSeconds: 0, createdAt: now, updatedAt: now };
        const budget = operation.tokenBudget === undefined ? before?.tokenBudget : operation.tokenBudget ?? undefined;
        if (budget !== undefined) goal.tokenBudget = budget;
        goals.set(id, goal);
        return { supported: true, goal };
      }
      case "clear":
        return { supported: true, cleared: goals.delete(id) };
    }
  };
}

async function drain(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("Thread.compact()", () => {
  it("is refused with FeatureUnsupportedError at once on a driver without native compaction", async () => {
    for (const compact of [undefined, "unsupported"] as const) {
      const driver = driverWith(compact === undefined ? {} : { compact });
      const agent = createAgent(driver);
      try {
        const thread = await agent.startThread();
        await thread.run("hello");
        let thrown: unknown;
        try {
          thread.compact();
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(FeatureUnsupportedError);
        expect(thrown).toMatchObject({ feature: "compact", driver: "fake" });
        expect(driver.requests).toHaveLength(1);
      } finally {
        await agent.close();
      }
    }
  });

  it("asks the driver for a compaction of the bound conversation as one ordinary turn", async () => {
    const driver = driverWith({ compact: "native" });
    const agent = createAgent(driver);
    try {
      const thread = await agent.startThread();
      const first = await thread.run("hello");
      const stream = thread.compact();
      const events = await drain(stream);
      const result = await stream.result;
      const request = driver.requests[1]!;
      expect(request.operation).toBe("compact");
      expect(request.prompt).toBe("");
      expect(request.inputs).toEqual([]);
      expect(request.thread).toMatchObject({ id: thread.id, providerSessionId: first.providerSessionId });
      expect(driver.requests[0]!.operation).toBeUndefined();
      expect(events.filter((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled")).toHaveLength(1);
      expect(result.providerSessionId).toBe(first.providerSessionId);
      expect((await thread.info()).checkpoint.turns).toBe(2);
      expect((await thread.history()).turns.map((t) => t.prompt)).toEqual(["", "hello"]);
    } finally {
      await agent.close();
    }
  });

  it("fails a thread that has taken no turn with config_invalid before the driver is called", async () => {
    const driver = driverWith({ compact: "advertised" });
    const agent = createAgent(driver);
    try {
      const thread = await agent.startThread();
      const stream = thread.compact();
      const events = await drain(stream);
      await expect(stream.result).rejects.toBeInstanceOf(ConfigError);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "config_invalid", phase: "before_delivery" } });
      expect(driver.requests).toHaveLength(0);
      // The refused compaction left the thread as it was: its lease is free for the first turn.
      await thread.run("hello");
    } finally {
      await agent.close();
    }
  });

  it("refuses a signal that is no AbortSignal, and is cancelled by one", async () => {
    const driver = driverWith({ compact: "native", script: (prompt) => (prompt === "" ? { steps: [{ markDelivered: true }, { waitForAbort: true }] } : { steps: [], text: "ok" }) });
    const agent = createAgent(driver);
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      expect(() => thread.compact({ signal: "soon" as unknown as AbortSignal })).toThrow(ConfigError);
      const controller = new AbortController();
      const stream = thread.compact({ signal: controller.signal });
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "run.started") controller.abort();
      }
      await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
      expect(events.at(-1)?.type).toBe("run.cancelled");
    } finally {
      await agent.close();
    }
  });
});

describe("Thread.goal()", () => {
  it("is undefined on a driver without goals, and when the provider's probe says unsupported", async () => {
    for (const options of [{}, { goals: () => ({ supported: false as const, reason: "no thread/goal/get" }) }]) {
      const agent = createAgent(driverWith(options));
      try {
        expect(await (await agent.startThread()).goal()).toBeUndefined();
      } finally {
        await agent.close();
      }
    }
  });

  it("round-trips get, set, pause, resume, budget and clear on the thread's provider conversation", async () => {
    const driver = driverWith({ goals: goalKeeper() });
    const agent = createAgent(driver);
    try {
      const thread = await agent.startThread();
      const control = (await thread.goal())!;
      // No conversation yet: nothing to read, nothing to set, and the provider is not asked.
      expect(await control.get()).toBeUndefined();
      expect(await control.clear()).toBe(false);
      await expect(control.set("Ship it")).rejects.toBeInstanceOf(ConfigError);
      expect(driver.goalRequests.map((r) => r.operation.op)).toEqual(["probe"]);

      const { providerSessionId } = await thread.run("hello");
      const set = await control.set("Ship it", { tokenBudget: 100, status: "paused" });
      expect(set).toMatchObject({ objective: "Ship it", status: "paused", tokenBudget: 100 });
      expect(driver.goalRequests.at(-1)).toMatchObject({ providerSessionId, operation: { op: "set", objective: "Ship it", status: "paused", tokenBudget: 100 } });
      expect(await control.get()).toEqual(set);
      expect((await control.resume()).status).toBe("active");
      expect((await control.pause()).status).toBe("paused");
      expect(driver.goalRequests.at(-1)!.operation).toEqual({ op: "set", status: "paused" });
      expect((await control.budget(null)).tokenBudget).toBeUndefined();
      expect(driver.goalRequests.at(-1)!.operation).toEqual({ op: "set", tokenBudget: null });
      expect(await control.clear()).toBe(true);
      expect(await control.get()).toBeUndefined();
    } finally {
      await agent.close();
    }
  });

  it("refuses invalid arguments before the provider is asked", async () => {
    const driver = driverWith({ goals: goalKeeper() });
    const agent = createAgent(driver);
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const control = (await thread.goal())!;
      const asked = driver.goalRequests.length;
      await expect(control.set("  ")).rejects.toBeInstanceOf(ConfigError);
      await expect(control.set("x", { status: "complete" as never })).rejects.toBeInstanceOf(ConfigError);
      await expect(control.set("x", { tokenBudget: 0 })).rejects.toBeInstanceOf(ConfigError);
      await expect(control.budget(1.5)).rejects.toBeInstanceOf(ConfigError);
      await expect(control.get({ signal: AbortSignal.abort() })).rejects.toThrow();
      expect(driver.goalRequests).toHaveLength(asked);
    } finally {
      await agent.close();
    }
  });

  it("checks the driver's answer against the SPI and redacts the agent's secrets from it", async () => {
    const keeper = goalKeeper();
    let broken = false;
    const driver = driverWith({
      goals: (request) => {
        if (broken) return { supported: true, goal: { objective: "x", status: "finished" } } as unknown as GoalResponse;
        if (request.operation.op === "set") return keeper({ ...request, operation: { ...request.operation, objective: `use ${SECRET}` } });
        return keeper(request);
      },
    });
    const agent = createAgent(driver);
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const control = (await thread.goal())!;
      const goal = await control.set("anything");
      expect(JSON.stringify(goal)).not.toContain(SECRET);
      broken = true;
      await expect(control.get()).rejects.toBeInstanceOf(DriverContractError);
    } finally {
      await agent.close();
    }
  });

  it("changes a goal only under the thread's lease: thread_busy while a run is in flight, reads still answer", async () => {
    const driver = driverWith({
      goals: goalKeeper(),
      script: (prompt) => (prompt === "wait" ? { steps: [{ markDelivered: true }, { waitForAbort: true }] } : { steps: [], text: "ok" }),
    });
    const agent = createAgent(driver);
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      const control = (await thread.goal())!;
      await control.set("Ship it");
      const running = thread.stream("wait");
      for await (const event of running) {
        if (event.type !== "thread.bound") continue;
        await expect(control.pause()).rejects.toBeInstanceOf(ThreadBusyError);
        await expect(control.clear()).rejects.toBeInstanceOf(ThreadBusyError);
        expect((await control.get())?.status).toBe("active");
        running.cancel();
      }
      await running.result.catch(() => undefined);
      expect((await control.pause()).status).toBe("paused");
    } finally {
      await agent.close();
    }
  });
});
