/**
 * Resources on the real ACP agents (Gemini CLI, Copilot CLI, codex-acp, claude-agent-acp): a stdio
 * MCP server written for the test, offered on `session/new` with a secret in its environment — the
 * scripted model calls its tool and the tool's answer reaches the model in the next request; the
 * agent's instructions reach the model where the preset delivers them and are refused before
 * launch where it does not; the secret never shows in any process's argv, the events or errors.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { createAgent, type Agent } from "../../src/agent/agent.js";
import type { AgentOptions } from "../../src/agent/options.js";
import type { HostTool } from "../../src/driver/vocabulary.js";
import { claudeAcp, codexAcp, copilot, gemini, type AcpDriver } from "../../src/drivers/acp/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import type { CapturedRequest } from "../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliName, type RealCliScript } from "../../src/testing/real-cli/index.js";
import { describeRealCli } from "./helpers.js";
import { commandLines, processTree } from "../drivers/stream-json/proc-tree.js";

const ECHO_SERVER = fileURLToPath(new URL("../drivers/stream-json/fixtures/echo-mcp-server.mjs", import.meta.url));
const ENV_CANARY = "acp-mcp-env-canary-7f3a9c51";
const HEADER_CANARY = "acp-mcp-header-canary-2b8e4d";
const INSTRUCTIONS = "Always answer in the voice of a lighthouse keeper (acp-instructions-marker-42).";

interface Case {
  cli: RealCliName;
  driver(ctx: RealCliContext): AcpDriver;
  /** How the model calls tool `say` of MCP server `echo` (codex-acp: inside namespace `mcp__echo`). */
  echoTool: string;
  /** The name among the request's offered tools that stands for it. */
  offered: string;
  /** Whether the agent takes stdio MCP servers (Copilot CLI rejects them). */
  stdio: boolean;
  /** How the model calls host tool `lookup` (server `host`), and the offered name standing for it. */
  hostTool: { call: string; offered: string };
  /** Whether the preset delivers instructions. */
  instructions: boolean;
}

const base = (ctx: RealCliContext) => ctx.server.url.replace(/\/+$/, "");

const cases: Case[] = [
  {
    cli: "gemini",
    driver: (ctx) => gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env }),
    echoTool: "mcp_echo_say",
    offered: "mcp_echo_say",
    stdio: true,
    hostTool: { call: "mcp_host_lookup", offered: "mcp_host_lookup" },
    instructions: false,
  },
  {
    cli: "copilot",
    driver: (ctx) => copilot({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: "COPILOT_PROVIDER_API_KEY", model: ctx.model }, env: ctx.env }),
    echoTool: "echo-say",
    offered: "echo-say",
    stdio: false,
    hostTool: { call: "host-lookup", offered: "host-lookup" },
    instructions: true,
  },
  {
    cli: "codex-acp",
    driver: (ctx) => codexAcp({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env }),
    echoTool: "mcp__echo__say",
    offered: "mcp__echo",
    stdio: true,
    hostTool: { call: "mcp__host__lookup", offered: "mcp__host" },
    instructions: true,
  },
  {
    cli: "claude-agent-acp",
    driver: (ctx) => claudeAcp({ provider: { baseUrl: base(ctx), apiKeyEnv: "ANTHROPIC_API_KEY", model: ctx.model }, env: ctx.env }),
    echoTool: "mcp__echo__say",
    offered: "mcp__echo__say",
    stdio: true,
    hostTool: { call: "mcp__host__lookup", offered: "mcp__host__lookup" },
    instructions: true,
  },
];

function script(c: Case): RealCliScript {
  const callId = c.cli === "claude-agent-acp" ? "toolu_acp_echo" : "call_acp_echo";
  return {
    turns: [
      { match: { lastUserTextContains: "use the echo tool" }, reply: { toolCalls: [{ id: callId, name: c.echoTool, arguments: { text: "from the lane" } }] } },
      { match: { toolResultFor: callId }, reply: { text: "The echo answered." } },
    ],
  };
}

/** An HTTP endpoint standing in for a remote MCP server: it records the header it was sent and answers 404. */
async function headerRecorder(): Promise<{ server: Server; url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const value = req.headers["x-lane-key"];
    if (typeof value === "string") seen.push(value);
    req.resume();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

// A temporary directory of this file's own, where the agents' processes make theirs: the test
// files running beside this one (other workers) make theirs elsewhere, so none is counted here.
const ownTmp = mkdtempSync(join(tmpdir(), "aa-acp-resources-"));
process.env.TMPDIR = ownTmp;
afterAll(() => rmSync(ownTmp, { recursive: true, force: true }));

/** The directories ACP agent processes own (instructions, skills), by name. */
const ownDirs = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("agent-adaptor-acp-")));

/** Every argv of the driver's agent processes and their descendants (the MCP servers they started). */
const treeArgv = (driver: AcpDriver): string[] => commandLines(processTree(driver.processes().live));

/**
 * Streams one run, reading the argv of the agent's process tree whenever `scanOn` matches an event
 * (while the agent and its servers are alive); the run's outcome as text, rejected or not.
 */
async function streamScanning(agent: Agent, driver: AcpDriver, prompt: string, scanOn: (event: AgentEvent) => boolean) {
  const argv: string[] = [];
  const events: AgentEvent[] = [];
  const stream = agent.stream(prompt);
  for await (const event of stream) {
    events.push(event);
    if (scanOn(event)) argv.push(...treeArgv(driver));
  }
  return { argv, events, result: stream.result };
}

/** Runs `options` on the case's driver and expects a typed refusal before any process or model request. */
async function refusedBeforeLaunch(c: Case, options: Omit<AgentOptions, "workspace">, check?: (driver: AcpDriver) => void): Promise<void> {
  await withRealCli(c.cli, () => ({ turns: [] }), async (ctx) => {
    const driver = c.driver(ctx);
    check?.(driver);
    let error: unknown;
    try {
      const agent = createAgent(driver, { workspace: ctx.workspace, ...options });
      await agent.run("hello").finally(() => agent.close());
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: "feature_unsupported" });
    expect(ctx.server.requests).toHaveLength(0);
  });
}

const modelTurns = (requests: readonly CapturedRequest[]) => requests.filter((r) => r.nth !== undefined);
const systemText = (request: CapturedRequest): string =>
  request.messages
    .filter((m) => m.role === "system")
    .flatMap((m) => m.parts)
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("\n");
const toolResults = (request: CapturedRequest) => request.messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");

for (const c of cases) {
  describeRealCli(c.cli, () => {
    if (c.stdio) it("a stdio MCP server offered on session/new: the model calls its tool and sees the answer; its env secret stays out of argv and events", async () => {
      await withRealCli(c.cli, () => script(c), async (ctx) => {
        const driver = c.driver(ctx);
        expect(driver.descriptor().resources).toEqual({ instructions: c.instructions, hostTools: true, skills: c.cli === "claude-agent-acp", mcp: { stdio: true, http: "advertised" } });
        const agent = createAgent(driver, {
          workspace: ctx.workspace,
          mcp: [{ name: "echo", command: process.execPath, args: [ECHO_SERVER], env: { ECHO_SECRET: ENV_CANARY } }],
          ...(c.instructions ? { instructions: INSTRUCTIONS } : {}),
          defaults: { onApproval: async () => ({ decision: "allow" }) },
        });
        try {
          // While the MCP call runs, the agent and its servers are alive: scan their argv.
          const run = await streamScanning(agent, driver, "Please use the echo tool", (event) => event.type === "tool.started");
          const { argv, events } = run;
          const result = await run.result;
          const turns = modelTurns(ctx.server.requests);
          expect(turns[0]!.tools, `tools offered: ${turns[0]!.tools.join(", ")}`).toContain(c.offered);
          expect(JSON.stringify(toolResults(turns[1]!))).toContain("echo: from the lane");
          expect(result.text).toContain("The echo answered.");
          if (c.instructions) expect(systemText(turns[0]!)).toContain("acp-instructions-marker-42");
          const mcpCall = events.find((e) => e.type === "tool.started" && e.kind === "mcp");
          expect(mcpCall, "an MCP tool call event").toMatchObject({ mcp: { server: "echo", tool: "say" } });
          expect(argv.length).toBeGreaterThan(0);
          expect(argv.join("\n")).toContain(ECHO_SERVER);
          expect(argv.join("\n")).not.toContain(ENV_CANARY);
          expect(JSON.stringify(events)).not.toContain(ENV_CANARY);
          expect(JSON.stringify(await agent.inspect())).not.toContain(ENV_CANARY);
        } finally {
          await agent.close();
        }
      });
    });

    it("a host tool: the model calls it, the handler runs with the arguments, its result reaches the model in the next request", async () => {
      const callId = c.cli === "claude-agent-acp" ? "toolu_acp_host" : "call_acp_host";
      const hostScript: RealCliScript = {
        turns: [
          { match: { lastUserTextContains: "look it up" }, reply: { toolCalls: [{ id: callId, name: c.hostTool.call, arguments: { key: "alpha" } }] } },
          { match: { toolResultFor: callId }, reply: { text: "Looked up." } },
        ],
      };
      await withRealCli(c.cli, () => hostScript, async (ctx) => {
        const driver = c.driver(ctx);
        const calls: unknown[] = [];
        const lookup: HostTool = {
          name: "lookup",
          description: "Look a key up in the host's table",
          inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
          handler: (args, context) => {
            calls.push({ args, runId: context.runId });
            return `value-for-${String((args as { key?: unknown }).key)}`;
          },
        };
        const before = ownDirs();
        const agent = createAgent(driver, {
          workspace: ctx.workspace,
          tools: [lookup],
          ...(c.instructions ? { instructions: INSTRUCTIONS } : {}),
          defaults: { onApproval: async () => ({ decision: "allow" }) },
        });
        try {
          const run = await streamScanning(agent, driver, "Please look it up", (event) => event.type === "tool.started");
          const { argv, events } = run;
          const result = await run.result;
          const turns = modelTurns(ctx.server.requests);
          expect(turns[0]!.tools, `tools offered: ${turns[0]!.tools.join(", ")}`).toContain(c.hostTool.offered);
          expect(calls).toEqual([{ args: { key: "alpha" }, runId: result.runId }]);
          expect(JSON.stringify(toolResults(turns[1]!))).toContain("value-for-alpha");
          expect(result.text).toContain("Looked up.");
          if (c.instructions) expect(JSON.stringify(turns[0]!.body)).toContain("acp-instructions-marker-42");
          expect(events.find((e) => e.type === "tool.started" && e.kind === "mcp")).toMatchObject({ mcp: { server: "host", tool: "lookup" } });
          // The endpoint's bearer token travels in the session request, never on a command line.
          expect(argv.length).toBeGreaterThan(0);
          expect(argv.join("\n")).not.toMatch(/Bearer|Authorization/i);
        } finally {
          await agent.close();
        }
        expect(driver.processes().live).toEqual([]);
        // Whatever the process owned (an instructions directory) is gone with it.
        expect([...ownDirs()].filter((name) => !before.has(name))).toEqual([]);
      });
    });

    it("an HTTP MCP server receives its header from the agent; the header value stays out of argv, events and inspection", async () => {
      const remote = await headerRecorder();
      try {
        await withRealCli(c.cli, () => ({ turns: [{ match: { lastUserTextContains: "say fine" }, reply: { text: "Fine." } }] }), async (ctx) => {
          const driver = c.driver(ctx);
          const agent = createAgent(driver, { workspace: ctx.workspace, mcp: [{ name: "remote", url: remote.url, headers: { "X-Lane-Key": HEADER_CANARY } }] });
          try {
            const run = await streamScanning(agent, driver, "Please say fine", (event) => event.type === "message.delta" || event.type === "message.completed");
            const { argv, events } = run;
            const outcome = await run.result.then(
              (result) => JSON.stringify(result),
              (error: unknown) => String(error),
            );
            expect(remote.seen).toContain(HEADER_CANARY);
            expect(argv.length).toBeGreaterThan(0);
            expect(argv.join("\n")).not.toContain(HEADER_CANARY);
            expect(JSON.stringify(events)).not.toContain(HEADER_CANARY);
            expect(outcome).not.toContain(HEADER_CANARY);
            expect(JSON.stringify(await agent.inspect())).not.toContain(HEADER_CANARY);
          } finally {
            await agent.close();
          }
        });
      } finally {
        await new Promise((resolve) => remote.server.close(resolve));
      }
    });

    if (!c.stdio) {
      it("a stdio MCP server is refused before any process starts (the agent takes HTTP MCP servers only)", async () => {
        await refusedBeforeLaunch(
          c,
          { mcp: [{ name: "echo", command: process.execPath, args: [ECHO_SERVER] }] },
          (driver) => expect(driver.descriptor().resources.mcp).toEqual({ stdio: false, http: "advertised" }),
        );
      });
    }

    if (!c.instructions) {
      it("instructions are refused before any process starts (the agent has no way to take them)", async () => {
        await refusedBeforeLaunch(c, { instructions: INSTRUCTIONS });
      });
    }
  });
}


const codexAcpCase = cases.find((c) => c.cli === "codex-acp")!;

describeRealCli("codex-acp", () => {
  it("cancel during a host-tool call: the handler's signal aborts, run.cancelled once, no process left", async () => {
    const waitScript: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "wait for it" }, reply: { toolCalls: [{ id: "call_acp_wait", name: "mcp__host__wait", arguments: {} }] } },
        { match: { toolResultFor: "call_acp_wait" }, reply: { text: "too late" } },
      ],
    };
    await withRealCli("codex-acp", () => waitScript, async (ctx) => {
      const driver = codexAcpCase.driver(ctx);
      let entered!: () => void;
      const inHandler = new Promise<void>((resolve) => (entered = resolve));
      let aborted = false;
      const wait: HostTool = {
        name: "wait",
        inputSchema: { type: "object", properties: {} },
        handler: (_args, { signal }) =>
          new Promise((_resolve, reject) => {
            entered();
            signal.addEventListener("abort", () => {
              aborted = true;
              reject(new Error("aborted"));
            });
          }),
      };
      const agent = createAgent(driver, { workspace: ctx.workspace, tools: [wait], defaults: { onApproval: async () => ({ decision: "allow" }) } });
      try {
        const stream = agent.stream("Please wait for it");
        const events: AgentEvent[] = [];
        const collected = (async () => {
          for await (const event of stream) events.push(event);
        })();
        await inHandler;
        stream.cancel();
        await collected;
        await stream.result.catch(() => undefined);
        expect(events.filter((e) => e.type === "run.cancelled")).toHaveLength(1);
        expect(events.filter((e) => e.type === "run.completed" || e.type === "run.failed")).toHaveLength(0);
        expect(aborted).toBe(true);
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  });

  it("a prepared standby serves a run that adds a run-scoped service: one process started, the service called", async () => {
    const serviceScript: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "ask the service" }, reply: { toolCalls: [{ id: "call_acp_service", name: "mcp__host__today", arguments: {} }] } },
        { match: { toolResultFor: "call_acp_service" }, reply: { text: "Asked." } },
      ],
    };
    await withRealCli("codex-acp", () => serviceScript, async (ctx) => {
      const driver = codexAcpCase.driver(ctx);
      const lookup: HostTool = { name: "lookup", inputSchema: { type: "object", properties: {} }, handler: () => "construction tool" };
      const today: HostTool = { name: "today", inputSchema: { type: "object", properties: {} }, handler: () => "service-answer-2026" };
      const agent = createAgent(driver, { workspace: ctx.workspace, tools: [lookup], defaults: { onApproval: async () => ({ decision: "allow" }) } });
      try {
        await agent.prepare();
        expect(driver.processes().started).toBe(1);
        const result = await agent.run("Please ask the service", { services: [today] });
        expect(result.text).toContain("Asked.");
        expect(driver.processes().started).toBe(1);
        const turns = modelTurns(ctx.server.requests);
        expect(JSON.stringify(toolResults(turns[1]!))).toContain("service-answer-2026");
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  });
});

describeRealCli("claude-agent-acp", () => {
  it("a skill reaches Claude Code as a plugin in a directory the process owns, removed when it retires", async () => {
    const skillScript: RealCliScript = { turns: [{ match: { lastUserTextContains: "which skills" }, reply: { text: "Some." } }] };
    await withRealCli("claude-agent-acp", () => skillScript, async (ctx) => {
      const claudeCase = cases.find((c) => c.cli === "claude-agent-acp")!;
      const driver = claudeCase.driver(ctx);
      expect(driver.descriptor().resources.skills).toBe(true);
      const before = ownDirs();
      const agent = createAgent(driver, {
        workspace: ctx.workspace,
        skills: [
          {
            name: "lighthouse-lore",
            description: "Facts about lighthouses (acp-skill-marker-93)",
            files: { "SKILL.md": "---\nname: lighthouse-lore\ndescription: Facts about lighthouses (acp-skill-marker-93)\n---\nThe lamp is lit at dusk.\n" },
          },
        ],
      });
      try {
        const result = await agent.run("Please tell me which skills you have");
        expect(result.text).toContain("Some.");
        const turns = modelTurns(ctx.server.requests);
        expect(JSON.stringify(turns[0]!.body)).toContain("acp-skill-marker-93");
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
      expect([...ownDirs()].filter((name) => !before.has(name))).toEqual([]);
    });
  });
});
