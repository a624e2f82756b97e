/**
 * Structured output on an ACP agent (issue #15 item 7), real codex-acp against the scripted
 * model server: ACP advertises no structured output, so a native `output` is refused before
 * anything launches, and the prompted mode carries the schema in the prompt and reads the JSON
 * from the final message.
 */
import { expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createAgent } from "../../../src/agent/agent.js";
import { codexAcp } from "../../../src/drivers/acp/index.js";
import { FeatureUnsupportedError } from "../../../src/errors/index.js";
import { lastUserText } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV } from "../../../src/testing/real-cli/settings.js";
import { withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";

const driverFor = (ctx: RealCliContext) =>
  codexAcp({ provider: { baseUrl: `${ctx.server.url.replace(/\/+$/, "")}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env });

const Fruit = z.object({ fruit: z.string(), count: z.number().int() });

describeRealCli("codex-acp", () => {
  it("refuses a native output before launch, and answers a prompted one from the fenced JSON", async () => {
    const script: RealCliScript = { turns: [{ reply: { text: 'Here you go:\n```json\n{"fruit":"fig","count":3}\n```' } }] };
    await withRealCli("codex-acp", script, async (ctx) => {
      const driver = driverFor(ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const refused = await agent.run("Which fruit? JSON please", { output: Fruit }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(FeatureUnsupportedError);
        expect(refused).toMatchObject({ code: "feature_unsupported", phase: "before_delivery" });
        expect(driver.processes().started).toBe(0);
        expect(ctx.server.requests).toEqual([]);

        const result = await agent.run("Which fruit? JSON please", { output: { schema: Fruit, mode: "prompted" } });
        expectTypeOf(result.structured).toEqualTypeOf<{ fruit: string; count: number } | undefined>();
        expect(result.structured).toEqual({ fruit: "fig", count: 3 });
        const [request] = ctx.server.requests.filter((r) => !r.auxiliary);
        const asked = lastUserText(request!);
        expect(asked.startsWith("Which fruit? JSON please\n\nReply with a single JSON value")).toBe(true);
        expect(asked).toContain(JSON.stringify(z.toJSONSchema(Fruit)));
      } finally {
        await agent.close();
      }
    });
  });
});
