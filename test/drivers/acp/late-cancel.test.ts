/**
 * Issue #11 on the ACP driver against the fake agent: a prompt response that arrived before
 * `session/cancel` was sent is the run's outcome (item 1), and a turn cut short by
 * `session/cancel` closes every item it started before the terminal (item 7).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { acp, type AcpDriver } from "../../../src/drivers/acp/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { expectCompletedDespiteLateCancel, expectEveryItemClosed, LATE_CANCELS, streamWithLateCancel } from "../late-cancel.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "acp-late-cancel-"));
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

function workspace(): string {
  const dir = join(root, `ws-${++n}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const fake = (): AcpDriver => acp({ command: process.execPath, args: [fixture] });

describe("acp: a late cancel never rewrites a finished turn", () => {
  for (const kind of LATE_CANCELS) {
    it(`an end_turn answer that arrived before ${kind} keeps the run completed`, async () => {
      const driver = fake();
      let close!: () => Promise<void>;
      const outcome = await streamWithLateCancel(driver, (wrapped) => {
        const agent = createAgent(wrapped, { workspace: workspace() });
        close = () => agent.close();
        return agent;
      }, "say hello", kind);
      await expectCompletedDespiteLateCancel(outcome, kind, "Hello from the fake agent.");
      await close();
      expect(driver.processes().live).toEqual([]);
    });
  }
});

describe("acp: interrupted items are closed", () => {
  it("a tool call waiting for permission when session/cancel is sent gets tool.completed cancelled", async () => {
    const agent = createAgent(fake(), { workspace: workspace() });
    try {
      const stream = agent.stream("HANGING_APPROVAL", {
        onApproval: (_request, signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve({ decision: "deny" }), { once: true })),
      });
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "approval.requested") stream.cancel("stop");
      }
      expect(events.at(-1)?.type).toBe("run.cancelled");
      expectEveryItemClosed(events);
      expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ callId: "call_hang", status: "cancelled" });
    } finally {
      await agent.close();
    }
  });
});
