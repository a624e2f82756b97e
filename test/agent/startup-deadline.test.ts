import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAgent, RunFailedError, type AgentEvent, type AgentOptions } from "../../src/index.js";
import { fakeDriver, type FakeStep } from "../../src/testing/index.js";

const retrying: FakeStep = { emit: { type: "notice", level: "warning", code: "provider_retry", message: "Reconnecting... waiting for network" } };

/** Runs `steps`, and once `ready(event)` has been seen moves the clock by `advanceMs`; cancels when it was not enough. */
async function runAdvancingClock(steps: FakeStep[], options: AgentOptions, ready: (event: AgentEvent) => boolean, advanceMs: number) {
  const agent = createAgent(fakeDriver({ script: { steps } }), options);
  const stream = agent.stream("hello");
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (ready(event)) {
      await vi.advanceTimersByTimeAsync(advanceMs);
      stream.cancel("the clock moved on and nothing happened");
    }
  }
  const outcome = await stream.result.then(() => undefined, (error: unknown) => error);
  await agent.close();
  return { events, outcome };
}

describe("startup deadline", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a provider that keeps retrying without progress fails the run with provider_unreachable (retryable) after the default 60 s", async () => {
    const { events, outcome } = await runAdvancingClock(
      [{ markDelivered: true }, retrying, { waitForAbort: true }],
      {},
      (event) => event.type === "notice" && event.code === "provider_retry",
      60_000,
    );
    expect(outcome).toBeInstanceOf(RunFailedError);
    expect(outcome).toMatchObject({ code: "provider_unreachable", retryable: true, phase: "after_delivery" });
    expect((outcome as Error).message).toContain("startupTimeoutMs");
    expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "provider_unreachable", retryable: true } });
  });

  it("startupTimeoutMs sets the deadline", async () => {
    const { outcome } = await runAdvancingClock(
      [{ markDelivered: true }, retrying, { waitForAbort: true }],
      { startupTimeoutMs: 5_000 },
      (event) => event.type === "notice",
      5_000,
    );
    expect(outcome).toMatchObject({ code: "provider_unreachable" });
  });

  it("progress of the model after a retry disarms the startup deadline", async () => {
    const { outcome } = await runAdvancingClock(
      [{ markDelivered: true }, retrying, { emit: { type: "message.delta", itemId: "m1", text: "hi" } }, retrying, { waitForAbort: true }],
      { startupTimeoutMs: 1_000 },
      (event) => event.type === "message.delta",
      10_000,
    );
    expect(outcome).toMatchObject({ code: "run_cancelled" });
  });

  it("without a retry report there is no deadline (a slow model is not an unreachable one)", async () => {
    const { outcome } = await runAdvancingClock(
      [{ markDelivered: true }, { emit: { type: "thread.bound", providerSessionId: "s1" } }, { waitForAbort: true }],
      { startupTimeoutMs: 1_000 },
      (event) => event.type === "thread.bound",
      10_000,
    );
    expect(outcome).toMatchObject({ code: "run_cancelled" });
  });

  it("startupTimeoutMs 0 waits as long as the provider retries", async () => {
    const { outcome } = await runAdvancingClock(
      [{ markDelivered: true }, retrying, { waitForAbort: true }],
      // The run's watchdogs (idle, 6 h hard cap) are off: only the startup deadline is under test.
      { startupTimeoutMs: 0, defaults: { watchdogs: { idleMs: 0, hardCapMs: 0 } } },
      (event) => event.type === "notice",
      24 * 3_600_000,
    );
    expect(outcome).toMatchObject({ code: "run_cancelled" });
  });

  it("a negative or fractional startupTimeoutMs is refused at construction", () => {
    expect(() => createAgent(fakeDriver(), { startupTimeoutMs: -1 })).toThrow(expect.objectContaining({ code: "config_invalid" }));
    expect(() => createAgent(fakeDriver(), { startupTimeoutMs: 1.5 })).toThrow(expect.objectContaining({ code: "config_invalid" }));
  });
});
