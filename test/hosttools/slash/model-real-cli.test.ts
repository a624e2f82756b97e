/**
 * Real-CLI lane: `/model` on an ACP agent that offers a `model` session config option
 * (claude-agent-acp against the scripted model server; no login, no paid call). The switch reaches
 * the agent through `session/set_config_option`, is confirmed by reading the option back before the
 * prompt is sent, and the model server sees the new model on the same conversation. A model the
 * agent does not offer fails the next run before any model request.
 */
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { claudeAcp } from "../../../src/drivers/acp/index.js";
import { createSlashCommands } from "../../../src/hosttools/slash/index.js";
import { createSession } from "../../../src/session/open.js";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { handled, logged, runTurn } from "./helpers.js";

const modelRequests = (ctx: RealCliContext): CapturedRequest[] => ctx.server.requests.filter((r) => r.dialect === ctx.spec.dialect && !r.auxiliary);
const userText = (request: CapturedRequest | undefined): string =>
  (request?.messages ?? []).filter((m) => m.role === "user").flatMap((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : []))).join("\n");

describeRealCli("claude-agent-acp", () => {
  it("/model switches the next run's model through the agent's config option, read back, on the same conversation", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "Default model" }, reply: { text: "Default." } },
        { match: { lastUserTextContains: "Selected model" }, reply: { text: "Selected." } },
      ],
    };
    await withRealCli("claude-agent-acp", script, async (ctx) => {
      const driver = claudeAcp({ provider: { baseUrl: ctx.server.url.replace(/\/+$/, ""), apiKeyEnv: "ANTHROPIC_API_KEY", model: ctx.model }, env: ctx.env });
      const agent = createAgent(driver, { workspace: ctx.workspace });
      const session = await createSession(agent);
      const slash = createSlashCommands({ session, agent, collisions: "native-first" });
      try {
        expect(await runTurn(session, "Default model please")).toMatchObject({ type: "run.completed" });
        // The agent advertised its own commands inside the conversation: the collision policy now knows them.
        const native = await slash.nativeCommands();
        expect(native).toMatchObject({ known: true, source: "session" });
        expect(native.known && native.commands.length).toBeGreaterThan(0);
        const defaultModel = modelRequests(ctx).at(-1)?.model;
        expect(defaultModel).toBeDefined();
        expect(defaultModel).not.toMatch(/^claude-haiku-/);

        const set = handled(await slash.dispatch("/model haiku"));
        expect(set).toMatchObject({ ok: true, command: "model" });
        expect(set.output).toBe(
          "Model set to haiku; applied from the next run, through the agent's session config option, confirmed by reading it back before the prompt is sent.",
        );
        // ACP reports its models inside a session only: no list to show, and no guess.
        expect(handled(await slash.dispatch("/model")).output).toBe("Model: haiku");

        expect(await runTurn(session, "Selected model please")).toMatchObject({ type: "run.completed" });
        const requests = modelRequests(ctx);
        expect(requests).toHaveLength(2);
        expect(requests[1]?.model).toMatch(/^claude-haiku-/);
        // The same provider conversation: the first turn is part of the second request.
        expect(userText(requests[1])).toContain("Default model please");
        const started = (await logged(session)).filter((e) => e.type === "run.started");
        expect(started.map((e) => (e as { model?: string }).model)).toEqual([undefined, "haiku"]);
        expect(handled(await slash.dispatch("/status")).output).toContain("Model: haiku");

        // A value the option does not offer: the next run fails before any model request, naming it.
        expect(handled(await slash.dispatch("/model no-such-model-xyz")).ok).toBe(true);
        const failed = await runTurn(session, "Never sent");
        expect(failed).toMatchObject({ type: "run.failed", error: { code: "config_value_unavailable" } });
        expect(modelRequests(ctx)).toHaveLength(2);
      } finally {
        await session.close();
        await agent.close();
      }
    });
  });
});
