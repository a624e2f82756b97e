/**
 * The agent's resources on the real `codex app-server` (issue #16), against the scripted model
 * server: a host tool and a stdio MCP server called by the model with their results in the next
 * request, an HTTP MCP server receiving its header, the skill and the instructions in what the
 * model sees, secret canaries absent from every command line of the process tree and from
 * everything the host sees; a cancel during a host-tool call; a prepared standby serving a run
 * that adds run-scoped services.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import type { HostTool } from "../../../src/driver/vocabulary.js";
import { codex, type CodexDriver } from "../../../src/drivers/codex/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import type { CapturedRequest, ModelScript } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";

const ECHO_MCP = fileURLToPath(new URL("../stream-json/fixtures/echo-mcp-server.mjs", import.meta.url));
const ENV_CANARY = "mcp-env-canary-5f1c9a";
const HEADER_CANARY = "mcp-header-canary-8d2e7b";
const INSTRUCTIONS = "Lane instructions 3b7e: answer in one word.";
const SKILL_MARKER = "lane-skill-body-71c4";

function driverFor(ctx: RealCliContext): CodexDriver {
  return codex({
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  });
}

const modelRequests = (ctx: RealCliContext): CapturedRequest[] => ctx.server.requests.filter((r) => r.dialect === "responses" && !r.auxiliary);

/** The text of the tool result for `callId` in a captured request. */
function toolResult(request: CapturedRequest | undefined, callId: string): string | undefined {
  for (const message of request?.messages ?? []) {
    for (const part of message.parts) {
      if (part.type === "tool_result" && part.callId === callId) return part.text ?? JSON.stringify(part.parts ?? []);
    }
  }
  return undefined;
}

const systemText = (request: CapturedRequest): string =>
  request.messages
    .filter((m) => m.role === "system")
    .flatMap((m) => m.parts)
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("\n");

/** Pids of `root` and all its descendants, from /proc. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process exited meanwhile.
    }
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Every command line of the driver's live processes and their descendants. */
function commandLines(driver: CodexDriver): string[] {
  return driver
    .processes()
    .live.flatMap(processTree)
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {
        return "";
      }
    });
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

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const lookupSchema = { type: "object", properties: { key: { type: "string" } }, required: ["key"] } as const;

const deliveryScript: ModelScript = {
  turns: [
    { match: { lastUserTextContains: "use the tools" }, reply: { toolCalls: [{ id: "call_lookup", name: "mcp__host__lookup", arguments: { key: "alpha" } }] } },
    { match: { toolResultFor: "call_lookup" }, reply: { toolCalls: [{ id: "call_say", name: "mcp__echo__say", arguments: { text: "hi" } }] } },
    { match: { toolResultFor: "call_say" }, reply: { text: "Done." } },
  ],
};

describeRealCli("codex", () => {
  it("delivers a host tool, MCP servers, a skill and instructions; no secret on any command line or host surface", async () => {
    await withRealCli("codex", deliveryScript, async (ctx) => {
      const remote = await headerRecorder();
      const driver = driverFor(ctx);
      const calls: { args: unknown; runId: string; cmdlines: string[] }[] = [];
      const lookup: HostTool = {
        name: "lookup",
        description: "Look a key up",
        inputSchema: lookupSchema,
        handler: async (args, context) => {
          calls.push({ args, runId: context.runId, cmdlines: commandLines(driver) });
          return `value-of-${(args as { key: string }).key}`;
        },
      };
      let skillRoot: string | undefined;
      const agent = createAgent(driver, {
        workspace: ctx.workspace,
        instructions: INSTRUCTIONS,
        tools: [lookup],
        mcp: [
          { name: "echo", command: process.execPath, args: [ECHO_MCP], env: { ECHO_LANE_TOKEN: ENV_CANARY } },
          { name: "remote", url: remote.url, headers: { "X-Lane-Key": HEADER_CANARY } },
        ],
        skills: [{ name: "lane-skill", description: "A skill the lane installs", files: { "SKILL.md": `Follow ${SKILL_MARKER}.\n` } }],
        defaults: { policy: { approval: "never" } },
      });
      try {
        const inspection = await agent.inspect();
        expect(inspection.skills.value?.skills.map((s) => s.name)).toContain("lane-skill");
        expect(inspection.mcp.value?.servers).toEqual(expect.arrayContaining([{ name: "echo", status: "configured" }, { name: "host", status: "configured" }, { name: "remote", status: "configured" }]));

        const stream = agent.stream("use the tools");
        const events = await collect(stream);
        const result = await stream.result;
        expect(result.text).toBe("Done.");

        // The handler ran once, with the model's arguments, for this run.
        expect(calls).toHaveLength(1);
        expect(calls[0]!.args).toEqual({ key: "alpha" });
        expect(calls[0]!.runId).toBe(result.runId);
        // Its result, and the stdio MCP server's, reached the model in the next requests.
        const requests = modelRequests(ctx);
        expect(toolResult(requests[1], "call_lookup")).toContain("value-of-alpha");
        expect(toolResult(requests[2], "call_say")).toContain("echo: hi");
        expect(requests[0]!.tools).toEqual(expect.arrayContaining(["mcp__host", "lookup", "mcp__echo", "say"]));
        // Instructions and the skills catalogue reach the model.
        expect(systemText(requests[0]!)).toContain(INSTRUCTIONS);
        // The catalogue names the skill's file: in a 0700 directory of the process, neither in the workspace nor in the Codex home.
        const catalogue = systemText(requests[0]!);
        const root = /- lane-skill: A skill the lane installs \(file: (\w+)\/lane-skill\/SKILL\.md\)/.exec(catalogue)?.[1];
        expect(root).toBeDefined();
        const rootDir = new RegExp(`- \`${root}\` = \`([^\`]+)\``).exec(catalogue)?.[1];
        expect(rootDir).toBeDefined();
        const skillFile = `${rootDir}/lane-skill/SKILL.md`;
        expect(readFileSync(skillFile, "utf8")).toContain(SKILL_MARKER);
        expect(skillFile.startsWith(ctx.workspace)).toBe(false);
        expect(skillFile.startsWith(ctx.configDir)).toBe(false);
        expect(statSync(dirname(dirname(skillFile))).mode & 0o777).toBe(0o700);
        skillRoot = dirname(dirname(skillFile));
        // The remote server received its header.
        expect(remote.seen).toContain(HEADER_CANARY);

        const started = events.filter((e) => e.type === "tool.started");
        expect(started).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ callId: "call_lookup", kind: "mcp", mcp: { server: "host", tool: "lookup" } }),
            expect.objectContaining({ callId: "call_say", kind: "mcp", mcp: { server: "echo", tool: "say" } }),
          ]),
        );
        expect(events.filter((e) => e.type === "notice" && e.level === "warning" && e.code !== "codex_warning")).toEqual([]);

        // Secrets: not on any command line of the app-server or the MCP servers it started
        // (scanned while the tool call was in flight), nor anywhere the host sees.
        const cmdlines = calls[0]!.cmdlines;
        expect(cmdlines.some((line) => line.includes("echo-mcp-server.mjs"))).toBe(true);
        for (const line of cmdlines) {
          expect(line).not.toContain(ENV_CANARY);
          expect(line).not.toContain(HEADER_CANARY);
          expect(line).not.toMatch(/Bearer/i);
        }
        const surfaces = JSON.stringify({ events, inspection, text: result.text, raw: result.raw?.() });
        expect(surfaces).not.toContain(ENV_CANARY);
        expect(surfaces).not.toContain(HEADER_CANARY);
      } finally {
        await agent.close();
        remote.server.close();
      }
      expect(driver.processes().live).toEqual([]);
      // The skills directory went with the processes.
      expect(skillRoot !== undefined && existsSync(skillRoot)).toBe(false);
    });
  }, 120_000);

  it("a thread's turns reach the host tool on the warm writer and after a cold resume", async () => {
    const turns = ["a", "b", "c", "d"];
    const script: ModelScript = {
      turns: turns.flatMap((t) => [
        { match: { lastUserTextContains: `turn-${t}` }, reply: { toolCalls: [{ id: `call_${t}`, name: "mcp__host__lookup", arguments: { key: t } }] } },
        { match: { toolResultFor: `call_${t}` }, reply: { text: `Done ${t}.` } },
      ]),
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      const seen: { key: string; runId: string }[] = [];
      const lookup: HostTool = {
        name: "lookup",
        inputSchema: lookupSchema,
        handler: async (args, { runId }) => (seen.push({ key: (args as { key: string }).key, runId }), `value-of-${(args as { key: string }).key}`),
      };
      const warm = createAgent(driver, { workspace: ctx.workspace, tools: [lookup], defaults: { policy: { approval: "never" } } });
      const cold = createAgent(driver, { workspace: ctx.workspace, tools: [lookup], threadWriterIdleMs: 0, defaults: { policy: { approval: "never" } } });
      try {
        const warmThread = await warm.startThread();
        const a = await warmThread.run("turn-a");
        const b = await warmThread.run("turn-b");
        expect(b.transcript().find((e) => e.type === "thread.bound")?.provenance?.event).toBe("loaded");
        const coldThread = await cold.startThread();
        const c = await coldThread.run("turn-c");
        const d = await coldThread.run("turn-d");
        expect(d.transcript().find((e) => e.type === "thread.bound")?.provenance?.event).toBe("thread/resume");
        expect([a.text, b.text, c.text, d.text]).toEqual(["Done a.", "Done b.", "Done c.", "Done d."]);
        expect(seen).toEqual([
          { key: "a", runId: a.runId },
          { key: "b", runId: b.runId },
          { key: "c", runId: c.runId },
          { key: "d", runId: d.runId },
        ]);
        for (const t of turns) expect(toolResult(modelRequests(ctx).find((r) => toolResult(r, `call_${t}`) !== undefined), `call_${t}`)).toContain(`value-of-${t}`);
      } finally {
        await warm.close();
        await cold.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  }, 120_000);

  it("a thread's later turn that adds a service under a new name resumes on a fresh process that offers it", async () => {
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "first turn" }, reply: { text: "One." } },
        { match: { lastUserTextContains: "second turn" }, reply: { toolCalls: [{ id: "call_ledger", name: "mcp__host__ledger", arguments: { key: "gamma" } }] } },
        { match: { toolResultFor: "call_ledger" }, reply: { text: "Two." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      const seen: unknown[] = [];
      const lookup: HostTool = { name: "lookup", inputSchema: lookupSchema, handler: async () => "unused" };
      const ledger: HostTool = { name: "ledger", inputSchema: lookupSchema, handler: async (args) => (seen.push(args), "ledger-ok") };
      const agent = createAgent(driver, { workspace: ctx.workspace, tools: [lookup], defaults: { policy: { approval: "never" } } });
      try {
        const thread = await agent.startThread();
        await thread.run("first turn");
        const second = await thread.run("second turn", { services: [ledger] });
        expect(second.text).toBe("Two.");
        // The warm writer's loaded thread lists only lookup: Codex does not list tools again.
        expect(second.transcript().find((e) => e.type === "thread.bound")?.provenance?.event).toBe("thread/resume");
        expect(seen).toEqual([{ key: "gamma" }]);
        expect(toolResult(modelRequests(ctx).at(-1), "call_ledger")).toContain("ledger-ok");
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  }, 120_000);

  it("asks the host before a host tool runs under approval on-request: allowed runs it, denied does not", async () => {
    const script: ModelScript = {
      turns: ["allow", "deny"].flatMap((t) => [
        { match: { lastUserTextContains: `please ${t}` }, reply: { toolCalls: [{ id: `call_${t}`, name: "mcp__host__lookup", arguments: { key: t } }] } },
        { match: { toolResultFor: `call_${t}` }, reply: { text: `After ${t}.` } },
      ]),
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      const seen: unknown[] = [];
      const lookup: HostTool = { name: "lookup", inputSchema: lookupSchema, handler: async (args) => (seen.push(args), "looked-up") };
      const asked: { kind: string; summary: string; input?: unknown }[] = [];
      const agent = createAgent(driver, {
        workspace: ctx.workspace,
        tools: [lookup],
        defaults: {
          policy: { approval: "on-request" },
          onApproval: async (request) => {
            asked.push({ kind: request.kind, summary: request.summary, input: request.input });
            return { decision: (request.input as { key?: string } | undefined)?.key === "allow" ? "allow" : "deny" };
          },
        },
      });
      try {
        expect((await agent.run("please allow")).text).toBe("After allow.");
        expect((await agent.run("please deny")).text).toBe("After deny.");
      } finally {
        await agent.close();
      }
      expect(asked).toEqual([
        { kind: "tool", summary: "Run MCP tool lookup of server host", input: { key: "allow" } },
        { kind: "tool", summary: "Run MCP tool lookup of server host", input: { key: "deny" } },
      ]);
      expect(seen).toEqual([{ key: "allow" }]);
      const requests = modelRequests(ctx);
      expect(toolResult(requests.find((r) => toolResult(r, "call_allow") !== undefined), "call_allow")).toContain("looked-up");
      expect(toolResult(requests.find((r) => toolResult(r, "call_deny") !== undefined), "call_deny")).not.toContain("looked-up");
    });
  }, 120_000);

  it("cancels during a host-tool call: the handler's signal aborts, run.cancelled once, nothing left running", async () => {
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "wait for it" }, reply: { toolCalls: [{ id: "call_wait", name: "mcp__host__wait", arguments: {} }] } },
        { match: { toolResultFor: "call_wait" }, reply: { text: "too late" } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
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
      const agent = createAgent(driver, { workspace: ctx.workspace, tools: [wait], defaults: { policy: { approval: "never" } } });
      try {
        const stream = agent.stream("wait for it");
        const events = collect(stream);
        await inHandler;
        stream.cancel();
        const all = await events;
        await stream.result.catch(() => undefined);
        expect(all.filter((e) => e.type === "run.cancelled")).toHaveLength(1);
        expect(aborted).toBe(true);
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  }, 120_000);

  it("a prepared standby serves a run that adds run-scoped services: one process, the service called", async () => {
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "ask the service" }, reply: { toolCalls: [{ id: "call_svc", name: "mcp__host__ledger", arguments: { key: "beta" } }] } },
        { match: { toolResultFor: "call_svc" }, reply: { text: "Served." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      const lookup: HostTool = { name: "lookup", inputSchema: lookupSchema, handler: async () => "unused" };
      const seen: unknown[] = [];
      const ledger: HostTool = { name: "ledger", inputSchema: lookupSchema, handler: async (args) => (seen.push(args), "ledger-says-ok") };
      const agent = createAgent(driver, { workspace: ctx.workspace, tools: [lookup], defaults: { policy: { approval: "never" } } });
      try {
        const report = await agent.prepare();
        expect(report.process).toBe("ready");
        const startedBefore = driver.processes().started;
        const result = await agent.run("ask the service", { services: [ledger] });
        expect(result.text).toBe("Served.");
        expect(driver.processes().started).toBe(startedBefore);
        expect(seen).toEqual([{ key: "beta" }]);
        const requests = modelRequests(ctx);
        expect(requests[0]!.tools).toEqual(expect.arrayContaining(["lookup", "ledger"]));
        expect(toolResult(requests[1], "call_svc")).toContain("ledger-says-ok");
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
      expect(existsSync(ctx.workspace)).toBe(true);
    });
  }, 120_000);
});
