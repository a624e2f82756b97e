/**
 * Real-CLI lane of the Pi driver's resources: instructions, skills, host tools and MCP servers
 * reach the real `pi --mode rpc` (the pinned devDependency), proven by what the scripted model
 * server receives. Skills are Pi's own (`--skill`); instructions, host tools and MCP servers go
 * through the driver's extension.
 */
import { existsSync } from "node:fs";
import { expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { pi, type PiConfig } from "../../../src/drivers/pi/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV } from "../../../src/testing/real-cli/settings.js";
import { withRealCli, type RealCliContext } from "../../../src/testing/real-cli/index.js";
import { capturedTexts, describeRealCli } from "../../real-cli/helpers.js";
import { laneEnv } from "../real-lane.js";

function configFor(ctx: RealCliContext, extra: Partial<PiConfig> = {}): PiConfig {
  return {
    executable: ctx.executable,
    args: ctx.executable === process.execPath ? [ctx.entry] : [],
    env: laneEnv(ctx, ["PI_CODING_AGENT_DIR"]),
    provider: { baseUrl: `${ctx.server.url.replace(/\/+$/, "")}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model },
    ...extra,
  };
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const modelRequests = (ctx: RealCliContext): CapturedRequest[] => ctx.server.requests.filter((r) => r.dialect === "chat" && !r.auxiliary);

/** The skill directory Pi was given, as its system prompt states it (`<location>…/SKILL.md</location>`). */
function skillLocation(system: string, name: string): string | undefined {
  const at = system.indexOf(`<name>${name}</name>`);
  const match = at < 0 ? null : /<location>([^<]+)<\/location>/.exec(system.slice(at));
  return match?.[1];
}

const SKILL_BODY = "When asked for the lane word, answer PI-SKILL-BODY-7311.";

describeRealCli("pi", () => {
  it("delivers instructions into the system prompt and a skill Pi lists, loads on /skill:<name>, and removes with its process", async () => {
    const script = {
      turns: [
        { match: { lastUserTextContains: "first turn" }, reply: { text: "First." } },
        { match: { lastUserTextContains: "PI-SKILL-BODY-7311" }, reply: { text: "Skill loaded." } },
      ],
    };
    await withRealCli("pi", script, async (ctx) => {
      const agent = createAgent(pi(configFor(ctx)), {
        workspace: ctx.workspace,
        instructions: "Lane instructions: always mention PI-INSTRUCTIONS-4242.",
        skills: [{ name: "lane-word", description: "Gives the lane word. Use when asked for the lane word.", files: { "SKILL.md": `# Lane word\n\n${SKILL_BODY}\n` } }],
      });
      try {
        const inspection = await agent.inspect();
        expect(inspection.skills.status).toBe("observed");
        expect(inspection.skills.value?.skills).toEqual([expect.objectContaining({ name: "lane-word", description: "Gives the lane word. Use when asked for the lane word." })]);

        const first = await agent.run("The first turn");
        expect(first.text).toBe("First.");
        const [request] = modelRequests(ctx) as [CapturedRequest];
        const system = capturedTexts(request.messages, "system").join("\n");
        expect(system).toContain("Lane instructions: always mention PI-INSTRUCTIONS-4242.");
        expect(system).toContain("<name>lane-word</name>");
        const location = skillLocation(system, "lane-word");
        expect(location).toMatch(/SKILL\.md$/);
        // Not the workspace, not Pi's own directory: the process's private directory, gone with the process.
        expect(location!.startsWith(ctx.workspace)).toBe(false);
        expect(existsSync(location!)).toBe(false);

        const second = await agent.run("/skill:lane-word");
        expect(second.text).toBe("Skill loaded.");
        const user = capturedTexts(modelRequests(ctx)[1]!.messages, "user").join("\n");
        expect(user).toContain(SKILL_BODY);
      } finally {
        await agent.close();
      }
    });
  });
});
