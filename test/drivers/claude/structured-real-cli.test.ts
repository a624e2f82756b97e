/**
 * Typed structured output on the real Claude Code CLI (issue #15 item 7): a zod schema travels as
 * `--json-schema` (its draft-2020-12 `$schema` declaration left out for the CLI's draft-07
 * validator), the scripted model answers through the CLI's `StructuredOutput` tool, and the
 * `result` line's `structured_output` is validated again by the schema itself, so a refinement the
 * JSON Schema cannot express still fails the run with `output_invalid` and the raw value.
 */
import { expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../../src/agent/agent.js";
import { claude, type ClaudeConfig } from "../../../src/drivers/claude/index.js";
import { OutputInvalidError } from "../../../src/errors/index.js";
import type { CapturedRequest, ModelScript } from "../../../src/testing/model-server/index.js";
import { withRealCli, type RealCliContext } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { laneEnv } from "../real-lane.js";

const KEY_ENV = "CLAUDE_LANE_KEY";

function driverConfig(ctx: RealCliContext): ClaudeConfig {
  return {
    executable: ctx.executable,
    configDir: ctx.configDir,
    model: ctx.model,
    settingSources: [],
    provider: { baseUrl: ctx.server.url, apiKeyEnv: KEY_ENV },
    env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), [KEY_ENV]: "sk-claude-lane-key-0123456789" },
  };
}

const modelRequests = (ctx: RealCliContext): CapturedRequest[] => ctx.server.requests.filter((r) => r.dialect === "anthropic" && !r.auxiliary);

/** The tool the CLI offers the model for `--json-schema`, with its input schema. */
function structuredTool(request: CapturedRequest): { name: string; input_schema: unknown } | undefined {
  const tools = (request.body as { tools?: { name: string; input_schema: unknown }[] }).tools ?? [];
  return tools.find((tool) => tool.name === "StructuredOutput");
}

const answer = (args: Record<string, unknown>): ModelScript => ({ turns: [{ reply: { toolCalls: [{ name: "StructuredOutput", arguments: args }] } }] });

describeRealCli("claude", () => {
  it("returns the StructuredOutput value validated and typed by a zod schema", async () => {
    const Fruit = z.object({ fruit: z.string(), count: z.number().int() });
    await withRealCli("claude", answer({ fruit: "fig", count: 3 }), async (ctx) => {
      const agent = createAgent(claude(driverConfig(ctx)), { workspace: ctx.workspace });
      try {
        const result = await agent.run("Which fruit, how many? JSON please", { output: Fruit });
        expectTypeOf(result.structured).toEqualTypeOf<{ fruit: string; count: number } | undefined>();
        expect(result.structured).toEqual({ fruit: "fig", count: 3 });
        const requests = modelRequests(ctx);
        expect(requests).toHaveLength(1);
        const { $schema: _declared, ...sent } = z.toJSONSchema(Fruit);
        expect(structuredTool(requests[0]!)?.input_schema).toEqual(sent);
      } finally {
        await agent.close();
      }
    });
  });

  it("starts its own process for the schema: the prepared standby and the thread's next plain turn stay without it", async () => {
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "JSON please" }, reply: { toolCalls: [{ name: "StructuredOutput", arguments: { fruit: "kiwi", count: 1 } }] } },
        { match: { lastUserTextContains: "plain words" }, reply: { text: "Just words." }, repeat: true },
      ],
    };
    await withRealCli("claude", script, async (ctx) => {
      const agent = createAgent(claude(driverConfig(ctx)), { workspace: ctx.workspace });
      try {
        expect((await agent.prepare()).process).toBe("ready");
        const thread = await agent.startThread();
        const structured = await thread.run("Which fruit? JSON please", { output: z.object({ fruit: z.string(), count: z.number() }) });
        expect(structured.structured).toEqual({ fruit: "kiwi", count: 1 });
        const plain = await thread.run("Now in plain words");
        expect(plain.text).toBe("Just words.");
        expect((await agent.run("plain words without a thread")).text).toBe("Just words.");
        const tools = modelRequests(ctx).map((request) => structuredTool(request) !== undefined);
        expect(tools).toEqual([true, false, false]);
      } finally {
        await agent.close();
      }
    });
  });

  it("fails with output_invalid when the CLI gives up on answers its own validator refused", async () => {
    const script: ModelScript = { turns: [{ reply: { toolCalls: [{ name: "StructuredOutput", arguments: { fruit: "fig", count: "three" } }] }, repeat: true }] };
    await withRealCli("claude", script, async (ctx) => {
      const agent = createAgent(claude(driverConfig(ctx)), { workspace: ctx.workspace });
      try {
        const error = await agent.run("Which fruit? JSON please", { output: z.object({ fruit: z.string(), count: z.number() }) }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OutputInvalidError);
        expect(error).toMatchObject({ code: "output_invalid", phase: "after_delivery" });
        expect((error as Error).message).toMatch(/^structured output: the provider refused the model's answers until it gave up: .*count/);
        // The CLI retried the model itself before giving up.
        expect(modelRequests(ctx).length).toBeGreaterThan(1);
      } finally {
        await agent.close();
      }
    });
  });

  it("fails with output_invalid and the raw value when the schema refuses what the CLI accepted", async () => {
    const Shout = z.object({ word: z.string().refine((word) => word === word.toUpperCase(), "must be upper case") });
    await withRealCli("claude", answer({ word: "quiet" }), async (ctx) => {
      const agent = createAgent(claude(driverConfig(ctx)), { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Shout a word, JSON please", { output: Shout });
        const types: string[] = [];
        for await (const event of stream) types.push(event.type);
        const error = await stream.result.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OutputInvalidError);
        expect(error).toMatchObject({ code: "output_invalid", phase: "after_delivery", partial: { text: '{"word":"quiet"}' } });
        expect((error as OutputInvalidError).issues).toEqual([{ path: ["word"], message: "must be upper case" }]);
        expect(types.at(-1)).toBe("run.failed");
      } finally {
        await agent.close();
      }
    });
  });
});
