/**
 * A provider's error text is never `partial.text` (issue #15 item 8): the model endpoint answers
 * the first request with HTTP 400 and an error message; on real Codex, Claude Code, Gemini CLI
 * and Claude Agent over ACP, and Pi, the run fails with the text nowhere in `partial.text` (it is
 * in the error), and no `message.*` event carries it as model output.
 */
import { expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";
import { claudeAcp, gemini } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { pi } from "../../src/drivers/pi/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliName, type RealCliScript } from "../../src/testing/real-cli/index.js";
import { laneEnv } from "../drivers/real-lane.js";
import { describeRealCli } from "./helpers.js";

const MARKER = "quota-exploded-7f3a";
const base = (ctx: RealCliContext) => ctx.server.url.replace(/\/+$/, "");

const cases: { cli: RealCliName; driver(ctx: RealCliContext): Driver }[] = [
  {
    cli: "codex",
    driver: (ctx) =>
      codex({
        home: ctx.configDir,
        env: ctx.env,
        provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
        args: ["--disable", "plugins"],
      }),
  },
  {
    cli: "claude",
    driver: (ctx) =>
      claude({
        executable: ctx.executable,
        configDir: ctx.configDir,
        model: ctx.model,
        settingSources: [],
        provider: { baseUrl: ctx.server.url, apiKeyEnv: "ERROR_LANE_KEY" },
        env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), ERROR_LANE_KEY: "sk-error-lane-0123456789" },
      }),
  },
  { cli: "gemini", driver: (ctx) => gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env }) },
  { cli: "claude-agent-acp", driver: (ctx) => claudeAcp({ provider: { baseUrl: base(ctx), apiKeyEnv: "ANTHROPIC_API_KEY", model: ctx.model }, env: ctx.env }) },
  {
    cli: "pi",
    driver: (ctx) =>
      pi({
        executable: ctx.executable,
        args: ctx.executable === process.execPath ? [ctx.entry] : [],
        env: laneEnv(ctx, ["PI_CODING_AGENT_DIR"]),
        provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model },
      }),
  },
];

const script: RealCliScript = {
  turns: [{ fault: { status: 400, body: { error: { type: "invalid_request_error", message: `Request rejected: ${MARKER}` } } }, repeat: true }],
};

for (const c of cases) {
  describeRealCli(c.cli, () => {
    it("a model endpoint's error fails the run without its text in partial.text or message events", async () => {
      await withRealCli(c.cli, script, async (ctx) => {
        const agent = createAgent(c.driver(ctx), { workspace: ctx.workspace });
        try {
          const stream = agent.stream("say hello");
          const events: AgentEvent[] = [];
          for await (const event of stream) events.push(event);
          const error = (await stream.result.then(() => undefined, (e: unknown) => e)) as (Error & { partial?: { text: string } }) | undefined;
          expect(error).toBeDefined();
          expect(error?.message).toContain(MARKER);
          expect(error?.partial?.text ?? "").not.toContain(MARKER);
          const said = events.filter((e) => e.type === "message.delta" || e.type === "message.completed").map((e) => ("text" in e ? e.text : ""));
          expect(said.join("")).not.toContain(MARKER);
        } finally {
          await agent.close();
        }
      });
    });
  });
}
