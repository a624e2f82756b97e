/**
 * Real-CLI lane of core's repeated-tool-call watchdog (issue #18 item 5): a scripted model that
 * keeps asking for the same command, on Claude Code and on Codex; with `repeatToolLimit: 3` the
 * third identical call fails the run once with `repeat_tool_loop` and the model is asked no more.
 */
import { expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { CallOptions } from "../../src/agent/options.js";
import type { Driver } from "../../src/driver/types.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import type { ModelScript } from "../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliName } from "../../src/testing/real-cli/index.js";
import { collect } from "../drivers/helpers.js";
import { laneEnv } from "../drivers/real-lane.js";
import { describeRealCli } from "./helpers.js";

const LANE_KEY = "watchdog-lane-key-0123456789";
const CALLS = 6;

interface Lane {
  cli: RealCliName;
  /** The provider's shell tool and its arguments for one command. */
  shell: { name: string; arguments: Record<string, unknown> };
  make(ctx: RealCliContext): Driver;
  call: CallOptions;
}

const lanes: Lane[] = [
  {
    cli: "claude",
    shell: { name: "Bash", arguments: { command: "echo still-here", description: "check" } },
    make: (ctx) =>
      claude({
        executable: ctx.executable,
        configDir: ctx.configDir,
        model: ctx.model,
        settingSources: [],
        provider: { baseUrl: ctx.server.url, apiKeyEnv: "WATCHDOG_LANE_KEY" },
        env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), WATCHDOG_LANE_KEY: LANE_KEY },
      }),
    call: { onApproval: async () => ({ decision: "allow" }) },
  },
  {
    cli: "codex",
    shell: { name: "exec_command", arguments: { cmd: "echo still-here" } },
    make: (ctx) =>
      codex({
        home: ctx.configDir,
        env: ctx.env,
        provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
        args: ["--disable", "plugins"],
      }),
    call: { policy: { sandbox: "workspace-write", approval: "never" } },
  },
];

/** The same call again each time the previous one's result reaches the model. */
function repeating(lane: Lane): ModelScript {
  return {
    turns: [
      ...Array.from({ length: CALLS }, (_, i) => ({
        match: i === 0 ? { lastUserTextContains: "keep checking" } : { toolResultFor: `call_${i - 1}` },
        reply: { toolCalls: [{ id: `call_${i}`, ...lane.shell }] },
      })),
      { match: { toolResultFor: `call_${CALLS - 1}` }, reply: { text: "Gave up." } },
    ],
  };
}

const TERMINALS = new Set(["run.completed", "run.failed", "run.cancelled"]);

for (const lane of lanes) {
  describeRealCli(lane.cli, () => {
    it("a model repeating one tool call trips repeat_tool_loop at exactly the limit", async () => {
      await withRealCli(lane.cli, repeating(lane), async (ctx) => {
        const agent = createAgent(lane.make(ctx), { workspace: ctx.workspace, defaults: { watchdogs: { repeatToolLimit: 3 } } });
        try {
          const stream = agent.stream("Please keep checking until it is done", lane.call);
          const events: AgentEvent[] = await collect(stream);
          await expect(stream.result).rejects.toMatchObject({ code: "repeat_tool_loop", phase: "after_delivery" });
          expect(events.filter((event) => TERMINALS.has(event.type))).toHaveLength(1);
          expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "repeat_tool_loop" } });
          // Two calls were relayed; the third identical one tripped the watchdog.
          const started = events.flatMap((event) => (event.type === "tool.started" ? [event.callId] : []));
          expect(started).toEqual(["call_0", "call_1"]);
        } finally {
          await agent.close();
        }
        // The model was never asked past the trip: the turn after the last call stays unused.
        expect(ctx.server.unusedTurns()).toContain(CALLS);
      });
    });
  });
}
