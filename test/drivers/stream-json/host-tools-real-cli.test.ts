/**
 * Real-CLI lane of host tools on Claude Code and CodeBuddy: the scripted model calls a host tool
 * registered through the agent's loopback MCP server (`mcp__host__<tool>`), the handler runs with
 * the model's arguments and the run's id, its result reaches the model in the next request; a
 * denied approval keeps the handler from running; a cancel during a call aborts the handler's
 * signal, ends the run cancelled once and leaves no process; a run's services on a prepared
 * standby.
 */
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import type { HostTool, HostToolContext } from "../../../src/driver/vocabulary.js";
import type { AgentEvent } from "../../../src/events/types.js";
import type { ModelScript } from "../../../src/testing/model-server/index.js";
import { withRealCli } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { ofType } from "../helpers.js";
import { countingWrapper } from "../real-lane.js";
import { commandLines, processTree } from "./proc-tree.js";
import { mcpCall, streamJsonLaneDriver } from "./lane.js";

type Cli = "claude" | "codebuddy";

/** The calls in a row, each once the previous one's result reached the model; CodeBuddy waits for the host server first. */
function script(cli: Cli, prompt: string, calls: { id: string; tool: string; args: Record<string, unknown> }[], answer?: string): ModelScript {
  const all = [
    ...(cli === "codebuddy" ? [{ id: "call_wait", name: "WaitForMcpServers", arguments: { servers: ["host"] } }] : []),
    ...calls.map((c) => mcpCall(cli, c.id, `mcp__host__${c.tool}`, c.args)),
  ];
  return {
    turns: [
      ...all.map((call, i) => ({ match: i === 0 ? { lastUserTextContains: prompt } : { toolResultFor: all[i - 1]!.id }, reply: { toolCalls: [call] } })),
      ...(answer !== undefined ? [{ match: { toolResultFor: all.at(-1)!.id }, reply: { text: answer } }] : []),
    ],
  };
}

interface Call {
  args: unknown;
  runId: string;
}

function recordingTool(name: string, calls: Call[], answer: (args: { key?: string }) => string): HostTool {
  return {
    name,
    description: `Looks a key up (${name})`,
    inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
    handler: (args: unknown, context: HostToolContext) => {
      calls.push({ args, runId: context.runId });
      return answer(args as { key?: string });
    },
  };
}

const toolResultText = (messages: unknown) => JSON.stringify(messages);

for (const cli of ["claude", "codebuddy"] as const) {
  describeRealCli(cli, () => {
    it("a host tool call: the handler gets the model's arguments and the run id, its result reaches the model; the endpoint's token is on no command line", async () => {
      await withRealCli(cli, script(cli, "look it up", [{ id: "call_host", tool: "lookup", args: { key: "k1" } }], "Found."), async (ctx) => {
        const calls: Call[] = [];
        const driver = await streamJsonLaneDriver(cli, ctx);
        const agent = createAgent(driver, {
          workspace: ctx.workspace,
          tools: [recordingTool("lookup", calls, (args) => `value-of-${args.key}-HOSTRESULT`)],
          defaults: { onApproval: async () => ({ decision: "allow" }) },
        });
        try {
          const events: AgentEvent[] = [];
          const lines: string[] = [];
          const stream = agent.stream("Please look it up");
          for await (const event of stream) {
            events.push(event);
            if (event.type === "tool.started") lines.push(...commandLines(processTree(driver.livePids())));
          }
          const result = await stream.result;
          expect(result.text).toBe("Found.");
          expect(calls).toEqual([{ args: { key: "k1" }, runId: result.runId }]);
          const last = ctx.server.requests.filter((r) => r.nth !== undefined).at(-1)!;
          expect(toolResultText(last.messages)).toContain("value-of-k1-HOSTRESULT");
          const started = ofType(events, "tool.started").find((e) => e.callId === "call_host");
          expect(started).toMatchObject({ kind: "mcp", name: "mcp__host__lookup", mcp: { server: "host", tool: "lookup" }, rawInput: { key: "k1" } });
          expect(ofType(events, "tool.completed").find((e) => e.callId === "call_host")).toMatchObject({ status: "completed", output: expect.stringContaining("value-of-k1") });
          expect(lines.length).toBeGreaterThan(0);
          for (const line of lines) expect(line).not.toMatch(/Bearer|Authorization/i);
          expect(JSON.stringify(events)).not.toMatch(/Bearer [A-Za-z0-9_-]{20,}/);
        } finally {
          await agent.close();
        }
        expect(driver.livePids()).toEqual([]);
      });
    });

    it("the approval policy applies to host tools: a denied call never reaches the handler", async () => {
      await withRealCli(cli, script(cli, "look it up", [{ id: "call_host", tool: "lookup", args: { key: "k2" } }], "Denied."), async (ctx) => {
        const calls: Call[] = [];
        const asked: string[] = [];
        const agent = createAgent(await streamJsonLaneDriver(cli, ctx), {
          workspace: ctx.workspace,
          tools: [recordingTool("lookup", calls, () => "never")],
          defaults: {
            onApproval: async (request) => {
              asked.push(JSON.stringify(request));
              return /host/.test(JSON.stringify(request)) ? { decision: "deny", message: "not this one" } : { decision: "allow" };
            },
          },
        });
        try {
          const stream = agent.stream("Please look it up");
          const events: AgentEvent[] = [];
          for await (const event of stream) events.push(event);
          expect((await stream.result).text).toBe("Denied.");
          expect(calls).toEqual([]);
          expect(asked.some((a) => a.includes("lookup"))).toBe(true);
          expect(ofType(events, "tool.completed").find((e) => e.callId === "call_host")).toMatchObject({ status: "declined" });
        } finally {
          await agent.close();
        }
      });
    });

    it("a cancel during a host tool call aborts the handler's signal, ends the run cancelled once, and leaves no process", async () => {
      await withRealCli(cli, script(cli, "wait for the host", [{ id: "call_wait_host", tool: "wait", args: { key: "x" } }]), async (ctx) => {
        let entered!: (signal: AbortSignal) => void;
        const handlerSignal = new Promise<AbortSignal>((resolve) => (entered = resolve));
        const driver = await streamJsonLaneDriver(cli, ctx);
        const agent = createAgent(driver, {
          workspace: ctx.workspace,
          tools: [
            {
              name: "wait",
              description: "Waits until cancelled",
              inputSchema: { type: "object", properties: { key: { type: "string" } } },
              handler: (_args: unknown, context: HostToolContext) =>
                new Promise((resolve) => {
                  entered(context.signal);
                  context.signal.addEventListener("abort", () => resolve("stopped"), { once: true });
                }),
            },
          ],
          defaults: { onApproval: async () => ({ decision: "allow" }) },
        });
        try {
          const controller = new AbortController();
          const stream = agent.stream("Please wait for the host", { signal: controller.signal });
          const events: AgentEvent[] = [];
          const reading = (async () => {
            for await (const e of stream) events.push(e);
          })();
          const signal = await handlerSignal;
          expect(signal.aborted).toBe(false);
          controller.abort();
          await reading;
          await stream.result.catch(() => undefined);
          expect(signal.aborted).toBe(true);
          expect(events.filter((e) => e.type === "run.cancelled")).toHaveLength(1);
          expect(events.at(-1)?.type).toBe("run.cancelled");
        } finally {
          await agent.close();
        }
        expect(driver.livePids()).toEqual([]);
      });
    });

    it("a run's services on a prepared standby", async () => {
      const scripted = script(cli, "use the service", [{ id: "call_svc", tool: "session_lookup", args: { key: "s1" } }], "Served.");
      await withRealCli(cli, scripted, async (ctx) => {
        const wrapper = await countingWrapper(ctx);
        const calls: Call[] = [];
        const driver = await streamJsonLaneDriver(cli, ctx, { executable: wrapper.executable });
        const agent = createAgent(driver, {
          workspace: ctx.workspace,
          tools: [recordingTool("lookup", [], () => "agent tool")],
          defaults: { onApproval: async () => ({ decision: "allow" }) },
        });
        try {
          const prepared = await agent.prepare();
          expect(prepared.process).toBe("ready");
          expect(await wrapper.spawns()).toHaveLength(1);
          const result = await agent.run("Please use the service", { services: [recordingTool("session_lookup", calls, (args) => `service-${args.key}-RESULT`)] });
          expect(result.text).toBe("Served.");
          expect(calls).toEqual([{ args: { key: "s1" }, runId: result.runId }]);
          const last = ctx.server.requests.filter((r) => r.nth !== undefined).at(-1)!;
          expect(toolResultText(last.messages)).toContain("service-s1-RESULT");
          expect(await wrapper.spawns()).toHaveLength(STANDBY_SERVES_SERVICES[cli] ? 1 : 2);
        } finally {
          await agent.close();
        }
      });
    });
  });
}

/**
 * Whether the CLI re-lists the host server's tools on `notifications/tools/list_changed` (sent
 * when a run binds the standby's endpoint with its services), so the standby serves that run.
 */
const STANDBY_SERVES_SERVICES: Record<Cli, boolean> = { claude: true, codebuddy: true };
