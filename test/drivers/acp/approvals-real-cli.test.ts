/**
 * An ACP agent's `allow_always` option selected from the stream by id, on the real Gemini CLI
 * against the scripted model server (issue #15 item 4): the agent runs the second command of the
 * same kind in the turn without asking again.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { gemini } from "../../../src/drivers/acp/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { withRealCli, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";

const shell = (id: string, command: string) => ({ toolCalls: [{ id, name: "run_shell_command", arguments: { command, description: "write a proof file" } }] });

describeRealCli("gemini", () => {
  it("selecting allow_always by id: the next command of that kind runs without a second permission request", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "proof files" }, reply: shell("call_one", "printf one > one.txt") },
        { match: { toolResultFor: "call_one" }, reply: shell("call_two", "printf two > two.txt") },
        { match: { toolResultFor: "call_two" }, reply: { text: "Both files are written." } },
      ],
    };
    await withRealCli("gemini", script, async (ctx) => {
      const driver = gemini({ provider: { baseUrl: ctx.server.url.replace(/\/+$/, ""), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env });
      const agent = createAgent(driver, { workspace: ctx.workspace, defaults: { onApproval: "stream" } });
      try {
        const stream = agent.stream("Write the proof files");
        const events: AgentEvent[] = [];
        for await (const event of stream) {
          events.push(event);
          if (event.type !== "approval.requested") continue;
          const always = event.options.find((o) => o.kind === "allow_always");
          // A second request would be refused here, so a failure shows as a denied command.
          if (events.filter((e) => e.type === "approval.requested").length > 1 || always === undefined) stream.respond(event.requestId, { decision: "deny" });
          else stream.respond(event.requestId, { optionId: always.id });
        }
        expect((await stream.result).text).toContain("Both files are written.");
        const requested = events.filter((e) => e.type === "approval.requested");
        expect(requested).toHaveLength(1);
        expect(requested[0]).toMatchObject({ kind: "command", options: expect.arrayContaining([{ id: "proceed_always", label: expect.any(String), kind: "allow_always" }]) });
        expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ by: "stream", decision: { decision: "allow", scope: "session", optionId: "proceed_always" } });
        expect(readFileSync(join(ctx.workspace, "one.txt"), "utf8")).toBe("one");
        expect(readFileSync(join(ctx.workspace, "two.txt"), "utf8")).toBe("two");
      } finally {
        await agent.close();
      }
    });
  });
});
