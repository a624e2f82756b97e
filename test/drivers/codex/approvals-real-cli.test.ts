/**
 * Approvals and questions answered from the stream on the real Codex CLI (issue #15 item 4),
 * against the scripted model server: selecting the offered "allow and remember this command prefix"
 * option by id makes Codex run the next command with that prefix without asking again; with the
 * `default_mode_request_user_input` feature the driver enables, `request_user_input` reaches the
 * host as a question (with Codex's flags) and the stream's answer reaches the model.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { codex, type CodexDriver } from "../../../src/drivers/codex/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import type { RunStream } from "../../../src/agent/run-stream.js";
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

/** Reads the whole stream, answering each request with `answer`. */
async function answering(stream: RunStream, answer: (event: AgentEvent, stream: RunStream) => void): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    answer(event, stream);
  }
  return events;
}

const escalated = (id: string, cmd: string) => ({
  toolCalls: [{ id, name: "exec_command", arguments: { cmd, sandbox_permissions: "require_escalated", justification: "The test asks for it", prefix_rule: ["touch"] } }],
});

describeRealCli("codex", () => {
  it("selecting the offered prefix rule by id: the next command with that prefix runs without a second approval", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "first" }, reply: escalated("call_one", "touch one.txt") },
        { match: { toolResultFor: "call_one" }, reply: { text: "First done." } },
        { match: { lastUserTextContains: "second" }, reply: escalated("call_two", "touch two.txt") },
        { match: { toolResultFor: "call_two" }, reply: { text: "Second done." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace, defaults: { policy: { sandbox: "workspace-write", approval: "on-request" }, onApproval: "stream" } });
      try {
        const thread = await agent.startThread();
        const first = thread.stream("Do the first command");
        const firstEvents = await answering(first, (event, stream) => {
          if (event.type === "approval.requested") stream.respond(event.requestId, { optionId: "acceptWithExecpolicyAmendment" });
        });
        expect((await first.result).text).toBe("First done.");
        const requested = firstEvents.find((e) => e.type === "approval.requested");
        expect(requested).toMatchObject({ kind: "command", callId: "call_one" });
        expect((requested as { options: unknown[] }).options).toContainEqual({ id: "acceptWithExecpolicyAmendment", label: expect.stringContaining("touch"), kind: "allow_always" });
        expect(firstEvents.find((e) => e.type === "approval.resolved")).toMatchObject({ by: "stream", decision: { decision: "allow", optionId: "acceptWithExecpolicyAmendment" } });
        expect(existsSync(join(ctx.workspace, "one.txt"))).toBe(true);

        const second = thread.stream("Do the second command");
        const secondEvents = await answering(second, (event, stream) => {
          if (event.type === "approval.requested") stream.respond(event.requestId, { decision: "deny", message: "should not be asked" });
        });
        expect((await second.result).text).toBe("Second done.");
        expect(secondEvents.filter((e) => e.type === "approval.requested")).toEqual([]);
        expect(secondEvents.find((e) => e.type === "tool.completed")).toMatchObject({ callId: "call_two", status: "completed" });
        expect(existsSync(join(ctx.workspace, "two.txt"))).toBe(true);
      } finally {
        await agent.close();
      }
    });
  });

  it("request_user_input reaches the host as a question and the stream's answer reaches the model", async () => {
    const questions = [
      { id: "db", header: "Database", question: "Which database?", options: [{ label: "Postgres", description: "SQL server" }, { label: "SQLite", description: "Embedded" }] },
    ];
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "Set up" }, reply: { toolCalls: [{ id: "call_ask", name: "request_user_input", arguments: { questions } }] } },
        { match: { toolResultFor: "call_ask" }, reply: { text: "Using your choice." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace, defaults: { onUserInput: "stream" } });
      try {
        const stream = agent.stream("Set up the project");
        const events = await answering(stream, (event, s) => {
          if (event.type === "question.requested") s.answer(event.requestId, { db: "SQLite" });
        });
        expect((await stream.result).text).toBe("Using your choice.");
        const asked = ctx.server.requests.find((r) => r.tools.includes("request_user_input"));
        expect(asked).toBeDefined();
        const requested = events.find((e) => e.type === "question.requested");
        expect(requested).toMatchObject({ questions: [{ id: "db", header: "Database", question: "Which database?", options: questions[0]!.options }] });
        expect(events.find((e) => e.type === "question.resolved")).toMatchObject({ answered: true, by: "stream" });
        const followUp = ctx.server.requests.find((r) => r.messages.some((m) => m.parts.some((p) => p.type === "tool_result" && p.callId === "call_ask")))!;
        const result = followUp.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result" && p.callId === "call_ask") as { text?: string };
        expect(result.text).toContain("SQLite");
      } finally {
        await agent.close();
      }
    });
  });
});
