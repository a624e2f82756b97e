import { describe, expect, it } from "vitest";
import { createAgent, type Driver, type InspectResponse, type StandbyHandle } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

const evidence = [{ transport: "fake", method: "m", scope: "process" as const, observedAt: "2026-01-01T00:00:00.000Z", durationMs: 1 }];

function withPanel(patch: Partial<InspectResponse>): Driver {
  return fakeDriver({ inspect: patch });
}

describe("inspect()", () => {
  it("maps every panel and returns detached deep copies", async () => {
    const agent = createAgent(fakeDriver());
    const first = await agent.inspect();
    expect(first.driver).toEqual({ id: "fake", name: "Fake driver", transport: "in-process" });
    expect(first.models).toMatchObject({ status: "observed", value: [{ id: "fake-model" }] });
    expect(first.commands).toMatchObject({ status: "unsupported", reason: { code: "method_unsupported" } });
    expect(first.commands.value).toBeUndefined();
    first.models.value![0]!.id = "mutated";
    first.models.evidence.length = 0;
    const second = await agent.inspect();
    expect(second.models.value![0]!.id).toBe("fake-model");
    expect(second.models.evidence).toHaveLength(1);
    await agent.close();
  });

  it("an observed empty list differs from unsupported", async () => {
    const agent = createAgent(withPanel({ models: { status: "observed", value: [], evidence } }));
    const inspection = await agent.inspect();
    expect(inspection.models).toMatchObject({ status: "observed", value: [] });
    await agent.close();
  });

  it.each<[string, Partial<InspectResponse>]>([
    ["observed without evidence", { models: { status: "observed", value: [], evidence: [] } }],
    ["observed with a reason", { models: { status: "observed", value: [], evidence, reason: { code: "x", message: "y" } } }],
    ["unsupported with a value", { models: { status: "unsupported", value: [], evidence: [], reason: { code: "x", message: "y" } } }],
    ["unavailable without a reason", { quota: { status: "unavailable", evidence: [] } }],
    ["an unknown status", { quota: { status: "maybe", evidence: [] } as never }],
    ["a missing panel", { profile: undefined as never }],
    ["malformed evidence", { models: { status: "observed", value: [], evidence: [{ method: "m" }] as never } }],
  ])("rejects %s with DriverContractError", async (_name, patch) => {
    const agent = createAgent(withPanel(patch));
    await expect(agent.inspect()).rejects.toMatchObject({ code: "driver_contract" });
    await agent.close();
  });

  it("redacts secrets, including the ones the driver registers", async () => {
    const agent = createAgent(withPanel({
      secrets: ["tencent-raw-key-0001"],
      configuration: { status: "observed", value: { model: "key is tencent-raw-key-0001", outputStyle: "apiKey=abc123456", permissionMode: "Bearer zyxwvutsrqponm" }, evidence },
    }));
    const text = JSON.stringify(await agent.inspect());
    expect(text).not.toContain("tencent-raw-key-0001");
    expect(text).not.toContain("abc123456");
    expect(text).not.toContain("zyxwvutsrqponm");
    expect(text).toContain("[REDACTED]");
    await agent.close();
  });

  it("redacts values of secret-looking environment variables", async () => {
    process.env.AGENT_ADAPTOR_TEST_API_KEY = "envsecretvalue42";
    try {
      const agent = createAgent(withPanel({ environment: { status: "observed", value: { version: "v envsecretvalue42" }, evidence } }));
      expect(JSON.stringify(await agent.inspect())).not.toContain("envsecretvalue42");
      await agent.close();
    } finally {
      delete process.env.AGENT_ADAPTOR_TEST_API_KEY;
    }
  });

  it("rejects on cancellation with the caller's abort reason", async () => {
    const agent = createAgent(fakeDriver());
    const reason = new Error("caller gave up");
    await expect(agent.inspect({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await expect(agent.inspect({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    await agent.close();
  });
});

describe("prepare()", () => {
  it("coalesces concurrent calls into one driver call", async () => {
    const driver = fakeDriver({ prepare: "ready" });
    const agent = createAgent(driver);
    const reports = await Promise.all([agent.prepare(), agent.prepare(), agent.prepare()]);
    expect(driver.probe.calls.prepare).toBe(1);
    expect(reports.map((r) => r.process)).toEqual(["ready", "ready", "ready"]);
    reports[0]!.inspection.models.value![0]!.id = "mutated";
    expect(reports[1]!.inspection.models.value![0]!.id).toBe("fake-model");
    await agent.close();
  });

  it("is idempotent after success while the standby lives", async () => {
    const driver = fakeDriver({ prepare: "ready" });
    const agent = createAgent(driver);
    await agent.prepare();
    await agent.prepare();
    expect(driver.probe.calls.prepare).toBe(1);
    await agent.close();
  });

  it("aborting one of three waiters leaves the other two resolved", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const base = fakeDriver({ prepare: "transient" });
    const driver: Driver = { ...base, prepare: async (req, signal) => { await gate; return base.prepare(req, signal); } };
    const agent = createAgent(driver);
    const aborter = new AbortController();
    const a = agent.prepare();
    const b = agent.prepare({ signal: aborter.signal });
    const c = agent.prepare();
    aborter.abort(new Error("caller b gave up"));
    await expect(b).rejects.toThrow("caller b gave up");
    release();
    await expect(a).resolves.toMatchObject({ process: "transient" });
    await expect(c).resolves.toMatchObject({ process: "transient" });
    expect(base.probe.calls.prepare).toBe(1);
    await agent.close();
  });

  it("when every waiter aborts, the shared work is aborted and nothing is retained", async () => {
    let driverSignal: AbortSignal | undefined;
    const base = fakeDriver({ prepare: "ready", prepareBlocks: true });
    const driver: Driver = { ...base, prepare: (req, signal) => ((driverSignal = signal), base.prepare(req, signal)) };
    const agent = createAgent(driver);
    const one = new AbortController();
    const two = new AbortController();
    const p1 = agent.prepare({ signal: one.signal });
    const p2 = agent.prepare({ signal: two.signal });
    const reasonOne = new Error("caller one gave up");
    const reasonTwo = new Error("caller two gave up");
    one.abort(reasonOne);
    await expect(p1).rejects.toBe(reasonOne);
    expect(driverSignal?.aborted).toBe(false);
    two.abort(reasonTwo);
    await expect(p2).rejects.toBe(reasonTwo);
    expect(driverSignal?.aborted).toBe(true);
    await agent.close();
  });

  it("reports exactly what the driver proves", async () => {
    for (const mode of ["unsupported", "transient", "ready"] as const) {
      const agent = createAgent(fakeDriver({ prepare: mode }));
      expect((await agent.prepare()).process).toBe(mode);
      await agent.close();
    }
  });

  it("rejects a ready report without a standby as a contract violation", async () => {
    const base = fakeDriver();
    const driver: Driver = { ...base, prepare: async (req, signal) => ({ ...(await base.prepare(req, signal)), process: "ready" }) };
    const agent = createAgent(driver);
    await expect(agent.prepare()).rejects.toMatchObject({ code: "driver_contract" });
    await agent.close();
  });

  it("a compatible run claims the standby exactly once; the next run cold-launches", async () => {
    const driver = fakeDriver({ prepare: "ready" });
    const agent = createAgent(driver);
    await agent.prepare();
    await agent.run("one");
    await agent.run("two");
    expect(driver.probe.standbysUsed).toBe(1);
    await agent.close();
  });

  it("concurrent runs never share one standby", async () => {
    const driver = fakeDriver({ prepare: "ready" });
    const agent = createAgent(driver);
    await agent.prepare();
    await Promise.all([agent.run("a"), agent.run("b"), agent.run("c")]);
    expect(driver.probe.standbysUsed).toBe(1);
    await agent.close();
  });

  it("spawn: true bypasses the standby and leaves it for a later run", async () => {
    const driver = fakeDriver({ prepare: "ready" });
    const agent = createAgent(driver);
    await agent.prepare();
    await agent.run("x", { spawn: true });
    expect(driver.probe.standbysUsed).toBe(0);
    await agent.run("y");
    expect(driver.probe.standbysUsed).toBe(1);
    await agent.close();
  });

  it("an incompatible call cold-launches without touching the standby", async () => {
    const driver = fakeDriver({ prepare: "ready" });
    const agent = createAgent(driver, { defaults: { model: "a" } });
    await agent.prepare();
    await agent.run("x", { model: "b" });
    await agent.run("x", { effort: "high" });
    await agent.run("x", { policy: { sandbox: "read-only" } });
    expect(driver.probe.standbysUsed).toBe(0);
    await agent.run("x", { model: "a" });
    expect(driver.probe.standbysUsed).toBe(1);
    await agent.close();
  });

  it("close() reclaims the standby", async () => {
    const closed: string[] = [];
    const base = fakeDriver();
    const standby: StandbyHandle = { isAlive: () => true, close: async () => void closed.push("standby") };
    const driver: Driver = { ...base, prepare: async (req, signal) => ({ ...(await base.prepare(req, signal)), process: "ready", standby }) };
    const agent = createAgent(driver);
    await agent.prepare();
    await agent.close();
    expect(closed).toEqual(["standby"]);
  });
});

describe("close()", () => {
  it("inspect, prepare, run and stream after close reject without calling the driver", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver);
    await agent.close();
    await expect(agent.inspect()).rejects.toMatchObject({ code: "agent_closed" });
    await expect(agent.prepare()).rejects.toMatchObject({ code: "agent_closed" });
    await expect(agent.run("x")).rejects.toMatchObject({ code: "agent_closed" });
    expect(() => agent.stream("x")).toThrow(expect.objectContaining({ code: "agent_closed" }));
    expect(driver.probe.calls).toEqual({ inspect: 0, prepare: 0, run: 0, close: 1 });
  });

  it("is idempotent and cancels runs in flight", async () => {
    const driver = fakeDriver({ script: { steps: [{ waitForAbort: true }] } });
    const agent = createAgent(driver);
    const stream = agent.stream("x");
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "run.started" });
    await Promise.all([agent.close(), agent.close()]);
    expect((await iterator.next()).value).toMatchObject({ type: "run.cancelled" });
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    expect(driver.probe.calls.close).toBe(1);
  });

  it("supports await using", async () => {
    const driver = fakeDriver();
    {
      await using agent = createAgent(driver);
      await agent.run("x");
    }
    expect(driver.probe.calls.close).toBe(1);
  });
});

describe("standby fallback", () => {
  it("a standby failing before delivery is replaced by exactly one cold launch", async () => {
    const base = fakeDriver({ prepare: "ready" });
    const seen: boolean[] = [];
    const driver: Driver = {
      ...base,
      run: async (req, sink, signal) => {
        seen.push(req.standby !== undefined);
        if (req.standby) throw new Error("standby broke");
        return base.run(req, sink, signal);
      },
    };
    const agent = createAgent(driver);
    await agent.prepare();
    const result = await agent.run("x");
    expect(result.text).toBe("ok");
    expect(seen).toEqual([true, false]);
    expect(result.transcript().some((e) => e.type === "notice" && e.code === "standby_fallback")).toBe(true);
    await agent.close();
  });

  it("never relaunches after the prompt may have been delivered", async () => {
    const base = fakeDriver({ prepare: "ready" });
    let runs = 0;
    const driver: Driver = {
      ...base,
      run: async (req) => {
        runs++;
        req.markDelivered();
        throw new Error("died after delivery");
      },
    };
    const agent = createAgent(driver);
    await agent.prepare();
    await expect(agent.run("x")).rejects.toMatchObject({ phase: "after_delivery" });
    expect(runs).toBe(1);
    await agent.close();
  });
});
