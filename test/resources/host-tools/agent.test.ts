import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent, RunCancelledError, type Agent, type AgentEvent, type AgentOptions, type CallOptions, type HostTool } from "../../../src/index.js";
import { fakeDriver, type FakeStep } from "../../../src/testing/index.js";

const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

function agentOf(driver: Parameters<typeof createAgent>[0], options: AgentOptions): Agent {
  const agent = createAgent(driver, options);
  agents.push(agent);
  return agent;
}

function script(...steps: FakeStep[]) {
  return { steps: [{ markDelivered: true } as FakeStep, ...steps, { emit: { type: "message.completed", itemId: "m", text: "done" } } as FakeStep], text: "done" };
}

async function eventsOf(agent: Agent, prompt = "go", options?: CallOptions): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of agent.stream(prompt, options)) events.push(event);
  return events;
}

const completions = (events: AgentEvent[]) => events.filter((event) => event.type === "tool.completed");
const listed = (events: AgentEvent[]) => events.filter((event) => event.type === "notice" && event.code === "fake_notice").map((event) => JSON.parse((event as { message: string }).message) as string[]);

function echoTool(name = "echo", calls: unknown[] = []): HostTool {
  return { name, inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false }, handler: (args) => (calls.push(args), (args as { text: string }).text) };
}

/** Resolves when the port refuses connections (nothing listens on it any more). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(false)));
    socket.once("error", () => resolve(true));
  });
}

describe("the model side sees a tool error, never a crash", () => {
  it("for arguments the JSON Schema refuses, naming the problem; the handler is not called", async () => {
    const calls: unknown[] = [];
    const driver = fakeDriver({ script: script({ hostTool: { name: "echo", arguments: { text: 5 } } }) });
    const events = await eventsOf(agentOf(driver, { tools: [echoTool("echo", calls)] }));
    expect(calls).toEqual([]);
    expect(completions(events)).toEqual([expect.objectContaining({ status: "failed", output: expect.stringMatching(/invalid arguments for host tool "echo": text: must be string/) })]);
    expect(events.at(-1)!.type).toBe("run.completed");
  });

  it("for arguments a Standard Schema refuses, with its issue's path", async () => {
    const driver = fakeDriver({ script: script({ hostTool: { name: "pick", arguments: { n: -1 } } }) });
    const tool: HostTool = { name: "pick", inputSchema: z.object({ n: z.number().min(0) }), handler: () => "never" };
    const events = await eventsOf(agentOf(driver, { tools: [tool] }));
    expect(completions(events)[0]).toMatchObject({ status: "failed", output: expect.stringMatching(/invalid arguments for host tool "pick": n: /) });
  });

  it("for a handler that throws: its message, with registered secrets redacted", async () => {
    const secret = "sk-canary-handler-0123456789abcdef";
    const driver = fakeDriver({ script: script({ hostTool: { name: "boom", arguments: {} } }) });
    // The MCP header value is a registered secret of the agent.
    const tool: HostTool = { name: "boom", inputSchema: { type: "object" }, handler: () => { throw new Error(`database said no (key ${secret})`); } };
    const events = await eventsOf(agentOf(driver, { tools: [tool], mcp: [{ name: "db", url: "http://127.0.0.1:9/mcp", headers: { "x-key": secret } }] }));
    const failed = completions(events)[0]!;
    expect(failed).toMatchObject({ status: "failed", output: expect.stringContaining("database said no") });
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it("returns text for a string, empty text for nothing and JSON for a value", async () => {
    const results: Record<string, unknown> = { s: "plain", u: undefined, a: [1, "two"], o: { ok: true } };
    const tools = Object.keys(results).map((name): HostTool => ({ name, inputSchema: { type: "object" }, handler: () => results[name] }));
    const driver = fakeDriver({ script: script(...Object.keys(results).map((name): FakeStep => ({ hostTool: { name } }))) });
    const events = await eventsOf(agentOf(driver, { tools }));
    expect(completions(events).map((event) => (event as { output?: string }).output)).toEqual(["plain", "", '[1,"two"]', '{"ok":true}']);
  });
});

describe("cancelling a run during a host-tool call", () => {
  it("aborts the handler's signal, ends the run cancelled once, and closing the agent leaves no listening socket", async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let abortedWith: unknown;
    const tool: HostTool = {
      name: "slow",
      inputSchema: { type: "object" },
      handler: (_args, { signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => ((abortedWith = signal.reason), reject(signal.reason)), { once: true });
          entered();
        }),
    };
    const driver = fakeDriver({ process: true, script: script({ hostTool: { name: "slow" } }) });
    const agent = agentOf(driver, { tools: [tool] });
    const stream = agent.stream("go");
    const events: AgentEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(event);
    })();
    await inHandler;
    stream.cancel("host gave up");
    await reading;
    await expect(stream.result).rejects.toBeInstanceOf(RunCancelledError);
    expect(abortedWith).toBeDefined();
    expect(events.filter((event) => event.type === "run.cancelled")).toHaveLength(1);
    expect(events.filter((event) => event.type.startsWith("run.") && event.type !== "run.started")).toHaveLength(1);
    const port = Number(new URL(driver.probe.endpoints[0]!.http.url).port);
    expect(await refused(port)).toBe(false);
    await agent.close();
    expect(await refused(port)).toBe(true);
    expect(listeningPorts()).not.toContain(port);
    expect(driver.probe.livePids()).toEqual([]);
  });
});

describe("run-scoped services", () => {
  it("are listed and callable only in their run; a concurrent run of the same agent sees the agent's tools alone", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const serviceCalls: unknown[] = [];
    const service: HostTool = { name: "tenant_db", inputSchema: { type: "object" }, handler: async (_args, { runId }) => (serviceCalls.push(runId), "rows") };
    const hold: HostTool = { name: "hold", inputSchema: { type: "object" }, handler: () => gate.then(() => "held") };
    const driver = fakeDriver({
      script: (prompt) =>
        prompt === "with"
          ? script({ listHostTools: true }, { hostTool: { name: "hold" } }, { hostTool: { name: "tenant_db" } })
          : script({ listHostTools: true }, { hostTool: { name: "tenant_db" } }),
    });
    const agent = agentOf(driver, { tools: [hold] });
    const withServices = eventsOf(agent, "with", { services: [service] });
    // The other run starts while the first one holds its services.
    const without = await eventsOf(agent, "without");
    release();
    const withEvents = await withServices;
    expect(listed(withEvents)).toEqual([["hold", "tenant_db"]]);
    expect(listed(without)).toEqual([["hold"]]);
    expect(completions(without)[0]).toMatchObject({ status: "failed", output: 'unknown host tool "tenant_db"' });
    expect(completions(withEvents).map((event) => (event as { status: string }).status)).toEqual(["completed", "completed"]);
    expect(serviceCalls).toEqual([withEvents[0]!.runId]);
  });

  it("reach a run on an agent without tools of its own; a call without services gets no endpoint", async () => {
    const driver = fakeDriver({ script: (prompt) => (prompt === "with" ? script({ hostTool: { name: "svc" } }) : script()) });
    const agent = agentOf(driver, {});
    const events = await eventsOf(agent, "with", { services: [{ name: "svc", inputSchema: { type: "object" }, handler: () => "served" }] });
    expect(completions(events)[0]).toMatchObject({ status: "completed", output: "served" });
    await eventsOf(agent, "without");
    expect(driver.probe.runs.map((run) => run.hostTools)).toEqual(["opened", undefined]);
  });

  it("are refused per call with a ConfigError naming the tool: a bad name, a clash with the agent's tools, a missing handler", () => {
    const agent = agentOf(fakeDriver(), { tools: [echoTool()] });
    const call = (services: unknown) => () => agent.stream("x", { services } as CallOptions);
    expect(call([{ name: "bad name", inputSchema: { type: "object" }, handler: () => 1 }])).toThrow(/^services\[0\]\.name: expected 1 to 64 letters/);
    expect(call([echoTool()])).toThrow(/^services\[0\] \("echo"\): the agent already has a tool of that name$/);
    expect(call([{ name: "h", inputSchema: { type: "object" } }])).toThrow(/^services\[0\] \("h"\)\.handler: expected a function$/);
    expect(call([{ name: "s", inputSchema: { type: "string" }, handler: () => 1 }])).toThrow(/must describe an object/);
  });

  it("do not change the agent's identity: a prepared standby (with the agent's tools) serves a run that adds services", async () => {
    const driver = fakeDriver({ process: true, prepare: "ready", script: script({ listHostTools: true }, { hostTool: { name: "svc" } }) });
    const agent = agentOf(driver, { tools: [echoTool()] });
    await agent.prepare();
    expect(driver.probe.startedPids()).toHaveLength(1);
    const events = await eventsOf(agent, "go", { services: [{ name: "svc", inputSchema: { type: "object" }, handler: () => "from the service" }] });
    expect(driver.probe.standbysUsed).toBe(1);
    expect(driver.probe.startedPids()).toHaveLength(1);
    expect(driver.probe.runs[0]!.hostTools).toBe("bound");
    expect(listed(events)).toEqual([["echo", "svc"]]);
    expect(completions(events)[0]).toMatchObject({ status: "completed", output: "from the service" });
  });

  it("skip a standby prepared without an endpoint (the agent has no tools): the run gets a fresh process", async () => {
    const driver = fakeDriver({ process: true, prepare: "ready", script: script({ hostTool: { name: "svc" } }) });
    const agent = agentOf(driver, {});
    await agent.prepare();
    const events = await eventsOf(agent, "go", { services: [{ name: "svc", inputSchema: { type: "object" }, handler: () => "fresh" }] });
    expect(driver.probe.standbysUsed).toBe(0);
    expect(driver.probe.startedPids()).toHaveLength(2);
    expect(completions(events)[0]).toMatchObject({ status: "completed", output: "fresh" });
  });
});

describe("the endpoint's bearer token", () => {
  it("never appears in events, the result or the transcript, even when a handler echoes it", async () => {
    const driver = fakeDriver({ script: script({ hostTool: { name: "leak" } }) });
    let token = "";
    // A handler that echoes what a careless host might: the endpoint's own credentials.
    const tool: HostTool = {
      name: "leak",
      inputSchema: { type: "object" },
      handler: () => {
        token = driver.probe.endpoints[0]!.http.headers.Authorization!.replace(/^Bearer /, "");
        throw new Error(`auth ${token}`);
      },
    };
    const agent = agentOf(driver, { tools: [tool] });
    const stream = agent.stream("go");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    expect(token.length).toBeGreaterThanOrEqual(43);
    expect(JSON.stringify(events)).not.toContain(token);
    expect(JSON.stringify(result.transcript())).not.toContain(token);
    expect(completions(events)[0]).toMatchObject({ status: "failed", output: expect.stringMatching(/^auth /) });
  });
});

/** Ports in LISTEN state on 127.0.0.1 (from /proc/net/tcp; empty where there is none). */
function listeningPorts(): number[] {
  try {
    return readFileSync("/proc/net/tcp", "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === "0A")
      .map((fields) => parseInt(fields[1]!.split(":")[1]!, 16));
  } catch {
    return [];
  }
}
