/**
 * Issue #11 on the real Claude Code CLI against the scripted Anthropic Messages server: a
 * `result` read before a cancel keeps the run completed however the cancel arrives (item 1).
 * (Item 7 needs no real-CLI case here: on interrupt Claude Code itself finishes the block it was
 * streaming; the driver's closing of what it leaves open is covered by the turn mapper's test.)
 */
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { claude, type ClaudeDriver } from "../../../src/drivers/claude/index.js";
import type { ModelScript } from "../../../src/testing/model-server/index.js";
import { withRealCli, type RealCliContext } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { expectCompletedDespiteLateCancel, LATE_CANCELS, streamWithLateCancel } from "../late-cancel.js";
import { laneEnv } from "../real-lane.js";

const KEY_ENV = "CLAUDE_LANE_KEY";

function driverFor(ctx: RealCliContext): ClaudeDriver {
  return claude({
    executable: ctx.executable,
    configDir: ctx.configDir,
    model: ctx.model,
    settingSources: [],
    provider: { baseUrl: ctx.server.url, apiKeyEnv: KEY_ENV },
    env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), [KEY_ENV]: "sk-claude-lane-key-0123456789" },
  });
}

describeRealCli("claude", () => {
  for (const kind of LATE_CANCELS) {
    it(`a result read before ${kind} keeps the run completed`, async () => {
      const script: ModelScript = { turns: [{ match: { lastUserTextContains: "greet" }, reply: { text: "Hello there." } }] };
      await withRealCli("claude", script, async (ctx) => {
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
        expect(driver.livePids()).toEqual([]);
      });
    });
  }
});
