/**
 * The fake driver follows the late-cancel rule of the real drivers: a cancel that arrives before
 * the provider reported completion wins, even when the provider has already written its
 * completion (the child writes it without waiting for the pending approval's decision); once
 * completion is announced, a cancel only retires the process.
 */
import { describe, expect, it } from "vitest";
import { createAgent, RunCancelledError, type AgentEvent } from "../../src/index.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { onCompletionAnnounced } from "../drivers/late-cancel.js";

const completesBehindAnApproval: FakeRunScript = {
  steps: [
    { markDelivered: true },
    { emit: { type: "message.completed", itemId: "m", text: "final" } },
    { approve: { requestId: "r1", kind: "command", summary: "ls", options: [{ id: "allow", label: "Allow", kind: "allow_once" }] } },
    { complete: true },
  ],
  text: "final",
};

describe.each([
  ["in process", false],
  ["in a child process", true],
])("fake driver %s: a cancel during a pending approval", (_label, process) => {
  it("wins over the completion the script reaches after the approval", async () => {
    const driver = fakeDriver({ process, script: completesBehindAnApproval });
    let announced = false;
    const agent = createAgent(onCompletionAnnounced(driver, () => (announced = true)));
    try {
      let stream!: ReturnType<typeof agent.stream>;
      const asked: string[] = [];
      stream = agent.stream("x", {
        // The host cancels while the approval is pending, and never answers it.
        onApproval: (request, signal) => {
          asked.push(request.requestId);
          stream.cancel("the host gave up");
          return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
        },
      });
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const error = await stream.result.then(() => undefined, (e: unknown) => e);

      expect(error).toBeInstanceOf(RunCancelledError);
      // The driver itself never announces the completion: core is not left to overrule it.
      expect(announced).toBe(false);
      const terminals = events.filter((e) => e.type === "run.completed" || e.type === "run.cancelled" || e.type === "run.failed").map((e) => e.type);
      expect(terminals).toEqual(["run.cancelled"]);
      expect(events.at(-1)?.type).toBe("run.cancelled");
      // The cancel landed while the approval was pending (after a stop core publishes only closings).
      expect(asked).toEqual(["r1"]);
    } finally {
      await agent.close();
    }
    expect(driver.probe.livePids()).toEqual([]);
  });
});
