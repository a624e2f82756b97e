/**
 * `run()` drops every event it reads, so it reads them in bulk: it wakes only when the run's
 * buffer is full or closed. The run must still never wait on it for long, under either overflow
 * policy, and its result and transcript keep every event.
 */
import { describe, expect, it } from "vitest";
import { createAgent, type AgentOptions } from "../../src/index.js";
import { fakeDriver, type FakeStep } from "../../src/testing/index.js";
import { EventBuffer } from "../../src/events/buffer.js";
import type { AgentEvent } from "../../src/events/types.js";

const delta = (seq: number): AgentEvent => ({ type: "message.delta", seq, runId: "run_1", at: 0, itemId: "m1", text: "x" });

describe("run() drains the buffer in bulk", () => {
  for (const overflow of ["block", "drop-deltas"] as const) {
    it(`completes a run of more events than its buffer holds (${overflow})`, async () => {
      const steps: FakeStep[] = [{ markDelivered: true }, { deltas: { count: 5_000, itemId: "m1", text: "x" } }, { emit: { type: "notice", level: "info", code: "fake_notice", message: "after" } }];
      const options: AgentOptions = { events: { bufferSize: 3, overflow } };
      const agent = createAgent(fakeDriver({ script: { steps } }), options);
      try {
        const result = await agent.run("flood");
        expect(result.text).toBe("x".repeat(5_000));
        const transcript = result.transcript();
        expect(transcript.filter((event) => event.type === "notice")).toHaveLength(1);
        expect(transcript.at(-1)?.type).toBe("run.completed");
      } finally {
        await agent.close();
      }
    });
  }

  it("a consumer waiting for the buffer to fill is woken by the push that fills it, and by the close", async () => {
    const buffer = new EventBuffer(3, "block");
    let woken = 0;
    const wait = () => buffer.filledOrClosed().then(() => woken++);
    const first = wait();
    buffer.tryPush(delta(0));
    buffer.tryPush(delta(1));
    await Promise.resolve();
    await Promise.resolve();
    expect(woken).toBe(0);
    buffer.tryPush(delta(2));
    await first;
    expect(woken).toBe(1);
    expect(buffer.tryShift()).toMatchObject({ seq: 0 });
    const second = wait();
    buffer.close();
    await second;
    expect(woken).toBe(2);
    expect(buffer.closed).toBe(true);
  });
});
