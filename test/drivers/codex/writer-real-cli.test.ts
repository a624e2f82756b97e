/**
 * The warm writer on the real `codex app-server` (issue #14 item 4), against the scripted
 * Responses server: a thread's second turn runs on the first turn's process — one spawn, the
 * thread still loaded — and the model sees the first turn as history. No timing is asserted.
 */
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { codex } from "../../../src/drivers/codex/index.js";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";

function driverFor(ctx: RealCliContext) {
  return codex({
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  });
}

const textOf = (request: CapturedRequest) =>
  request.messages.flatMap((m) => m.parts).map((p) => (p.type === "text" ? p.text : "")).join("\n");

describeRealCli("codex", () => {
  it("runs a thread's second turn on the warm writer: one process, no resume, history intact", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "MANGO" }, reply: { text: "Noted: mango." } },
        { match: { lastUserTextContains: "Which fruit" }, reply: { text: "It was mango." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace, defaults: { model: ctx.model } });
      try {
        const thread = await agent.startThread();
        const first = await thread.run("Remember the word MANGO");
        const [warm] = driver.processes().live;
        expect(warm).toBeDefined();
        const second = await thread.run("Which fruit did I name?");
        expect(second.text).toBe("It was mango.");
        expect(second.providerSessionId).toBe(first.providerSessionId);
        expect(driver.processes().started).toBe(1);
        expect(driver.processes().live).toEqual([warm]);
        const bound = second.transcript().find((e) => e.type === "thread.bound");
        expect(bound?.provenance?.event).toBe("loaded");
        const requests = ctx.server.requests.filter((r) => r.dialect === "responses" && !r.auxiliary);
        expect(textOf(requests.at(-1)!)).toContain("Noted: mango.");
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  });
});
