/**
 * A late cancel never rewrites a finished turn (issue #11, item 1), on the fake driver: the script
 * completes and then retires its process only when the cancel arrives, so the cancel lands while
 * the driver is still running and core still holds the terminal.
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/index.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { expectCompletedDespiteLateCancel, LATE_CANCELS, streamWithLateCancel } from "../drivers/late-cancel.js";

const completesThenRetiresOnCancel: FakeRunScript = {
  steps: [
    { markDelivered: true },
    { emit: { type: "message.delta", itemId: "m", text: "fin" } },
    { emit: { type: "message.completed", itemId: "m", text: "final" } },
    { complete: true },
    { waitForAbort: true },
  ],
  text: "final",
};

describe.each([
  ["in process", false],
  ["in a child process", true],
])("fake driver %s", (_label, process) => {
  for (const kind of LATE_CANCELS) {
    it(`a run whose provider reported completion stays completed when ${kind} arrives while it retires`, async () => {
      const driver = fakeDriver({ process, script: completesThenRetiresOnCancel });
      let close!: () => Promise<void>;
      const outcome = await streamWithLateCancel(driver, (wrapped) => {
        const agent = createAgent(wrapped);
        close = () => agent.close();
        return agent;
      }, "x", kind);
      await expectCompletedDespiteLateCancel(outcome, kind, "final");
      await close();
      expect(driver.probe.livePids()).toEqual([]);
    });
  }
});
