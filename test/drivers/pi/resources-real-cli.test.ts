/**
 * Real-CLI lane of the Pi driver's resources: instructions, skills, host tools and MCP servers
 * reach the real `pi --mode rpc` (the pinned devDependency), proven by what the scripted model
 * server receives. Skills are Pi's own (`--skill`); instructions, host tools and MCP servers go
 * through the driver's extension.
 */
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { pi, type PiConfig } from "../../../src/drivers/pi/index.js";
import type { HostToolContext } from "../../../src/driver/vocabulary.js";
import type { AgentEvent } from "../../../src/events/types.js";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV } from "../../../src/testing/real-cli/settings.js";
import { withRealCli, type RealCliContext } from "../../../src/testing/real-cli/index.js";
import { capturedTexts, describeRealCli } from "../../real-cli/helpers.js";
import { laneEnv } from "../real-lane.js";
import { PiLaneRecorder } from "./lane-record.js";
import { startMcpHttpServer } from "./mcp-http-server.js";

const lane = new PiLaneRecorder(["instructions", "skills", "host tools", "MCP servers"]);
afterAll(() => lane.writeIfRequested());

const canaryServer = fileURLToPath(new URL("./fixtures/canary-mcp-server.mjs", import.meta.url));

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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A wrapper that writes each argument it is started with to `argv.log`, then runs Pi. */
async function argvLoggingPi(ctx: RealCliContext): Promise<{ executable: string; argv(): Promise<string> }> {
  const log = join(ctx.root, "argv.log");
  const executable = join(ctx.root, "pi-wrapper");
  const target = [ctx.executable, ...(ctx.executable === process.execPath ? [ctx.entry] : [])].map((a) => JSON.stringify(a)).join(" ");
  await writeFile(executable, `#!/bin/sh\nprintf '%s\\n' "$@" >> ${JSON.stringify(log)}\nexec ${target} "$@"\n`);
  await chmod(executable, 0o755);
  return { executable, argv: () => readFile(log, "utf8").catch(() => "") };
}

/** The skill directory Pi was given, as its system prompt states it (`<location>…/SKILL.md</location>`). */
function skillLocation(system: string, name: string): string | undefined {
  const at = system.indexOf(`<name>${name}</name>`);
  const match = at < 0 ? null : /<location>([^<]+)<\/location>/.exec(system.slice(at));
  return match?.[1];
}

/** Set when the host-tool round trip test passed; the cancel test then records the capability. */
let hostToolsServed = false;

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
        lane.version(ctx.version);
        lane.proved("instructions", "appended to Pi's system prompt on every prompt by the driver's extension (`before_agent_start`); Pi's own `APPEND_SYSTEM.md` still applies", "the model request's system prompt held the agent's instructions");
        lane.proved(
          "skills",
          "native: materialized into a 0700 directory the process owns and loaded with `--skill <dir>` (listed in Pi's system prompt and as `skill:<name>` commands); removed when the process exits",
          "`inspect()` listed the skill (from `get_commands`); the system prompt named it with its description and a location outside the workspace, gone once the run's process retired; `/skill:<name>` sent its body to the model",
        );
      } finally {
        await agent.close();
      }
    });
  });

  it("offers the agent's MCP servers (stdio and Streamable HTTP) through the extension: calls reach them, secrets stay off argv and events, inspect starts none, a standby connects them", async () => {
    const secret = "pi-lane-secret-5b1e0c7a9d2f4e6b8a1c3d5e7f9a0b2c";
    const http = await startMcpHttpServer([
      { name: "echo", description: "Echo the text back", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, call: (args) => ({ content: [{ type: "text", text: `echo: ${String(args.text)}` }] }) },
    ]);
    const script = {
      turns: [
        {
          match: { lastUserTextContains: "Check the servers" },
          reply: { toolCalls: [{ id: "call_stdio", name: "mcp__lane__check", arguments: {} }, { id: "call_http", name: "mcp__web__echo", arguments: { text: "over http" } }] },
        },
        { match: { toolResultFor: "call_http" }, reply: { text: "Both servers answered." } },
      ],
    };
    try {
      await withRealCli("pi", script, async (ctx) => {
        const wrapper = await argvLoggingPi(ctx);
        const starts = join(ctx.root, "mcp-starts.log");
        const agent = createAgent(pi(configFor(ctx, { executable: wrapper.executable, args: [] })), {
          workspace: ctx.workspace,
          mcp: [
            { name: "lane", command: process.execPath, args: [canaryServer], env: { LANE_SECRET: secret, LANE_STARTS: starts } },
            { name: "web", url: http.url, headers: http.headers },
          ],
        });
        try {
          const inspection = await agent.inspect();
          expect(inspection.mcp).toMatchObject({ status: "unavailable", reason: { code: "not_started" } });
          expect(existsSync(starts)).toBe(false);
          // A standby serves runs: its extension connected both servers before Pi answered.
          const prepared = await agent.prepare();
          expect(prepared.inspection.mcp).toMatchObject({ status: "observed", value: { servers: [{ name: "lane", status: "connected" }, { name: "web", status: "connected" }] } });

          const stream = agent.stream("Check the servers");
          const events = await collect(stream);
          const result = await stream.result;
          expect(result.text).toBe("Both servers answered.");
          expect((await readFile(starts, "utf8")).trim().split("\n")).toHaveLength(1);

          const results = modelRequests(ctx)[1]!.messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
          expect(results).toEqual(
            expect.arrayContaining([
              expect.objectContaining({ callId: "call_stdio", text: `secret arrived: yes (length ${secret.length}); on a command line: no` }),
              expect.objectContaining({ callId: "call_http", text: "echo: over http" }),
            ]),
          );
          expect(http.calls).toEqual([{ name: "echo", args: { text: "over http" } }]);
          const started = events.filter((e) => e.type === "tool.started");
          expect(started).toEqual(
            expect.arrayContaining([
              expect.objectContaining({ kind: "mcp", mcp: { server: "lane", tool: "check" }, name: "mcp__lane__check" }),
              expect.objectContaining({ kind: "mcp", mcp: { server: "web", tool: "echo" }, name: "mcp__web__echo" }),
            ]),
          );
          const token = http.headers.authorization!.slice("Bearer ".length);
          const argv = await wrapper.argv();
          expect(argv).toContain("--extension");
          for (const canary of [secret, token]) {
            expect(argv).not.toContain(canary);
            expect(JSON.stringify(events)).not.toContain(canary);
            expect(JSON.stringify([inspection, prepared])).not.toContain(canary);
          }
          lane.proved(
            "MCP servers",
            "stdio and Streamable HTTP, through the driver's extension (an MCP client in Pi registering each tool as `mcp__<server>__<tool>`); `env`/`headers` values in a 0600 file named in Pi's environment, never on its command line; `inspect()` starts none",
            "the scripted model called a stdio and an HTTP server's tools and both results reached the model; `tool.started` kind `mcp` with server and tool; the stdio server's secret env value and the HTTP bearer token were on no argument Pi was started with, in no event and no inspection; the stdio server was gone after `close()`",
          );
          await agent.close();
          const [mcpPid] = (await readFile(starts, "utf8")).trim().split("\n").map(Number);
          await expect.poll(() => alive(mcpPid!)).toBe(false);
        } finally {
          await agent.close();
        }
      });
    } finally {
      await http.close();
    }
  });

  it("serves host tools from the agent's loopback server: the handler runs with the model's arguments, its result reaches the model; a run's services ride a prepared standby", async () => {
    const script = {
      turns: [
        { match: { lastUserTextContains: "Use the service" }, reply: { toolCalls: [{ id: "call_service", name: "mcp__host__per_request", arguments: { n: 2 } }] } },
        { match: { toolResultFor: "call_service" }, reply: { text: "Service done." } },
        { match: { lastUserTextContains: "Look up alpha" }, reply: { toolCalls: [{ id: "call_lookup", name: "mcp__host__lookup", arguments: { key: "alpha" } }] } },
        { match: { toolResultFor: "call_lookup" }, reply: { text: "Found." } },
      ],
    };
    await withRealCli("pi", script, async (ctx) => {
      const seen: { tool: string; args: unknown; runId: string }[] = [];
      const driver = pi(configFor(ctx));
      const agent = createAgent(driver, {
        workspace: ctx.workspace,
        tools: [
          {
            name: "lookup",
            description: "Looks a key up in the host's table",
            inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"], additionalProperties: false },
            handler: (args: unknown, context: HostToolContext) => {
              seen.push({ tool: "lookup", args, runId: context.runId });
              return `value-for-${(args as { key: string }).key}`;
            },
          },
        ],
      });
      try {
        await agent.prepare();
        expect(driver.processes().started).toBe(1);

        const service = {
          name: "per_request",
          description: "A per-request handle",
          inputSchema: { type: "object" as const, properties: { n: { type: "integer" } }, required: ["n"] },
          handler: (args: unknown, context: HostToolContext) => {
            seen.push({ tool: "per_request", args, runId: context.runId });
            return { doubled: (args as { n: number }).n * 2 };
          },
        };
        const stream = agent.stream("Use the service", { services: [service] });
        const events = await collect(stream);
        const first = await stream.result;
        expect(first.text).toBe("Service done.");
        // The standby served the run: its extension listed the run's service before the prompt.
        expect(driver.processes().started).toBe(1);
        expect(seen).toEqual([{ tool: "per_request", args: { n: 2 }, runId: first.runId }]);
        const [ask, answer] = modelRequests(ctx) as [CapturedRequest, CapturedRequest];
        expect(ask.tools).toEqual(expect.arrayContaining(["read", "bash", "mcp__host__lookup", "mcp__host__per_request"]));
        const serviceResult = answer.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
        expect(serviceResult).toMatchObject({ callId: "call_service", text: '{"doubled":4}' });
        expect(events.find((e) => e.type === "tool.started")).toMatchObject({ kind: "mcp", mcp: { server: "host", tool: "per_request" } });
        expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ status: "completed", output: '{"doubled":4}' });

        const second = await agent.run("Look up alpha");
        expect(second.text).toBe("Found.");
        expect(seen.at(-1)).toEqual({ tool: "lookup", args: { key: "alpha" }, runId: second.runId });
        const [, , lookupAsk, lookupAnswer] = modelRequests(ctx) as CapturedRequest[];
        // Services are the run's only: the next run is not offered them.
        expect(lookupAsk!.tools).toContain("mcp__host__lookup");
        expect(lookupAsk!.tools).not.toContain("mcp__host__per_request");
        expect(lookupAnswer!.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result")).toMatchObject({ text: "value-for-alpha" });
        hostToolsServed = true;
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  });

  it("a cancel during a host tool call aborts the handler's signal, ends the run cancelled once, and leaves no Pi process (built-ins restricted by config, the host tool still offered)", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "Wait for the host" }, reply: { toolCalls: [{ id: "call_wait", name: "mcp__host__wait", arguments: {} }] } }] };
    await withRealCli("pi", script, async (ctx) => {
      let entered!: (signal: AbortSignal) => void;
      const handlerSignal = new Promise<AbortSignal>((resolve) => (entered = resolve));
      // Pi's built-ins restricted to `read`: the host tool is offered beside it, nothing else.
      const driver = pi(configFor(ctx, { tools: ["read"] }));
      const agent = createAgent(driver, {
        workspace: ctx.workspace,
        tools: [
          {
            name: "wait",
            description: "Waits until cancelled",
            inputSchema: { type: "object", properties: {} },
            handler: (_args: unknown, context: HostToolContext) =>
              new Promise((resolve) => {
                entered(context.signal);
                context.signal.addEventListener("abort", () => resolve("stopped"), { once: true });
              }),
          },
        ],
      });
      try {
        const controller = new AbortController();
        const stream = agent.stream("Wait for the host", { signal: controller.signal });
        const events: AgentEvent[] = [];
        const reading = (async () => {
          for await (const e of stream) events.push(e);
        })();
        const signal = await handlerSignal;
        expect(signal.aborted).toBe(false);
        expect([...modelRequests(ctx)[0]!.tools].sort()).toEqual(["mcp__host__wait", "read"]);
        controller.abort();
        await reading;
        await stream.result.catch(() => undefined);
        expect(signal.aborted).toBe(true);
        expect(events.filter((e) => e.type === "run.cancelled")).toHaveLength(1);
        expect(events.at(-1)?.type).toBe("run.cancelled");
        expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ status: "cancelled" });
        expect(driver.processes().live).toEqual([]);
        if (hostToolsServed) {
          lane.proved(
            "host tools",
            "the agent's loopback MCP server (Streamable HTTP, one endpoint and bearer token per Pi process) through the driver's extension, tools named `mcp__host__<tool>`; a run's services are listed again before its prompt, so a prepared standby serves them; a cancel aborts the handler",
            "the scripted model called a host tool and a run's service: each handler ran with the model's arguments and the run's id, its result reached the model; the service ran on the prepared standby (one Pi started) and was not offered to the next run; a cancel during a host tool call aborted the handler's signal and ended the run `run.cancelled` once with no Pi left",
          );
        }
      } finally {
        await agent.close();
      }
    });
  });

  it("a run with services on a standby prepared without host tools is served by a Pi that offers them", async () => {
    const script = {
      turns: [
        { match: { lastUserTextContains: "Count it" }, reply: { toolCalls: [{ id: "call_count", name: "mcp__host__count", arguments: {} }] } },
        { match: { toolResultFor: "call_count" }, reply: { text: "Counted." } },
      ],
    };
    await withRealCli("pi", script, async (ctx) => {
      const driver = pi(configFor(ctx));
      const agent = createAgent(driver, { workspace: ctx.workspace });
      let calls = 0;
      try {
        await agent.prepare();
        const result = await agent.run("Count it", {
          services: [{ name: "count", description: "Counts a call", inputSchema: { type: "object", properties: {} }, handler: () => String(++calls) }],
        });
        expect(result.text).toBe("Counted.");
        expect(calls).toBe(1);
        expect(driver.processes().started).toBe(2);
        expect(modelRequests(ctx)[1]!.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result")).toMatchObject({ callId: "call_count", text: "1" });
      } finally {
        await agent.close();
      }
    });
  });

  it("an MCP server the extension cannot reach fails the run before delivery, naming no secret, leaving no process", async () => {
    const token = "pi-unreachable-token-3c9e1f7a5b2d4c6e8f0a";
    const port = await closedPort();
    await withRealCli("pi", { turns: [{ reply: { text: "never" } }] }, async (ctx) => {
      const driver = pi(configFor(ctx));
      const agent = createAgent(driver, { workspace: ctx.workspace, mcp: [{ name: "gone", url: `http://127.0.0.1:${port}/mcp`, headers: { authorization: `Bearer ${token}` } }] });
      try {
        const error = await agent.run("Hello").then(
          () => undefined,
          (e: unknown) => e as { code?: string; phase?: string; message: string },
        );
        expect(error).toMatchObject({ code: "provider_exited", phase: "before_delivery" });
        expect(error!.message).toContain("Failed to load extension");
        expect(error!.message).not.toContain(token);
        expect(modelRequests(ctx)).toHaveLength(0);
        expect(driver.processes().live).toEqual([]);
      } finally {
        await agent.close();
      }
    });
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
