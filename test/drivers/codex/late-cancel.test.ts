/**
 * Issue #11 on the Codex driver against the fake app-server: a `turn/completed` read before a
 * cancel is the run's outcome (item 1), and a turn cut short by `turn/interrupt` closes every item
 * it started before the terminal (item 7).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { codex, type CodexDriver } from "../../../src/drivers/codex/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { expectCompletedDespiteLateCancel, expectEveryItemClosed, LATE_CANCELS, streamWithLateCancel } from "../late-cancel.js";
import { writeFakeCodex } from "./harness.js";

const root = mkdtempSync(join(tmpdir(), "codex-late-cancel-"));
const executable = writeFakeCodex(root);
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

function fake(): { driver: CodexDriver; workspace: string } {
  const dir = join(root, `case-${++n}`);
  const workspace = join(dir, "workspace");
  const home = join(dir, "home");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { driver: codex({ executable, home }), workspace };
}

describe("codex: a late cancel never rewrites a finished turn", () => {
  for (const kind of LATE_CANCELS) {
    it(`a turn/completed read before ${kind} keeps the run completed`, async () => {
      const { driver, workspace } = fake();
      let close!: () => Promise<void>;
      const outcome = await streamWithLateCancel(driver, (wrapped) => {
        const agent = createAgent(wrapped, { workspace });
        close = () => agent.close();
        return agent;
      }, "say hello", kind);
      await expectCompletedDespiteLateCancel(outcome, kind, "Hello from fake codex.");
      await close();
      expect(driver.processes().live).toEqual([]);
    });
  }
});

describe("codex: interrupted items are closed", () => {
  it("a message streaming when turn/interrupt lands gets message.completed with its text so far", async () => {
    const { driver, workspace } = fake();
    const agent = createAgent(driver, { workspace });
    try {
      const stream = agent.stream("HANG until cancelled");
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "message.delta" && events.filter((e) => e.type === "message.delta").length === 2) stream.cancel("enough");
      }
      expect(events.at(-1)?.type).toBe("run.cancelled");
      expectEveryItemClosed(events);
      const deltas = events.filter((e) => e.type === "message.delta").map((e) => (e as { text: string }).text).join("");
      expect(events.find((e) => e.type === "message.completed")).toMatchObject({ text: deltas });
    } finally {
      await agent.close();
    }
  });

  it("a command waiting for approval when turn/interrupt lands gets tool.completed cancelled", async () => {
    const { driver, workspace } = fake();
    const agent = createAgent(driver, {
      workspace,
      defaults: {
        onApproval: (_request, signal) =>
          new Promise((resolve) => signal.addEventListener("abort", () => resolve({ decision: "deny", message: "cancelled" }), { once: true })),
      },
    });
    try {
      const stream = agent.stream("APPROVE this");
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "approval.requested") stream.cancel("operator stop");
      }
      expect(events.at(-1)?.type).toBe("run.cancelled");
      expectEveryItemClosed(events);
      expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ status: "cancelled" });
    } finally {
      await agent.close();
    }
  });
});
