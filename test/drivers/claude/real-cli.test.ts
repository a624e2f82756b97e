/**
 * Real-CLI lane for the Claude driver: the native Claude Code binary shipped with the Agent SDK,
 * driven by the driver over stream-json, against the scripted Anthropic Messages server on
 * 127.0.0.1, in an isolated config dir with telemetry, auto-update and non-essential traffic off.
 * The provider binding (base URL + key from a named variable) is what points it at the server.
 */
import { existsSync, readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { input } from "../../../src/input/index.js";
import { claude, type ClaudeConfig } from "../../../src/drivers/claude/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { lastUserText, type CapturedRequest, type ModelScript } from "../../../src/testing/model-server/index.js";
import { withRealCli, type RealCliContext } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { collect, ofType, runDirect, types } from "../helpers.js";
import { countingWrapper, laneEnv, PNG_1X1 } from "../real-lane.js";

const KEY_ENV = "CLAUDE_LANE_KEY";
const KEY = "sk-claude-lane-key-0123456789";

function driverConfig(ctx: RealCliContext, extra: Partial<ClaudeConfig> = {}): ClaudeConfig {
  return {
    executable: ctx.executable,
    configDir: ctx.configDir,
    model: ctx.model,
    settingSources: [],
    provider: { baseUrl: ctx.server.url, apiKeyEnv: KEY_ENV },
    ...extra,
    env: { ...laneEnv(ctx, ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"]), [KEY_ENV]: KEY, ...extra.env },
  };
}

const modelRequests = (ctx: RealCliContext): CapturedRequest[] => ctx.server.requests.filter((r) => r.dialect === "anthropic" && !r.auxiliary);
const parts = (request: CapturedRequest) => request.messages.flatMap((m) => m.parts);
const sessionFiles = (configDir: string): string[] =>
  existsSync(join(configDir, "projects")) ? readdirSync(join(configDir, "projects")).flatMap((d) => readdirSync(join(configDir, "projects", d)).filter((f) => f.endsWith(".jsonl"))) : [];

describeRealCli("claude", () => {
  it("inspects through initialize: observed commands and models with evidence, no conversation, no model call", async () => {
    await withRealCli("claude", { turns: [] }, async (ctx) => {
      const driver = claude(driverConfig(ctx));
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const inspection = await agent.inspect();
        const version = ctx.version.split(" ")[0]!;
        expect(inspection.commands.status).toBe("observed");
        expect(inspection.commands.value!.length).toBeGreaterThan(0);
        expect(inspection.commands.value!.every((c) => typeof c.name === "string" && !c.name.startsWith("/"))).toBe(true);
        expect(inspection.commands.evidence[0]).toMatchObject({ transport: "claude stream-json", method: "initialize", providerVersion: version, scope: "process" });
        expect(inspection.models.status).toBe("observed");
        expect(inspection.models.value!.some((m) => m.isDefault === true)).toBe(true);
        expect(inspection.models.value!.some((m) => (m.efforts ?? []).length > 0)).toBe(true);
        expect(inspection.auth).toMatchObject({ status: "observed", value: { signedIn: true, method: "ANTHROPIC_API_KEY" } });
        expect(inspection.mcp).toMatchObject({ status: "observed", value: { servers: [] } });
        expect(inspection.environment.value).toMatchObject({ version });
        expect(JSON.stringify(inspection)).not.toContain(KEY);
        expect(modelRequests(ctx)).toEqual([]);
        expect(sessionFiles(ctx.configDir)).toEqual([]);
      } finally {
        await agent.close();
      }
      expect(driver.livePids()).toEqual([]);
      expect(sessionFiles(ctx.configDir)).toEqual([]);
    });
  });

  it("prepares a standby that the first run claims: one spawn, no session until the run", async () => {
    const script: ModelScript = { turns: [{ match: { lastUserTextContains: "warm" }, reply: { text: "Warm reply." } }] };
    await withRealCli("claude", script, async (ctx) => {
      const wrapper = await countingWrapper(ctx);
      const driver = claude(driverConfig(ctx, { executable: wrapper.executable }));
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const report = await agent.prepare();
        expect(report.process).toBe("ready");
        expect(report.inspection.models.status).toBe("observed");
        const [standbyPid] = driver.livePids();
        expect(await wrapper.spawns()).toEqual([standbyPid]);
        expect(sessionFiles(ctx.configDir)).toEqual([]);

        const result = await agent.run("a warm start please");
        expect(result.text).toBe("Warm reply.");
        expect(await wrapper.spawns()).toEqual([standbyPid]);
        expect(sessionFiles(ctx.configDir)).toEqual([`${result.providerSessionId}.jsonl`]);
        // The finished run's process retires in the background (issue #14 item 3).
        await expect.poll(() => driver.livePids(), { timeout: 10_000 }).toEqual([]);
      } finally {
        await agent.close();
      }
    });
  });

  it("runs a text turn: deltas, completion, usage and the prompt at the model server", async () => {
    const script: ModelScript = {
      turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 6, usage: { input_tokens: 120, output_tokens: 9 } } }],
    };
    await withRealCli("claude", script, async (ctx) => {
      const agent = createAgent(claude(driverConfig(ctx)), { workspace: ctx.workspace, instructions: "LANE-INSTRUCTIONS-MARK" });
      try {
        const stream = agent.stream("Say hello to the lane");
        const events = await collect(stream);
        const result = await stream.result;
        expect(result.text).toBe("Hello from the scripted model.");
        expect(ofType(events, "message.delta").map((e) => e.text).join("")).toBe("Hello from the scripted model.");
        expect(ofType(events, "message.completed").at(-1)!.text).toBe("Hello from the scripted model.");
        expect(ofType(events, "thread.bound")[0]!.providerSessionId).toBe(result.providerSessionId);
        expect(result.usage).toMatchObject({ input_tokens: 120, output_tokens: 9 });
        expect(result.usage!.total_tokens).toBeUndefined();
        const [request] = modelRequests(ctx);
        expect(lastUserText(request!)).toBe("Say hello to the lane");
        expect(request!.model).toBe(ctx.model);
        // Instructions travel in initialize and are appended to the CLI's own system prompt.
        expect(JSON.stringify(request!.body)).toContain("LANE-INSTRUCTIONS-MARK");
      } finally {
        await agent.close();
      }
    });
  });

  it("writes a file after an approval, and declines a second write", async () => {
    const script = (dirs: { workspace: string }): ModelScript => ({
      turns: [
        { match: { lastUserTextContains: "write the proof" }, reply: { toolCalls: [{ id: "toolu_ok", name: "Write", arguments: { file_path: join(dirs.workspace, "proof.txt"), content: "approved\n" } }] } },
        { match: { toolResultFor: "toolu_ok" }, reply: { toolCalls: [{ id: "toolu_no", name: "Write", arguments: { file_path: join(dirs.workspace, "denied.txt"), content: "nope\n" } }] } },
        { match: { toolResultFor: "toolu_no" }, reply: { text: "One written, one refused." } },
      ],
    });
    await withRealCli("claude", script, async (ctx) => {
      const onApproval = async (request: { callId?: string }) =>
        request.callId === "toolu_ok" ? ({ decision: "allow" } as const) : ({ decision: "deny", message: "Not that one." } as const);
      const agent = createAgent(claude(driverConfig(ctx)), { workspace: ctx.workspace, defaults: { onApproval } });
      try {
        const stream = agent.stream("Please write the proof file");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("One written, one refused.");
        const tools = events.filter((e) => e.type.startsWith("tool.") || e.type.startsWith("approval."));
        expect(tools.map((e) => `${e.type}:${"callId" in e ? e.callId : "requestId" in e ? "" : ""}`)).toEqual([
          "tool.started:toolu_ok",
          "approval.requested:toolu_ok",
          "approval.resolved:",
          "tool.completed:toolu_ok",
          "tool.started:toolu_no",
          "approval.requested:toolu_no",
          "approval.resolved:",
          "tool.completed:toolu_no",
        ]);
        expect(ofType(events, "tool.started")[0]).toMatchObject({ kind: "file_change" });
        expect(ofType(events, "tool.completed").map((e) => e.status)).toEqual(["completed", "declined"]);
        expect(await readFile(join(ctx.workspace, "proof.txt"), "utf8")).toBe("approved\n");
        expect(existsSync(join(ctx.workspace, "denied.txt"))).toBe(false);
        const denied = parts(modelRequests(ctx)[2]!).find((p) => p.type === "tool_result" && p.callId === "toolu_no");
        expect(denied).toMatchObject({ isError: true });
        expect(JSON.stringify(denied)).toContain("Not that one.");
      } finally {
        await agent.close();
      }
    });
  });

  it("interrupts a streaming turn: one run.cancelled, the process reaped", async () => {
    const script: ModelScript = {
      turns: [{ reply: { text: "word ".repeat(120), chunkSize: 5 }, fault: { dripMs: 40 } }],
    };
    await withRealCli("claude", script, async (ctx) => {
      const driver = claude(driverConfig(ctx));
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
        expect(ofType(events, "message.delta").length).toBeLessThan(120);
        expect(driver.livePids()).toEqual([]);
      } finally {
        await agent.close();
      }
    });
  });

  for (const status of [529, 500] as const) {
    it(`fails the run on HTTP ${status} from the model server`, async () => {
      await withRealCli("claude", { turns: [{ fault: { status } }] }, async (ctx) => {
        const agent = createAgent(claude(driverConfig(ctx)), { workspace: ctx.workspace });
        try {
          const events = await collect(agent.stream("this will fail"));
          const failed = ofType(events, "run.failed")[0];
          expect(failed?.error).toMatchObject({ code: status === 529 ? "provider_overloaded" : "provider_error", phase: "after_delivery", retryable: true });
          expect(failed!.error.message).toMatch(/API Error/);
          expect(failed!.error.message).not.toContain(KEY);
        } finally {
          await agent.close();
        }
      });
    });
  }

  it("delivers an image input to the model server as a native image block", async () => {
    await withRealCli("claude", { turns: [{ reply: { text: "A tiny image." } }] }, async (ctx) => {
      const agent = createAgent(claude(driverConfig(ctx)), { workspace: ctx.workspace });
      const image = join(ctx.root, "pixel.png");
      await writeFile(image, PNG_1X1);
      try {
        const result = await agent.run("What is in this image?", { inputs: [input.fromPath("image", image, { mediaType: "image/png" })] });
        expect(result.text).toBe("A tiny image.");
        const sent = parts(modelRequests(ctx)[0]!);
        expect(sent).toContainEqual(expect.objectContaining({ type: "image", mediaType: "image/png", source: "base64", byteLength: PNG_1X1.length }));
        // Natively, not as a path in the text.
        expect(JSON.stringify(sent.filter((p) => p.type === "text"))).not.toContain("pixel.png");
      } finally {
        await agent.close();
      }
    });
  });

  it("resumes the session in a second process: the earlier turns reach the model server; forks it", async () => {
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "walnut" }, reply: { text: "Noted: walnut." } },
        { match: { lastUserTextContains: "Which word" }, reply: { text: "You said walnut." } },
        { match: { lastUserTextContains: "Fork check" }, reply: { text: "Forked." } },
      ],
    };
    await withRealCli("claude", script, async (ctx) => {
      const wrapper = await countingWrapper(ctx);
      const first = claude(driverConfig(ctx, { executable: wrapper.executable }));
      const one = await runDirect(first, { prompt: "Remember the word walnut", workspace: ctx.workspace });
      await first.close();
      const sessionId = one.response!.providerSessionId!;

      const second = claude(driverConfig(ctx, { executable: wrapper.executable }));
      try {
        const two = await runDirect(second, { prompt: "Which word did I ask you to remember?", workspace: ctx.workspace, thread: { id: "thread-1", providerSessionId: sessionId } });
        expect(two.response?.text).toBe("You said walnut.");
        expect(two.response?.providerSessionId).toBe(sessionId);
        const pids = await wrapper.spawns();
        expect(pids).toHaveLength(2);
        expect(pids[0]).not.toBe(pids[1]);
        const [, request] = modelRequests(ctx);
        const texts = request!.messages.map((m) => `${m.role}:${m.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text).join(" ")}`);
        expect(texts.some((t) => t.startsWith("user:") && t.includes("Remember the word walnut"))).toBe(true);
        expect(texts.some((t) => t.startsWith("assistant:") && t.includes("Noted: walnut."))).toBe(true);
        expect(lastUserText(request!)).toBe("Which word did I ask you to remember?");

        // A fork continues the same history under a new session id.
        const forked = await runDirect(second, { prompt: "Fork check", workspace: ctx.workspace, thread: { id: "thread-2", providerSessionId: sessionId, fork: true } });
        expect(forked.response?.text).toBe("Forked.");
        expect(forked.response?.providerSessionId).not.toBe(sessionId);
        expect(JSON.stringify(modelRequests(ctx)[2]!.messages)).toContain("Remember the word walnut");
      } finally {
        await second.close();
      }
    });
  });
});
