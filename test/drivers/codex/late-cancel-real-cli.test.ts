/**
 * Issue #11 on the real `@openai/codex` CLI against the scripted Responses server: a
 * `turn/completed` read before a cancel keeps the run completed however the cancel arrives (item
 * 1), and a turn cut short by `turn/interrupt` closes the message it was streaming (item 7).
 */
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { codex, type CodexDriver } from "../../../src/drivers/codex/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { expectCompletedDespiteLateCancel, expectEveryItemClosed, LATE_CANCELS, streamWithLateCancel } from "../late-cancel.js";

function driverFor(ctx: RealCliContext): CodexDriver {
  return codex({
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  });
}

describeRealCli("codex", () => {
  for (const kind of LATE_CANCELS) {
    it(`a turn/completed read before ${kind} keeps the run completed`, async () => {
      const script: RealCliScript = { turns: [{ match: { lastUserTextContains: "greet" }, reply: { text: "Hello there." } }] };
      await withRealCli("codex", script, async (ctx) => {
        const driver = driverFor(ctx);
        let close!: () => Promise<void>;
        const outcome = await streamWithLateCancel(driver, (wrapped) => {
          const agent = createAgent(wrapped, { workspace: ctx.workspace });
          close = () => agent.close();
          return agent;
        }, "Please greet me", kind);
        try {
          await expectCompletedDespiteLateCancel(outcome, kind, "Hello there.");
        } finally {
          await close();
        }
        expect(driver.processes().live).toEqual([]);
      });
    });
  }

  it("a message streaming when turn/interrupt lands is closed before run.cancelled", async () => {
    const script: RealCliScript = {
      turns: [{ match: { lastUserTextContains: "long story" }, reply: { text: "word ".repeat(200), chunkSize: 5 }, fault: { dripMs: 50 } }],
    };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Tell me a long story");
        const events: AgentEvent[] = [];
        for await (const event of stream) {
          events.push(event);
          if (event.type === "message.delta" && events.filter((e) => e.type === "message.delta").length === 2) stream.cancel("enough");
        }
        expect(events.at(-1)?.type).toBe("run.cancelled");
        expectEveryItemClosed(events);
      } finally {
        await agent.close();
      }
    });
  });
});
