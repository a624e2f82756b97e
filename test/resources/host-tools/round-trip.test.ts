import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent, hostTool, type Agent, type AgentEvent, type HostToolContext } from "../../../src/index.js";
import { fakeDriver, type FakeStep } from "../../../src/testing/index.js";

const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

function script(...steps: FakeStep[]) {
  return { steps: [{ markDelivered: true } as FakeStep, ...steps, { emit: { type: "message.completed", itemId: "m", text: "done" } } as FakeStep], text: "done" };
}

async function eventsOf(agent: Agent, prompt = "go", options?: Parameters<Agent["stream"]>[1]): Promise<AgentEvent[]> {
  const stream = agent.stream(prompt, options);
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("a host tool called through the agent's loopback MCP server", () => {
  it("reaches the handler with validated arguments and the run's identity; its result is the tool's output", async () => {
    const seen: { args: unknown; context: HostToolContext }[] = [];
    const driver = fakeDriver({ script: script({ hostTool: { name: "lookup", arguments: { id: 42 } } }) });
    const agent = createAgent(driver, {
      tools: [
        {
          name: "lookup",
          description: "Looks a record up",
          inputSchema: z.object({ id: z.number().int() }),
          handler: (args, context) => {
            seen.push({ args, context });
            return { id: (args as { id: number }).id, name: "Ada" };
          },
        },
      ],
    });
    agents.push(agent);
    const events = await eventsOf(agent);
    const runId = events[0]!.runId;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.args).toEqual({ id: 42 });
    expect(seen[0]!.context.runId).toBe(runId);
    expect(seen[0]!.context.signal.aborted).toBe(true); // the run ended: its handler signals abort
    const started = events.find((event) => event.type === "tool.started");
    expect(started).toMatchObject({ kind: "mcp", name: "lookup", mcp: { server: "host", tool: "lookup" }, rawInput: { id: 42 } });
    const completed = events.find((event) => event.type === "tool.completed");
    expect(completed).toMatchObject({ status: "completed", output: JSON.stringify({ id: 42, name: "Ada" }) });
    expect(events.at(-1)!.type).toBe("run.completed");
    expect(driver.probe.runs[0]!.hostTools).toBe("opened");
  });
});

describe("hostTool()", () => {
  it("types the handler's arguments from a zod schema and returns the tool as given", () => {
    const tool = hostTool({
      name: "add",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => a + b,
    });
    // @ts-expect-error: the arguments are typed from the schema
    hostTool({ name: "bad", inputSchema: z.object({ a: z.number() }), handler: ({ c }) => c });
    expect(tool.handler({ a: 1, b: 2 }, { signal: new AbortController().signal, runId: "run_x" })).toBe(3);
  });
});

describe("a thread's turn", () => {
  it("gives the handler the thread's id beside the run's", async () => {
    const seen: HostToolContext[] = [];
    const driver = fakeDriver({ script: script({ hostTool: { name: "where", arguments: {} } }) });
    const agent = createAgent(driver, { tools: [{ name: "where", inputSchema: { type: "object" }, handler: (_args, context) => void seen.push(context) }] });
    agents.push(agent);
    const thread = await agent.startThread({ id: "tenant-7/issue-1" });
    const result = await thread.run("go");
    expect(seen.map(({ runId, threadId }) => ({ runId, threadId }))).toEqual([{ runId: result.runId, threadId: "tenant-7/issue-1" }]);
  });
});
