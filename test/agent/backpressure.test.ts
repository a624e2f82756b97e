import { setImmediate as nextTick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createAgent, type AgentEvent } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

const MiB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("backpressure and process reclamation with a real child", () => {
  it("a slow consumer reading 1,000,000 deltas keeps heap growth under 64 MiB with block", async () => {
    const driver = fakeDriver({
      process: true,
      script: { steps: [{ markDelivered: true }, { deltas: { count: 1_000_000, itemId: "m1", text: "x" } }] },
    });
    const agent = createAgent(driver, { events: { bufferSize: 256, overflow: "block" } });
    gc?.();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let deltas = 0;
    const stream = agent.stream("flood");
    for await (const event of stream) {
      if (event.type === "message.delta") deltas++;
      if (deltas % 1000 === 0) await nextTick(); // a consumer slower than the producer
      if (deltas % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
    }
    const result = await stream.result;
    expect(deltas).toBe(1_000_000);
    expect(result.text.length).toBe(1_000_000);
    expect(peak).toBeLessThan(64 * MiB);
    expect(driver.probe.livePids()).toEqual([]);
    await agent.close();
  });

  it("drop-deltas coalesces deltas for a slow consumer and delivers every non-delta event", async () => {
    const steps = [];
    for (let i = 0; i < 50; i++) {
      steps.push({ deltas: { count: 2_000, itemId: `m${i}`, text: "ab" } });
      steps.push({ emit: { type: "notice" as const, level: "info" as const, code: "fake_notice" as const, message: String(i) } });
    }
    const driver = fakeDriver({ process: true, script: { steps } });
    const agent = createAgent(driver, { events: { bufferSize: 16, overflow: "drop-deltas" } });
    const events: AgentEvent[] = [];
    const stream = agent.stream("flood");
    for await (const event of stream) {
      events.push(event);
      await nextTick();
    }
    await stream.result;
    const markers = events.filter((e) => e.type === "notice").map((e) => (e as { message: string }).message);
    expect(markers).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    const deltas = events.filter((e) => e.type === "message.delta") as { itemId: string; text: string }[];
    expect(deltas.length).toBeLessThan(100_000);
    for (let i = 0; i < 50; i++) {
      const text = deltas.filter((d) => d.itemId === `m${i}`).map((d) => d.text).join("");
      expect(text).toBe("ab".repeat(2_000));
    }
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    await agent.close();
  });

  it("breaking out of for await cancels the run and leaves no child process", async () => {
    const driver = fakeDriver({ process: true, script: { steps: [{ markDelivered: true }, { deltas: { count: 10, itemId: "m" } }, { waitForAbort: true }] } });
    const agent = createAgent(driver);
    const stream = agent.stream("x");
    let seen = 0;
    for await (const event of stream) {
      if (event.type === "message.delta" && ++seen === 3) break;
    }
    const pids = driver.probe.startedPids();
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
    expect(driver.probe.livePids()).toEqual([]);
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    await agent.close();
  });

  it("a crashing child fails the run with provider_error and is reaped", async () => {
    const driver = fakeDriver({ process: true, script: { steps: [{ markDelivered: true }, { crash: { exitCode: 3 } }] } });
    const agent = createAgent(driver);
    await expect(agent.run("x")).rejects.toMatchObject({ code: "provider_error", phase: "after_delivery", message: expect.stringContaining("code 3") });
    expect(driver.probe.startedPids().filter(alive)).toEqual([]);
    await agent.close();
  });

  it("a prepared standby is a real warm process, used by one run and reaped after it", async () => {
    const driver = fakeDriver({ process: true, prepare: "ready" });
    const agent = createAgent(driver);
    expect((await agent.prepare()).process).toBe("ready");
    const [standbyPid] = driver.probe.livePids();
    expect(driver.probe.livePids()).toHaveLength(1);
    expect(alive(standbyPid!)).toBe(true);
    expect((await agent.run("x")).text).toBe("ok");
    expect(driver.probe.standbysUsed).toBe(1);
    expect(driver.probe.startedPids()).toEqual([standbyPid]);
    expect(alive(standbyPid!)).toBe(false);
    await agent.close();
  });

  it("close() reaps an unused standby", async () => {
    const driver = fakeDriver({ process: true, prepare: "ready" });
    const agent = createAgent(driver);
    await agent.prepare();
    const pids = driver.probe.livePids();
    expect(pids).toHaveLength(1);
    await agent.close();
    expect(pids.filter(alive)).toEqual([]);
  });
});
