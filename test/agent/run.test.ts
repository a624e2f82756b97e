import { describe, expect, it } from "vitest";
import { AdaptorError, createAgent, type AgentEvent, type Driver, type DriverEvent } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** A driver whose run() does whatever the test says. */
function customDriver(run: Driver["run"]): Driver {
  const base = fakeDriver();
  return { ...base, run };
}

describe("run and stream", () => {
  it("streams run.started, driver events and one terminal with contiguous seq", async () => {
    const agent = createAgent(fakeDriver({
      script: {
        steps: [
          { markDelivered: true },
          { emit: { type: "message.delta", itemId: "m1", text: "hel" } },
          { emit: { type: "message.delta", itemId: "m1", text: "lo" } },
          { emit: { type: "message.completed", itemId: "m1", text: "hello" } },
          { emit: { type: "usage.observed", usage: { input_tokens: 3, output_tokens: 2 } } },
        ],
        usage: { input_tokens: 3, output_tokens: 2 },
      },
    }), { defaults: { model: "fake-model" } });
    const stream = agent.stream("hi");
    const events = await collect(stream);
    expect(events.map((e) => e.type)).toEqual([
      "run.started", "message.delta", "message.delta", "message.completed", "usage.observed", "run.completed",
    ]);
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(events.every((e) => e.runId === stream.runId)).toBe(true);
    expect(events[0]).toMatchObject({ driver: "fake", model: "fake-model" });
    const result = await stream.result;
    expect(result).toMatchObject({ status: "completed", text: "hello", usage: { input_tokens: 3, output_tokens: 2 } });
    expect(result.usage).not.toHaveProperty("total_tokens");
    expect(result.transcript().map((e) => e.type)).toEqual([
      "run.started", "message.delta", "message.completed", "usage.observed", "run.completed",
    ]);
    expect(result.transcript()[1]).toMatchObject({ text: "hello", seq: 1 });
    await agent.close();
  });

  it("run() is stream() drained to the result", async () => {
    const agent = createAgent(fakeDriver());
    const result = await agent.run("hi");
    expect(result.text).toBe("ok");
    expect(result.transcript().at(-1)?.type).toBe("run.completed");
    await agent.close();
  });

  it("emits run.completed itself when the driver resolves without a terminal", async () => {
    const agent = createAgent(customDriver(async () => ({ text: "done" })));
    const events = await collect(agent.stream("x"));
    expect(events.map((e) => e.type)).toEqual(["run.started", "run.completed"]);
    await agent.close();
  });

  it("emits run.failed itself when the driver throws, with the delivery phase", async () => {
    const agent = createAgent(customDriver(async (req) => {
      req.markDelivered();
      throw new Error("boom");
    }));
    const stream = agent.stream("x");
    const events = await collect(stream);
    expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "provider_error", message: "boom", phase: "after_delivery", retryable: false } });
    await expect(stream.result).rejects.toMatchObject({ code: "provider_error", phase: "after_delivery" });
    await agent.close();
  });

  it("reports before_delivery when the driver failed before the prompt could reach the provider", async () => {
    const agent = createAgent(fakeDriver({ script: { steps: [{ fail: { message: "no route", code: "provider_error", retryable: true } }] } }));
    const error = await agent.run("x").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "provider_error", phase: "before_delivery", retryable: true, partial: { text: "" } });
    await agent.close();
  });

  it("keeps partial text on failure", async () => {
    const agent = createAgent(fakeDriver({ script: { steps: [
      { markDelivered: true },
      { emit: { type: "message.delta", itemId: "m", text: "par" } },
      { emit: { type: "message.delta", itemId: "m", text: "tial" } },
      { fail: { message: "cut" } },
    ] } }));
    const error = await agent.run("x").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "provider_error", partial: { text: "partial" } });
    await agent.close();
  });

  it("publishes a driver-announced run.failed once run() settles", async () => {
    const agent = createAgent(customDriver(async (_req, sink) => {
      await sink.emit({ type: "run.failed", error: { code: "rate_limited", message: "slow down", phase: "after_delivery", retryable: true } });
      return { text: "" };
    }));
    const events = await collect(agent.stream("x"));
    expect(events.map((e) => e.type)).toEqual(["run.started", "run.failed"]);
    expect(events[1]).toMatchObject({ error: { code: "rate_limited", phase: "before_delivery", retryable: true } });
    await agent.close();
  });

  it.each<[string, DriverEvent[]]>([
    ["an event after a terminal", [{ type: "run.cancelled" }, { type: "notice", level: "info", code: "fake_notice", message: "late" }]],
    ["two terminals", [{ type: "run.failed", error: { code: "provider_error", message: "a", phase: "after_delivery", retryable: false } }, { type: "run.completed" }]],
    ["an unknown event type", [{ type: "message.bogus" } as unknown as DriverEvent]],
    ["a delta without text", [{ type: "message.delta", itemId: "m" } as unknown as DriverEvent]],
  ])("turns %s into DriverContractError and run.failed", async (_name, emitted) => {
    let driverSawError: unknown;
    const agent = createAgent(customDriver(async (_req, sink) => {
      try {
        for (const event of emitted) await sink.emit(event);
      } catch (error) {
        driverSawError = error;
        throw error;
      }
      return { text: "" };
    }));
    const stream = agent.stream("x");
    const events = await collect(stream);
    expect(events.filter((e) => e.type.startsWith("run.") && e.type !== "run.started")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "driver_contract" } });
    expect(driverSawError).toMatchObject({ code: "driver_contract" });
    await expect(stream.result).rejects.toMatchObject({ code: "driver_contract" });
    await agent.close();
  });

  it("fails with driver_contract when run() resolves without text", async () => {
    const agent = createAgent(customDriver(async () => ({}) as never));
    await expect(agent.run("x")).rejects.toMatchObject({ code: "driver_contract" });
    await agent.close();
  });

  it("cancel() ends the run with run.cancelled and rejects the result", async () => {
    const agent = createAgent(fakeDriver({ script: { steps: [{ markDelivered: true }, { waitForAbort: true }] } }));
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const e of stream) {
      events.push(e);
      if (e.type === "run.started") stream.cancel("enough");
    }
    expect(events.map((e) => e.type)).toEqual(["run.started", "run.cancelled"]);
    expect(events[1]).toMatchObject({ reason: "enough" });
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    await agent.close();
  });

  it("an aborted caller signal ends the run with run.cancelled", async () => {
    const agent = createAgent(fakeDriver({ script: { steps: [{ waitForAbort: true }] } }));
    const controller = new AbortController();
    const stream = agent.stream("x", { signal: controller.signal });
    const seen: string[] = [];
    for await (const e of stream) {
      seen.push(e.type);
      if (e.type === "run.started") controller.abort();
    }
    expect(seen).toEqual(["run.started", "run.cancelled"]);
    await agent.close();
  });

  it("an already aborted signal never reaches the driver", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver);
    await expect(agent.run("x", { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "run_cancelled" });
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });

  it("redacts secrets in non-content events and failure messages", async () => {
    const agent = createAgent(customDriver(async (_req, sink) => {
      await sink.emit({ type: "tool.completed", callId: "c", status: "completed", output: "key=sk-abcdefghijklmnopqrstuvwx" });
      throw new Error("Authorization: Bearer abcdefghijklmnop failed");
    }));
    const stream = agent.stream("x");
    const text = JSON.stringify(await collect(stream));
    expect(text).not.toContain("sk-abcdefghijklmnopqrstuvwx");
    expect(text).not.toContain("abcdefghijklmnop failed");
    const error = await stream.result.catch((e: unknown) => e);
    expect(String((error as Error).message)).not.toContain("abcdefghijklmnop");
    await agent.close();
  });

  it("errors are AdaptorErrors with stable codes", async () => {
    const agent = createAgent(fakeDriver({ script: { steps: [{ fail: { message: "x", code: "usage_limit" } }] } }));
    const error = await agent.run("x").catch((e: unknown) => e);
    expect(AdaptorError.is(error)).toBe(true);
    expect(error).toBeInstanceOf(AdaptorError);
    await agent.close();
  });
});

describe("approvals and questions", () => {
  const approvalScript = {
    steps: [
      { markDelivered: true as const },
      { approve: { requestId: "r1", kind: "command" as const, summary: "rm -rf build", options: [{ id: "allow", label: "Allow", kind: "allow_once" as const }], input: { token: "secret-value-123" } } },
    ],
  };

  it("routes an approval to the handler and records both events", async () => {
    const agent = createAgent(fakeDriver({ script: approvalScript }), {
      defaults: { onApproval: async (req) => (req.summary === "rm -rf build" ? { decision: "allow" } : { decision: "deny" }) },
    });
    const events = await collect(agent.stream("x"));
    const types = events.map((e) => e.type);
    expect(types).toEqual(["run.started", "approval.requested", "approval.resolved", "notice", "run.completed"]);
    expect(events[2]).toMatchObject({ decision: { decision: "allow" }, by: "handler" });
    expect(JSON.stringify(events)).not.toContain("secret-value-123");
    await agent.close();
  });

  it("denies by policy without a handler", async () => {
    const agent = createAgent(fakeDriver({ script: approvalScript }));
    const events = await collect(agent.stream("x"));
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: { decision: "deny" }, by: "policy" });
    const notices = events.filter((e) => e.type === "notice").map((e) => (e as { code: string }).code);
    expect(notices).toEqual(["approval_denied_by_policy", "fake_approval"]);
    await agent.close();
  });

  it("a per-call handler overrides the default", async () => {
    const agent = createAgent(fakeDriver({ script: approvalScript }), { defaults: { onApproval: async () => ({ decision: "deny" }) } });
    const events = await collect(agent.stream("x", { onApproval: async () => ({ decision: "allow" }) }));
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: { decision: "allow" } });
    await agent.close();
  });

  it("asks the user-input handler and records the questions", async () => {
    const agent = createAgent(fakeDriver({ script: { steps: [{ ask: { requestId: "q1", questions: [{ id: "color", question: "Which colour?" }] } }] } }));
    const events = await collect(agent.stream("x", { onUserInput: async () => ({ answers: { color: "blue" } }) }));
    expect(events.map((e) => e.type)).toEqual(["run.started", "question.requested", "question.resolved", "notice", "run.completed"]);
    expect(events[2]).toMatchObject({ answered: true });
    expect(events[3]).toMatchObject({ message: JSON.stringify({ color: "blue" }) });
    await agent.close();
  });
});

describe("cancel after the provider answered", () => {
  it("a run whose driver announced run.completed stays completed when a cancel lands during cleanup", async () => {
    let release!: () => void;
    const cleanup = new Promise<void>((resolve) => (release = resolve));
    const agent = createAgent({
      ...fakeDriver(),
      run: async (_req, sink) => {
        await sink.emit({ type: "message.completed", itemId: "m", text: "final" });
        await sink.emit({ type: "run.completed" });
        await cleanup; // e.g. retiring the provider process
        return { text: "final" };
      },
    });
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const e of stream) {
      events.push(e);
      if (e.type === "message.completed") {
        stream.cancel("too late");
        release();
      }
    }
    expect(events.at(-1)?.type).toBe("run.completed");
    await expect(stream.result).resolves.toMatchObject({ text: "final" });
    await agent.close();
  });

  it("without that announcement a cancel during the driver's run still cancels it", async () => {
    const agent = createAgent({
      ...fakeDriver(),
      run: async (_req, sink, signal) => {
        await sink.emit({ type: "message.completed", itemId: "m", text: "partial" });
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        return { text: "partial" };
      },
    });
    const stream = agent.stream("x");
    for await (const e of stream) if (e.type === "message.completed") stream.cancel();
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    await agent.close();
  });
});

describe("handlers that ignore cancellation", () => {
  it("a cancelled run does not wait for an approval handler that never answers", async () => {
    const agent = createAgent(
      fakeDriver({ script: { steps: [{ approve: { requestId: "r", kind: "command", summary: "x", options: [] } }] } }),
      { defaults: { onApproval: () => new Promise(() => undefined) } },
    );
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const e of stream) {
      events.push(e);
      if (e.type === "approval.requested") stream.cancel("stop");
    }
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: { decision: "deny" }, by: "cancel" });
    expect(events.at(-1)?.type).toBe("run.cancelled");
    await agent.close();
  });
});
