import { describe, it } from "vitest";
import type { Driver } from "../../src/index.js";
import { fakeDriver, runDriverConformance, type FakeDriver, type FakeRunScript } from "../../src/testing/index.js";

const script = (prompt: string): FakeRunScript =>
  prompt === "hang"
    ? { steps: [{ markDelivered: true }, { waitForAbort: true }] }
    : { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "m", text: `echo: ${prompt}` } }] };

const livePids = (driver: Driver) => (driver as FakeDriver).probe.livePids();

describe("fake driver, in-process", () => {
  runDriverConformance(() => fakeDriver({ script }), {
    runner: { describe, it },
    textRun: { prompt: "hi", expectText: "echo: hi" },
    cancellableRun: { prompt: "hang" },
    livePids,
  });
});

describe("fake driver, real child process with a standby", () => {
  runDriverConformance(() => fakeDriver({ script, process: true, prepare: "ready" }), {
    runner: { describe, it },
    textRun: { prompt: "hi", expectText: "echo: hi" },
    cancellableRun: { prompt: "hang" },
    livePids,
  });
});

/** Runs the kit with a collecting runner and reports which cases failed. */
async function failingCases(makeDriver: () => Driver, pids?: (d: Driver) => number[]): Promise<string[]> {
  const cases: { name: string; body: () => Promise<void> }[] = [];
  runDriverConformance(makeDriver, {
    runner: { describe: (_name, body) => body(), it: (name, body) => cases.push({ name, body }) },
    textRun: { prompt: "hi", expectText: "echo: hi" },
    cancellableRun: { prompt: "hang" },
    ...(pids ? { livePids: pids } : {}),
  });
  const failed: string[] = [];
  for (const c of cases) await c.body().catch(() => failed.push(c.name));
  return failed;
}

describe("the conformance kit catches broken drivers", () => {
  it("flags an observed panel without evidence", async ({ expect }) => {
    const failed = await failingCases(() => fakeDriver({ script, inspect: { commands: { status: "observed", value: [], evidence: [] } } }));
    expect(failed).toContain("inspects every panel truthfully and returns detached snapshots");
  });

  it("flags a driver whose text run does not complete", async ({ expect }) => {
    const failed = await failingCases(() => fakeDriver({ script: () => ({ steps: [{ fail: { message: "nope" } }] }) }));
    expect(failed).toContain("streams one ordered timeline with exactly one terminal event, last");
  });

  it("flags a driver that leaves a process behind", async ({ expect }) => {
    const failed = await failingCases(() => fakeDriver({ script }), () => [process.pid]);
    expect(failed).toContain("rejects every verb after close() without calling the driver, and reclaims processes");
  });
});
