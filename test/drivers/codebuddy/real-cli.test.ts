/**
 * Real-CLI lane for the CodeBuddy driver: the CodeBuddy Code bundle shipped inside
 * `@tencent-ai/agent-sdk`, driven over its stream-json dialect against the scripted model
 * server's Chat Completions dialect, with the endpoint and key given by the driver's provider
 * binding (CODEBUDDY_BASE_URL / CODEBUDDY_API_KEY). The key the CLI echoes in its initialize reply
 * must never appear in an inspection, an event or an error.
 */
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { claudeDialect } from "../../../src/drivers/claude/dialect.js";
import { codebuddyDialect } from "../../../src/drivers/codebuddy/dialect.js";
import { codebuddy, type CodebuddyConfig } from "../../../src/drivers/codebuddy/index.js";
import { createStreamJsonDriver } from "../../../src/drivers/stream-json/driver.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { lastUserText, type CapturedRequest, type ModelScript } from "../../../src/testing/model-server/index.js";
import { withRealCli, type RealCliContext } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { collect, ofType, runDirect, types } from "../helpers.js";
import { laneEnv } from "../real-lane.js";

const KEY_ENV = "CODEBUDDY_LANE_KEY";
const KEY = "cb-lane-secret-key-0123456789";
const TAIL = KEY.slice(-8);

/** The provider binding replaces the lane's models.json: the CLI reaches the server through CODEBUDDY_BASE_URL. */
async function driverConfig(ctx: RealCliContext, extra: Partial<CodebuddyConfig> = {}): Promise<CodebuddyConfig> {
  await rm(join(ctx.configDir, "models.json"), { force: true });
  return {
    executable: ctx.entry,
    configDir: ctx.configDir,
    model: ctx.model,
    settingSources: [],
    provider: { baseUrl: ctx.server.url, apiKeyEnv: KEY_ENV },
    ...extra,
    env: { ...laneEnv(ctx, []), [KEY_ENV]: KEY, ...extra.env },
  };
}

const modelRequests = (ctx: RealCliContext): CapturedRequest[] => ctx.server.requests.filter((r) => r.dialect === "chat" && !r.auxiliary);
const noKey = (value: unknown) => {
  const text = JSON.stringify(value);
  expect(text).not.toContain(KEY);
  expect(text).not.toContain(TAIL);
};

describeRealCli("codebuddy", () => {
  it("inspects through initialize: observed commands and models, the echoed key redacted everywhere", async () => {
    await withRealCli("codebuddy", { turns: [] }, async (ctx) => {
      const driver = codebuddy(await driverConfig(ctx));
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const raw = await driver.inspect({ workspace: ctx.workspace, resources: { tools: [], skills: [], mcp: [] } }, new AbortController().signal);
        // The CLI did echo the key: the driver registered it as a secret.
        expect(raw.secrets).toContain(KEY);

        const inspection = await agent.inspect();
        expect(inspection.commands.status).toBe("observed");
        expect(inspection.commands.value!.length).toBeGreaterThan(0);
        expect(inspection.commands.value!.every((c) => !c.name.startsWith("/"))).toBe(true);
        expect(inspection.commands.evidence[0]).toMatchObject({
          transport: "codebuddy stream-json",
          method: "initialize",
          providerVersion: ctx.version,
          scope: "process",
        });
        expect(inspection.models.status).toBe("observed");
        expect(inspection.models.value!.filter((m) => m.isDefault).length).toBeLessThanOrEqual(1);
        expect(inspection.auth).toMatchObject({ status: "observed", value: { signedIn: true, method: "api_key" } });
        expect(inspection.mcp).toMatchObject({ status: "unsupported", reason: { code: "method_unsupported" } });
        noKey(inspection);
        expect(modelRequests(ctx)).toEqual([]);
        expect(existsSync(join(ctx.configDir, "projects"))).toBe(false);
      } finally {
        await agent.close();
      }
    });
  });

  it("runs a text turn against the Chat Completions endpoint", async () => {
    const script: ModelScript = { turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 6 } }] };
    await withRealCli("codebuddy", script, async (ctx) => {
      const agent = createAgent(codebuddy(await driverConfig(ctx)), { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Say hello to the lane");
        const events = await collect(stream);
        const result = await stream.result;
        expect(result.text).toBe("Hello from the scripted model.");
        expect(ofType(events, "message.completed").at(-1)!.text).toBe("Hello from the scripted model.");
        expect(ofType(events, "thread.bound")).toHaveLength(1);
        expect(result.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
        expect(result.usage!.cost_usd).toBeUndefined();
        const [request] = modelRequests(ctx);
        expect(request).toMatchObject({ path: "/chat/completions", model: ctx.model, stream: true });
        expect(lastUserText(request!)).toContain("Say hello to the lane");
        noKey(events);
      } finally {
        await agent.close();
      }
    });
  });

  it("accepts one approval and declines another, answering in CodeBuddy's shape", async () => {
    const script = (dirs: { workspace: string }): ModelScript => ({
      turns: [
        { match: { lastUserTextContains: "two files" }, reply: { toolCalls: [{ id: "call_ok", name: "Write", arguments: { file_path: join(dirs.workspace, "yes.txt"), content: "approved\n" } }] } },
        { match: { toolResultFor: "call_ok" }, reply: { toolCalls: [{ id: "call_no", name: "Write", arguments: { file_path: join(dirs.workspace, "no.txt"), content: "refused\n" } }] } },
        { match: { toolResultFor: "call_no" }, reply: { text: "One written, one refused." } },
      ],
    });
    await withRealCli("codebuddy", script, async (ctx) => {
      const onApproval = async (request: { callId?: string }) =>
        request.callId === "call_ok" ? ({ decision: "allow" } as const) : ({ decision: "deny", message: "Not that one." } as const);
      const agent = createAgent(codebuddy(await driverConfig(ctx)), { workspace: ctx.workspace, defaults: { onApproval } });
      try {
        const stream = agent.stream("Please write two files");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("One written, one refused.");
        expect(ofType(events, "approval.resolved").map((e) => e.decision.decision)).toEqual(["allow", "deny"]);
        // can_use_tool comes before the tool call: the tool is started from it, once.
        expect(types(events).filter((t) => t === "tool.started" || t === "approval.requested")).toEqual([
          "tool.started",
          "approval.requested",
          "tool.started",
          "approval.requested",
        ]);
        expect(ofType(events, "tool.completed").map((e) => [e.callId, e.status])).toEqual([
          ["call_ok", "completed"],
          ["call_no", "declined"],
        ]);
        expect(await readFile(join(ctx.workspace, "yes.txt"), "utf8")).toBe("approved\n");
        expect(existsSync(join(ctx.workspace, "no.txt"))).toBe(false);
        const refused = modelRequests(ctx)[2]!.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result" && p.callId === "call_no");
        expect(refused).toBeDefined();
        noKey(events);
      } finally {
        await agent.close();
      }
    });
  });

  it("proves the dialect difference: a Claude-shaped allow is read as a denial", async () => {
    const script = (dirs: { workspace: string }): ModelScript => ({
      turns: [
        { reply: { toolCalls: [{ id: "call_x", name: "Write", arguments: { file_path: join(dirs.workspace, "claude-shaped.txt"), content: "x\n" } }] } },
        { match: { toolResultFor: "call_x" }, reply: { text: "Not written." } },
      ],
    });
    await withRealCli("codebuddy", script, async (ctx) => {
      // The shared core with CodeBuddy's dialect, except for Claude's answer shape.
      const wrong = createStreamJsonDriver({ ...codebuddyDialect, permissionAnswer: claudeDialect.permissionAnswer }, await driverConfig(ctx));
      const agent = createAgent(wrong, { workspace: ctx.workspace, defaults: { onApproval: async () => ({ decision: "allow" }) } });
      try {
        const events = await collect(agent.stream("write it"));
        expect(ofType(events, "approval.resolved")[0]!.decision).toEqual({ decision: "allow" });
        expect(existsSync(join(ctx.workspace, "claude-shaped.txt"))).toBe(false);
        expect(ofType(events, "tool.completed")[0]!.status).toBe("failed");
      } finally {
        await agent.close();
      }
    });
  });

  it("interrupts a streaming turn (a success result on the wire) into exactly one run.cancelled", async () => {
    const script: ModelScript = { turns: [{ reply: { text: "word ".repeat(150), chunkSize: 5 }, fault: { dripMs: 40 } }] };
    await withRealCli("codebuddy", script, async (ctx) => {
      const driver = codebuddy(await driverConfig(ctx));
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const stream = agent.stream("talk slowly");
        const events: AgentEvent[] = [];
        for await (const event of stream) {
          events.push(event);
          if (event.type === "message.delta" && ofType(events, "message.delta").length === 2) stream.cancel("seen enough");
        }
        await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
        expect(types(events).filter((t) => t.startsWith("run."))).toEqual(["run.started", "run.cancelled"]);
        expect(driver.livePids()).toEqual([]);
      } finally {
        await agent.close();
      }
    });
  });

  it("resumes a session in a new process with the earlier turns sent to the model, and forks it", async () => {
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "pecan" }, reply: { text: "Noted: pecan." } },
        { match: { lastUserTextContains: "Which nut" }, reply: { text: "You said pecan." } },
        { match: { lastUserTextContains: "Fork check" }, reply: { text: "Forked." } },
      ],
    };
    await withRealCli("codebuddy", script, async (ctx) => {
      const first = codebuddy(await driverConfig(ctx));
      const one = await runDirect(first, { prompt: "Remember the nut pecan", workspace: ctx.workspace });
      await first.close();
      const second = codebuddy(await driverConfig(ctx));
      try {
        const sessionId = one.response!.providerSessionId!;
        const two = await runDirect(second, { prompt: "Which nut did I name?", workspace: ctx.workspace, thread: { id: "t", providerSessionId: sessionId } });
        expect(two.response?.text).toBe("You said pecan.");
        expect(two.response?.providerSessionId).toBe(sessionId);
        const [, request] = modelRequests(ctx);
        const history = JSON.stringify(request!.messages);
        expect(history).toContain("Remember the nut pecan");
        expect(history).toContain("Noted: pecan.");
        // A fork continues the same history under a new session id.
        const forked = await runDirect(second, { prompt: "Fork check", workspace: ctx.workspace, thread: { id: "f", providerSessionId: sessionId, fork: true } });
        expect(forked.response?.text).toBe("Forked.");
        expect(forked.response?.providerSessionId).toBeDefined();
        expect(forked.response?.providerSessionId).not.toBe(sessionId);
        expect(JSON.stringify(modelRequests(ctx)[2]!.messages)).toContain("Remember the nut pecan");
        noKey([one, two, forked]);
      } finally {
        await second.close();
      }
    });
  });
});
