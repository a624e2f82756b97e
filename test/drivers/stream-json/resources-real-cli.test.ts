/**
 * Real-CLI lane of the agent's resources on Claude Code and CodeBuddy: one scripted turn in which
 * the model calls a stdio MCP server written for the test (its env carrying a secret canary, which
 * never shows on any command line of the CLI or its children, nor in events), then asks for the
 * agent's skill, whose content reaches the model; the agent's instructions reach the system
 * prompt. Claude's inspection lists the skill.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import type { Driver } from "../../../src/driver/types.js";
import type { StreamJsonDriver } from "../../../src/drivers/stream-json/driver.js";
import type { AgentEvent } from "../../../src/events/types.js";
import type { CapturedRequest, ModelScript } from "../../../src/testing/model-server/index.js";
import { withRealCli } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { ofType } from "../helpers.js";
import { mcpCall, streamJsonLaneDriver } from "./lane.js";
import { commandLines, processTree } from "./proc-tree.js";

const ECHO_MCP_SERVER = fileURLToPath(new URL("./fixtures/echo-mcp-server.mjs", import.meta.url));
const ENV_CANARY = "mcp-env-canary-4d2e9a61";
const INSTRUCTIONS = "Always answer like a lighthouse keeper (INSTR-MARKER-77).";
const SKILL_BODY = "Greet with the words PURPLE-OWL-BODY.";



/** The scripted turn: the MCP call, the skill, the answer. */
function script(cli: "claude" | "codebuddy"): ModelScript {
  const calls = [
    ...(cli === "codebuddy" ? [{ id: "call_wait", name: "WaitForMcpServers", arguments: { servers: ["echo"] } }] : []),
    mcpCall(cli, "call_mcp", "mcp__echo__say", { text: "hi" }),
    { id: "call_skill", name: "Skill", arguments: { skill: "greet" } },
  ];
  return {
    turns: [
      ...calls.map((call, i) => ({ match: i === 0 ? { lastUserTextContains: "use your resources" } : { toolResultFor: calls[i - 1]!.id }, reply: { toolCalls: [call] } })),
      { match: { toolResultFor: "call_skill" }, reply: { text: "Done." } },
    ],
  };
}

const systemText = (request: CapturedRequest) =>
  request.messages
    .filter((m) => m.role === "system")
    .flatMap((m) => m.parts)
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("\n");

for (const cli of ["claude", "codebuddy"] as const) {
  describeRealCli(cli, () => {
    it("a stdio MCP server with a secret in its env, a skill the model loads, the instructions: all reach the model; nothing leaks or stays", async () => {
      await withRealCli(cli, script(cli), async (ctx) => {
        const driver: Driver & StreamJsonDriver = await streamJsonLaneDriver(cli, ctx);
        const agent = createAgent(driver, {
          workspace: ctx.workspace,
          instructions: INSTRUCTIONS,
          mcp: [
            {
              name: "echo",
              command: process.execPath,
              args: [ECHO_MCP_SERVER],
              env: { ECHO_SECRET: ENV_CANARY, ECHO_SECRET_SHA: createHash("sha256").update(ENV_CANARY).digest("hex") },
            },
          ],
          skills: [{ name: "greet", description: "How to greet the user", files: { "SKILL.md": SKILL_BODY } }],
          defaults: { onApproval: async () => ({ decision: "allow" }) },
        });
        try {
          if (cli === "claude") {
            const inspection = await agent.inspect();
            expect(inspection.skills).toMatchObject({ status: "observed", value: { skills: [{ name: "greet", description: "How to greet the user", source: "agent" }] } });
          }
          const events: AgentEvent[] = [];
          const commandLinesSeen: string[] = [];
          const stream = agent.stream("Please use your resources");
          for await (const event of stream) {
            events.push(event);
            // While the MCP call runs, the CLI and its MCP server are alive: read every command line.
            if (event.type === "tool.started") commandLinesSeen.push(...commandLines(processTree(driver.livePids())));
          }
          expect((await stream.result).text).toBe("Done.");

          const mcp = ofType(events, "tool.completed").find((e) => e.callId === "call_mcp");
          expect(mcp).toMatchObject({ status: "completed", output: expect.stringContaining("echo: hi (secret ok)") });
          const started = ofType(events, "tool.started").find((e) => e.callId === "call_mcp");
          expect(started).toMatchObject({ kind: "mcp", name: "mcp__echo__say", mcp: { server: "echo", tool: "say" }, rawInput: { text: "hi" } });

          const requests = ctx.server.requests.filter((r) => r.nth !== undefined);
          expect(systemText(requests[0]!)).toContain("INSTR-MARKER-77");
          const afterSkill = requests.at(-1)!;
          expect(JSON.stringify(afterSkill.messages)).toContain("PURPLE-OWL-BODY");

          expect(commandLinesSeen.length).toBeGreaterThan(1);
          expect(commandLinesSeen.some((line) => line.includes(ECHO_MCP_SERVER))).toBe(true);
          for (const line of commandLinesSeen) expect(line).not.toContain(ENV_CANARY);
          expect(JSON.stringify(events)).not.toContain(ENV_CANARY);
          // The process's own directory (MCP config, skills plugin) is named on its command line: it is gone once the run retired it.
          const dirs = commandLinesSeen.join(" ").match(/--mcp-config=(\S+)/);
          expect(dirs).not.toBeNull();
          await agent.close();
          expect(existsSync(dirs![1]!)).toBe(false);
          expect(driver.livePids()).toEqual([]);
        } finally {
          await agent.close();
        }
      });
    });
  });
}
