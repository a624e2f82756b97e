/**
 * Claude Code's approvals answered from the stream on the real CLI against the scripted model
 * server (issue #15 item 4): the "always allow" option (the CLI's own permission suggestion)
 * selected by id lets the next matching command run without asking; a denial's message from the
 * stream reaches the model in the tool result.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { claude, type ClaudeConfig } from "../../../src/drivers/claude/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
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
const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "Bash", arguments: { command, description: "write a proof file" } }] });

/** Reads the whole stream, answering each approval with `answer(event)`. */
async function answering(stream: ReturnType<ReturnType<typeof createAgent>["stream"]>, answer: (callId: string | undefined) => Parameters<typeof stream.respond>[1]) {
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (event.type === "approval.requested") stream.respond(event.requestId, answer(event.callId));
  }
  return events;
}

describeRealCli("claude", () => {
  it("always-allow selected by id: the same command runs again unasked (allow once asks twice); a stream denial's message reaches the model", async () => {
    const script = (dirs: { workspace: string }): ModelScript => ({
      turns: [
        { match: { lastUserTextContains: "proof dirs" }, reply: bash("toolu_one", "mkdir -p proof") },
        { match: { toolResultFor: "toolu_one" }, reply: bash("toolu_two", "mkdir -p proof") },
        { match: { toolResultFor: "toolu_two" }, reply: { text: "Made." } },
        { match: { lastUserTextContains: "again" }, reply: bash("toolu_three", "mkdir -p proof") },
        { match: { toolResultFor: "toolu_three" }, reply: bash("toolu_four", "mkdir -p proof") },
        { match: { toolResultFor: "toolu_four" }, reply: { text: "Made again." } },
        { match: { lastUserTextContains: "denied file" }, reply: { toolCalls: [{ id: "toolu_no", name: "Write", arguments: { file_path: join(dirs.workspace, "denied.txt"), content: "nope\n" } }] } },
        { match: { toolResultFor: "toolu_no" }, reply: { text: "Refused." } },
      ],
    });
    await withRealCli("claude", script, async (ctx) => {
      const agent = createAgent(claude(driverConfig(ctx)), { workspace: ctx.workspace, defaults: { onApproval: "stream" } });
      try {
        const always = agent.stream("Make the proof dirs");
        const alwaysEvents = await answering(always, () => ({ optionId: "allow_always" }));
        expect((await always.result).text).toBe("Made.");
        const requested = alwaysEvents.filter((e) => e.type === "approval.requested");
        expect(requested.map((e) => e.callId)).toEqual(["toolu_one"]);
        expect(requested[0]!.options.map((o) => [o.id, o.kind])).toEqual([["allow", "allow_once"], ["allow_always", "allow_always"], ["deny", "deny"]]);
        expect(alwaysEvents.find((e) => e.type === "approval.resolved")).toMatchObject({ by: "stream", decision: { decision: "allow", scope: "session", optionId: "allow_always" } });
        expect(existsSync(join(ctx.workspace, "proof"))).toBe(true);

        // The control: allowing once, the CLI asks again for the same command.
        const once = agent.stream("Make them again");
        const onceEvents = await answering(once, () => ({ optionId: "allow" }));
        expect((await once.result).text).toBe("Made again.");
        expect(onceEvents.filter((e) => e.type === "approval.requested").map((e) => e.callId)).toEqual(["toolu_three", "toolu_four"]);

        const denied = agent.stream("Write the denied file");
        const deniedEvents = await answering(denied, () => ({ decision: "deny", message: "Not this file, use notes.md instead." }));
        expect((await denied.result).text).toBe("Refused.");
        expect(deniedEvents.find((e) => e.type === "tool.completed")).toMatchObject({ callId: "toolu_no", status: "declined" });
        expect(existsSync(join(ctx.workspace, "denied.txt"))).toBe(false);
        const result = modelRequests(ctx).flatMap((r) => r.messages.flatMap((m) => m.parts)).find((p) => p.type === "tool_result" && p.callId === "toolu_no");
        expect(JSON.stringify(result)).toContain("Not this file, use notes.md instead.");
      } finally {
        await agent.close();
      }
    });
  });
});
