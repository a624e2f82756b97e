/**
 * Real-CLI lane of the ACP driver: the presets against the installed Gemini CLI, Copilot CLI,
 * codex-acp and claude-agent-acp, each pointed at the scripted model server (no login, no paid
 * calls). Qwen Code is reported as skipped when not installed (its package declares engines.node >=22).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { claudeAcp, codexAcp, copilot, gemini, qwen, type AcpDriver } from "../../../src/drivers/acp/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { input } from "../../../src/input/index.js";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV } from "../../../src/testing/real-cli/settings.js";
import { withRealCli, type RealCliContext, type RealCliDirs, type RealCliName, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { groupMembers } from "../../chaos/processes.js";
import { describeRealCli } from "../../real-cli/helpers.js";

type Json = Record<string, unknown>;

interface Case {
  cli: RealCliName;
  driver(ctx: RealCliContext): AcpDriver;
  /** The agent's own tool that writes `name` with `content` in the workspace. */
  toolCall(dirs: RealCliDirs, name: string, content: string): { name: string; arguments: Json };
  asksPermission: boolean;
  /** Whether session/load or session/resume in a second process finds the first process's session. */
  loadsAcrossProcesses: boolean;
  /**
   * A model the agent offers through a session config option of category `model` besides the
   * configured one, when it offers any (Gemini CLI only reports legacy `models`, Copilot CLI none
   * with a BYOK provider).
   */
  offeredModel?: { value: string; onWire: RegExp };
}

const base = (ctx: RealCliContext) => ctx.server.url.replace(/\/+$/, "");

const cases: Case[] = [
  {
    cli: "gemini",
    driver: (ctx) => gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env }),
    toolCall: (_dirs, name, content) => ({ name: "run_shell_command", arguments: { command: `printf '${content}' > ${name}`, description: "write the proof file" } }),
    asksPermission: true,
    // Only because the preset delays session/load past the session's creation minute (loadAfterCreationMinute).
    loadsAcrossProcesses: true,
  },
  {
    cli: "copilot",
    driver: (ctx) => copilot({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: "COPILOT_PROVIDER_API_KEY", model: ctx.model }, env: ctx.env }),
    toolCall: (dirs, name, content) => ({ name: "create", arguments: { path: join(dirs.workspace, name), file_text: content } }),
    asksPermission: true,
    loadsAcrossProcesses: true,
  },
  {
    cli: "codex-acp",
    driver: (ctx) => codexAcp({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env }),
    // Sandboxed workspace commands run without asking.
    toolCall: (_dirs, name, content) => ({ name: "exec_command", arguments: { cmd: `printf '${content}' > ${name}` } }),
    asksPermission: false,
    loadsAcrossProcesses: true,
    offeredModel: { value: "gpt-5.4-mini", onWire: /^gpt-5\.4-mini$/ },
  },
  {
    cli: "claude-agent-acp",
    driver: (ctx) => claudeAcp({ provider: { baseUrl: base(ctx), apiKeyEnv: "ANTHROPIC_API_KEY", model: ctx.model }, env: ctx.env }),
    toolCall: (dirs, name, content) => ({ name: "Write", arguments: { file_path: join(dirs.workspace, name), content } }),
    asksPermission: true,
    loadsAcrossProcesses: true,
    // An alias of its own model list; the bundled Claude Code resolves it to a full model id on the wire.
    offeredModel: { value: "haiku", onWire: /^claude-haiku-/ },
  },
  {
    cli: "qwen",
    driver: (ctx) => qwen({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: "OPENAI_API_KEY", model: ctx.model }, env: ctx.env }),
    toolCall: (_dirs, name, content) => ({ name: "run_shell_command", arguments: { command: `printf '${content}' > ${name}` } }),
    asksPermission: true,
    loadsAcrossProcesses: true,
  },
];

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const modelRequests = (ctx: RealCliContext): CapturedRequest[] => ctx.server.requests.filter((r) => r.dialect === ctx.spec.dialect && !r.auxiliary);

/** Whether a process of the group still runs; a zombie waiting to be reaped does not count. */
const groupAlive = (pgid: number): boolean => groupMembers([pgid]).length > 0;

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" + "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);

for (const c of cases) {
  describeRealCli(c.cli, () => {
    it("inspects with initialize only, runs text, cancels mid-stream once, runs again, and leaves no process after close()", async () => {
      const script: RealCliScript = {
        turns: [
          { match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 6 } },
          { match: { lastUserTextContains: "long story" }, reply: { text: "word ".repeat(200), chunkSize: 5 }, fault: { dripMs: 50 } },
          { match: { lastUserTextContains: "Say again" }, reply: { text: "Again from the scripted model." } },
        ],
      };
      await withRealCli(c.cli, script, async (ctx) => {
        const driver = c.driver(ctx);
        const agent = createAgent(driver, { workspace: ctx.workspace });
        const pids = new Set<number>();
        try {
          const inspection = await agent.inspect();
          expect(inspection.environment.status).toBe("observed");
          expect(inspection.environment.value?.protocolVersion).toBe("1");
          expect(inspection.models).toMatchObject({ status: "unsupported", reason: { code: "session_scoped" } });
          expect(inspection.commands).toMatchObject({ status: "unsupported", reason: { code: "session_scoped" } });
          expect(modelRequests(ctx)).toHaveLength(0);

          const text = agent.stream("Say hello to the lane");
          for await (const e of text) if (e.type === "thread.bound") for (const pid of driver.processes().live) pids.add(pid);
          expect((await text.result).text).toBe("Hello from the scripted model.");

          const slow = agent.stream("Tell me a long story");
          const events: AgentEvent[] = [];
          for await (const e of slow) {
            events.push(e);
            if (e.type === "thread.bound") for (const pid of driver.processes().live) pids.add(pid);
            if (e.type === "message.delta" && events.filter((x) => x.type === "message.delta").length === 2) slow.cancel("enough");
          }
          expect(events.filter((e) => e.type === "run.cancelled")).toHaveLength(1);
          expect(events.filter((e) => e.type === "run.completed" || e.type === "run.failed")).toHaveLength(0);
          expect(events.at(-1)).toMatchObject({ type: "run.cancelled", reason: "enough" });
          expect(driver.processes().live).toEqual([]);

          const again = await agent.run("Say again");
          expect(again.text).toBe("Again from the scripted model.");
        } finally {
          await agent.close();
        }
        expect(pids.size).toBeGreaterThan(0);
        for (const pid of pids) expect(groupAlive(pid), `process group ${pid} is gone`).toBe(false);
      });
    });

    it("runs a tool with an approval accepted (file on disk) and one rejected (file absent)", async () => {
      const script = (dirs: RealCliDirs): RealCliScript => ({
        turns: [
          { match: { lastUserTextContains: "first proof" }, reply: { toolCalls: [{ id: "call_yes", ...c.toolCall(dirs, "yes.txt", "accepted") }] } },
          { match: { toolResultFor: "call_yes" }, reply: { text: "The first file is written." } },
          { match: { lastUserTextContains: "second proof" }, reply: { toolCalls: [{ id: "call_no", ...c.toolCall(dirs, "no.txt", "rejected") }] } },
          { match: { toolResultFor: "call_no" }, reply: { text: "The second file was refused." } },
        ],
      });
      await withRealCli(c.cli, script, async (ctx) => {
        const agent = createAgent(c.driver(ctx), { workspace: ctx.workspace });
        try {
          const allowed = agent.stream("Please write the first proof", { onApproval: async () => ({ decision: "allow" }) });
          const allowedEvents = await collect(allowed);
          const result = await allowed.result;
          expect(readFileSync(join(ctx.workspace, "yes.txt"), "utf8")).toBe("accepted");
          expect(result.text).toContain("The first file is written.");
          expect(allowedEvents.some((e) => e.type === "tool.completed")).toBe(true);
          if (!c.asksPermission) return;
          expect(allowedEvents.filter((e) => e.type === "approval.requested").length).toBeGreaterThanOrEqual(1);

          const denied = agent.stream("Please write the second proof", { onApproval: async () => ({ decision: "deny" }) });
          const deniedEvents = await collect(denied);
          await denied.result.catch(() => {});
          expect(deniedEvents.filter((e) => e.type === "approval.requested").length).toBeGreaterThanOrEqual(1);
          expect(deniedEvents.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: { decision: "deny" } });
          expect(existsSync(join(ctx.workspace, "no.txt"))).toBe(false);
        } finally {
          await agent.close();
        }
      });
    });

    it("fails a bogus model before the prompt, and resumes the thread in a second process", async () => {
      const script: RealCliScript = {
        turns: [
          { match: { lastUserTextContains: "Remember" }, reply: { text: "Remembered." } },
          { match: { lastUserTextContains: "What did I ask" }, reply: { text: "You asked me to remember." } },
        ],
      };
      await withRealCli(c.cli, script, async (ctx) => {
        const driver = c.driver(ctx);
        // No warm writer: the second turn must load the session in a process of its own.
        const agent = createAgent(driver, { workspace: ctx.workspace, threadWriterIdleMs: 0 });
        try {
          const bogus = agent.stream("Remember the word", { model: "no-such-model-xyz" });
          const bogusEvents = await collect(bogus);
          expect(bogusEvents.at(-1)).toMatchObject({ type: "run.failed", error: { phase: "before_delivery" } });
          expect((bogusEvents.at(-1) as { error: { code: string } }).error.code).toMatch(/^config_(value_unavailable|option_unsupported)$/);
          expect(modelRequests(ctx)).toHaveLength(0);

          const thread = await agent.startThread();
          const first = await thread.run("Remember the word banana");
          const firstPids = driver.processes().started;
          if (!c.loadsAcrossProcesses) {
            await expect(thread.run("What did I ask?")).rejects.toMatchObject({ phase: "before_delivery" });
            expect(driver.processes().started).toBe(firstPids + 1);
            return;
          }
          const second = await thread.run("What did I ask?");
          expect(driver.processes().started).toBe(firstPids + 1);
          expect(second.providerSessionId).toBe(first.providerSessionId);
          expect(second.text).toBe("You asked me to remember.");
          const last = modelRequests(ctx).at(-1)!;
          const userTexts = last.messages.filter((m) => m.role === "user").flatMap((m) => m.parts).filter((p) => p.type === "text").map((p) => (p as { text: string }).text);
          expect(userTexts.some((t) => t.includes("Remember the word banana"))).toBe(true);
        } finally {
          await agent.close();
        }
      });
    });

    it.skipIf(c.offeredModel === undefined)("selects an offered model through the session's model option, confirmed by readback and by the model server", async () => {
      const { value: model, onWire } = c.offeredModel!;
      const script: RealCliScript = {
        turns: [
          { match: { lastUserTextContains: "Default model" }, reply: { text: "Default." } },
          { match: { lastUserTextContains: "Selected model" }, reply: { text: "Selected." } },
        ],
      };
      await withRealCli(c.cli, script, async (ctx) => {
        const agent = createAgent(c.driver(ctx), { workspace: ctx.workspace });
        try {
          expect((await agent.run("Default model please")).text).toBe("Default.");
          const defaultModel = modelRequests(ctx).at(-1)?.model;
          expect(defaultModel).toBeDefined();
          expect(defaultModel).not.toMatch(onWire);

          // The driver sends session/set_config_option and fails the run before the prompt unless
          // the returned options (or a config_option_update) confirm the value.
          const stream = agent.stream("Selected model please", { model });
          const events = await collect(stream);
          expect(events.at(-1)).toMatchObject({ type: "run.completed" });
          expect((await stream.result).text).toBe("Selected.");
          const requests = modelRequests(ctx);
          expect(requests).toHaveLength(2);
          expect(requests.at(-1)?.model).toMatch(onWire);
        } finally {
          await agent.close();
        }
      });
    });

    it("delivers an image as an image part when the agent advertises promptCapabilities.image", async () => {
      const script: RealCliScript = { turns: [{ match: { lastUserTextContains: "Describe" }, reply: { text: "An image." } }] };
      await withRealCli(c.cli, script, async (ctx) => {
        const file = join(ctx.root, "pixel.png");
        await import("node:fs/promises").then((fs) => fs.writeFile(file, PNG));
        const agent = createAgent(c.driver(ctx), { workspace: ctx.workspace });
        try {
          const inspection = await agent.inspect();
          const advertised = inspection.environment.value?.capabilities?.prompt?.image === true;
          const stream = agent.stream("Describe this picture", { inputs: [input.fromPath("image", file, { mediaType: "image/png" })] });
          const events = await collect(stream);
          if (advertised) {
            expect((await stream.result).text).toBe("An image.");
            const parts = modelRequests(ctx).flatMap((r) => r.messages.flatMap((m) => m.parts));
            expect(parts.some((p) => p.type === "image")).toBe(true);
          } else {
            expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "input_mode_unsupported", phase: "before_delivery" } });
          }
        } finally {
          await agent.close();
        }
      });
    });
  });
}
