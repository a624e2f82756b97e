/**
 * Typed structured output on the real Codex CLI (issue #15 item 7): a zod schema travels as
 * `turn/start.outputSchema` (Codex sends it to the model as a strict `json_schema` text format),
 * the scripted model answers with JSON text, and core validates it with the schema: a matching
 * answer is typed, a mismatching one fails the run with `output_invalid` and the raw text.
 */
import { expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../../src/agent/agent.js";
import { codex, type CodexDriver } from "../../../src/drivers/codex/index.js";
import { OutputInvalidError } from "../../../src/errors/index.js";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";

function driverFor(ctx: RealCliContext): CodexDriver {
  return codex({
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  });
}

const modelRequests = (ctx: RealCliContext): CapturedRequest[] => ctx.server.requests.filter((r) => r.dialect === "responses" && !r.auxiliary);
const Fruit = z.object({ fruit: z.string(), count: z.number().int() });

describeRealCli("codex", () => {
  it("sends the zod schema natively and returns the answer validated and typed", async () => {
    const script: RealCliScript = { turns: [{ reply: { text: '{"fruit":"fig","count":3}' } }] };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      try {
        const result = await agent.run("Which fruit, how many? JSON please", { output: Fruit });
        expectTypeOf(result.structured).toEqualTypeOf<{ fruit: string; count: number } | undefined>();
        expect(result.structured).toEqual({ fruit: "fig", count: 3 });
        const [request] = modelRequests(ctx);
        expect((request!.body as { text?: { format?: unknown } }).text?.format).toMatchObject({ type: "json_schema", schema: z.toJSONSchema(Fruit) });
      } finally {
        await agent.close();
      }
    });
  });

  it("fails a mismatching answer with output_invalid, the issues and the raw text", async () => {
    const raw = '{"fruit":"fig","count":"three"}';
    const script: RealCliScript = { turns: [{ reply: { text: raw } }] };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      try {
        const error = await agent.run("Which fruit, how many? JSON please", { output: Fruit }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OutputInvalidError);
        expect(error).toMatchObject({ code: "output_invalid", phase: "after_delivery", partial: { text: raw } });
        expect((error as OutputInvalidError).issues.map((issue) => issue.path)).toEqual([["count"]]);
      } finally {
        await agent.close();
      }
    });
  });
});
