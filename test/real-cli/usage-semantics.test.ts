/**
 * One meaning of usage on the real CLIs: the same scripted scenario — a first turn with one tool
 * call (two model requests with distinct usage) and a second turn on the same thread (one request)
 * — through real Codex, Claude Code, Gemini CLI over ACP, Pi and codex-acp. The turn's
 * `input_tokens` is the input of all of its requests (1000 + 1300 = 2300, then 1500) on every
 * provider that reports token counts, `cumulative_*` only where the provider keeps a running total,
 * and nothing the provider did not report appears. Codex and Claude resume the thread in a new
 * process for the second turn, where Codex replays its last snapshot before the turn starts.
 */
import { expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";
import { codexAcp, gemini } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { pi } from "../../src/drivers/pi/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import type { Usage } from "../../src/events/usage.js";
import { memoryThreadStore } from "../../src/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliName, type RealCliScript } from "../../src/testing/real-cli/index.js";
import { laneEnv } from "../drivers/real-lane.js";
import { describeRealCli } from "./helpers.js";

interface Case {
  cli: RealCliName;
  driver(ctx: RealCliContext): Driver;
  /** The provider's shell tool, echoing a word. */
  tool: { name: string; arguments: Record<string, unknown> };
  /** The second turn runs in a new process, resuming the thread. */
  reopens: boolean;
  /** What `result.usage` holds after each turn (subset), and keys that must be absent. */
  turns: [Usage, Usage];
  absent: (keyof Usage)[];
}

const base = (ctx: RealCliContext) => ctx.server.url.replace(/\/+$/, "");
const CUMULATIVE: (keyof Usage)[] = ["cumulative_input_tokens", "cumulative_output_tokens", "cumulative_total_tokens", "cumulative_cached_input_tokens"];

const cases: Case[] = [
  {
    cli: "codex",
    driver: (ctx) =>
      codex({
        home: ctx.configDir,
        env: ctx.env,
        provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
        args: ["--disable", "plugins"],
      }),
    tool: { name: "exec_command", arguments: { cmd: "echo usage-probe" } },
    reopens: true,
    turns: [
      { input_tokens: 2300, output_tokens: 50, cached_input_tokens: 300, cumulative_input_tokens: 2300, cumulative_output_tokens: 50 },
      { input_tokens: 1500, output_tokens: 40, cached_input_tokens: 300, cumulative_input_tokens: 3800, cumulative_output_tokens: 90 },
    ],
    absent: ["context_used", "cost_usd"],
  },
  {
    cli: "claude",
    driver: (ctx) =>
      claude({
        executable: ctx.executable,
        configDir: ctx.configDir,
        model: ctx.model,
        settingSources: [],
        provider: { baseUrl: ctx.server.url, apiKeyEnv: "USAGE_LANE_KEY" },
        env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), USAGE_LANE_KEY: "sk-usage-lane-0123456789" },
      }),
    tool: { name: "Bash", arguments: { command: "echo usage-probe", description: "echo a word" } },
    reopens: true,
    turns: [
      { input_tokens: 2300, output_tokens: 50, cached_input_tokens: 300, cumulative_input_tokens: 2300, cumulative_output_tokens: 50 },
      { input_tokens: 1500, output_tokens: 40, cached_input_tokens: 300, cumulative_input_tokens: 3800, cumulative_output_tokens: 90 },
    ],
    absent: ["total_tokens", "context_used", "cost_usd"],
  },
  {
    cli: "gemini",
    driver: (ctx) => gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env }),
    tool: { name: "run_shell_command", arguments: { command: "echo usage-probe", description: "echo a word" } },
    reopens: false,
    turns: [
      { input_tokens: 2300, output_tokens: 50 },
      { input_tokens: 1500, output_tokens: 40 },
    ],
    absent: [...CUMULATIVE, "cached_input_tokens", "context_used", "cost_usd", "cumulative_cost_usd"],
  },
  {
    // Pi counts input without the cached part (1000 − 100 + 1300 − 200) and prices each request.
    cli: "pi",
    driver: (ctx) =>
      pi({
        executable: ctx.executable,
        args: ctx.executable === process.execPath ? [ctx.entry] : [],
        env: laneEnv(ctx, ["PI_CODING_AGENT_DIR"]),
        provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model, cost: { input: 1, output: 2 } },
      }),
    tool: { name: "bash", arguments: { command: "echo usage-probe" } },
    reopens: false,
    turns: [
      { input_tokens: 2000, output_tokens: 50, cached_input_tokens: 300, total_tokens: 2350 },
      { input_tokens: 1200, output_tokens: 40, cached_input_tokens: 300, total_tokens: 1540 },
    ],
    absent: [...CUMULATIVE, "context_used", "cumulative_cost_usd"],
  },
  {
    // codex-acp reports only the context window: no token counts, and none are made up.
    cli: "codex-acp",
    driver: (ctx) => codexAcp({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env }),
    tool: { name: "exec_command", arguments: { cmd: "echo usage-probe" } },
    reopens: false,
    turns: [{ context_used: 1330 }, { context_used: 1540 }],
    absent: ["input_tokens", "output_tokens", "cached_input_tokens", ...CUMULATIVE, "cost_usd"],
  },
];

function script(c: Case): RealCliScript {
  const id = c.cli === "claude" ? "toolu_usage" : "call_usage";
  return {
    turns: [
      { match: { lastUserTextContains: "first turn" }, reply: { toolCalls: [{ id, ...c.tool }], usage: { input_tokens: 1000, output_tokens: 20, cached_input_tokens: 100 } } },
      { match: { toolResultFor: id }, reply: { text: "Done.", usage: { input_tokens: 1300, output_tokens: 30, cached_input_tokens: 200 } } },
      { match: { lastUserTextContains: "second turn" }, reply: { text: "Again.", usage: { input_tokens: 1500, output_tokens: 40, cached_input_tokens: 300 } } },
    ],
  };
}

/** Runs both turns; returns each turn's `result.usage` and `usage.observed` events. */
async function runScenario(c: Case, ctx: RealCliContext): Promise<{ usage: Usage | undefined; observed: Usage[] }[]> {
  const store = memoryThreadStore();
  const open = () => createAgent(c.driver(ctx), { workspace: ctx.workspace, threadStore: store, defaults: { onApproval: async () => ({ decision: "allow" }) } });
  let agent = open();
  const turns: { usage: Usage | undefined; observed: Usage[] }[] = [];
  try {
    let thread = await agent.startThread();
    for (const prompt of ["first turn: echo a word", "second turn: again"]) {
      if (turns.length === 1 && c.reopens) {
        await agent.close();
        agent = open();
        thread = await agent.resumeThread(thread.id);
      }
      const stream = thread.stream(prompt);
      const observed: Usage[] = [];
      for await (const event of stream as AsyncIterable<AgentEvent>) if (event.type === "usage.observed") observed.push(event.usage);
      turns.push({ usage: (await stream.result).usage, observed });
    }
  } finally {
    await agent.close();
  }
  return turns;
}

for (const c of cases) {
  describeRealCli(c.cli, () => {
    it("reports the turn's usage over all of its model requests, running totals only as the provider keeps them", async () => {
      await withRealCli(c.cli, script(c), async (ctx) => {
        const turns = await runScenario(c, ctx);
        expect(turns.map((t) => t.usage)).toMatchObject(c.turns);
        for (const turn of turns) {
          for (const key of c.absent) expect(turn.usage?.[key], key).toBeUndefined();
          // Each usage.observed holds current values, never increments: the last one agrees with the result.
          expect(turn.observed.length).toBeGreaterThan(0);
          expect(turn.usage).toMatchObject(turn.observed.at(-1)!);
        }
        if (c.cli === "claude") {
          // Claude's total_cost_usd is the session's running cost: it carries over the resume.
          expect(turns[1]!.usage!.cumulative_cost_usd).toBeGreaterThan(turns[0]!.usage!.cumulative_cost_usd!);
        }
      });
    });
  });
}
