/**
 * agent → A2A → agent on the fake driver: the `a2a()` driver against `a2aServer()`. The served
 * run's approval and question reach the client agent's own handlers and their answers reach the
 * served run; tool calls and usage come back as canonical events; the server's `authorize`
 * refuses a client without the token (auth_required) and accepts one with it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, type Agent } from "../../src/agent/agent.js";
import { a2a } from "../../src/bridges/a2a/index.js";
import type { AgentEvent } from "../../src/events/types.js";
import { fakeDriver } from "../../src/testing/fake-driver/driver.js";
import type { FakeRunScript } from "../../src/testing/fake-driver/script.js";
import { serve, type Served } from "./a2a-helpers.js";

const TOKEN = "roundtrip-token-9b7c1e55aa";

const script = (prompt: string): FakeRunScript => {
  if (prompt.startsWith("ASK")) {
    return { steps: [{ markDelivered: true }, { ask: { requestId: "q-1", questions: [{ id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] }] } }, { emit: { type: "message.completed", itemId: "m1", text: "noted" } }], text: "noted" };
  }
  return {
    steps: [
      { markDelivered: true },
      { emit: { type: "tool.started", callId: "c1", kind: "command", name: "shell", title: "rm -rf build", command: "rm -rf build" } },
      { approve: { requestId: "ap-1", kind: "command", callId: "c1", summary: "run rm -rf build", options: [{ id: "ok", label: "Run it", kind: "allow_once" }, { id: "no", label: "Refuse", kind: "deny" }] } },
      { emit: { type: "tool.completed", callId: "c1", status: "completed", exitCode: 0, output: "removed" } },
      { emit: { type: "usage.observed", usage: { input_tokens: 12, output_tokens: 3 } } },
      { emit: { type: "message.completed", itemId: "m1", text: "cleaned" } },
    ],
    text: "cleaned",
    usage: { input_tokens: 12, output_tokens: 3 },
  };
};

let served: Served | undefined;
const agents: Agent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
  await served?.close();
  served = undefined;
});

async function start(authorize?: (request: Request) => boolean) {
  const inner = createAgent(fakeDriver({ script }), { workspace: process.cwd() });
  agents.push(inner);
  served = await serve(inner, authorize ? { authorize } : {});
  return served;
}

function client(options: Parameters<typeof createAgent>[1], auth?: { token: string }) {
  const agent = createAgent(a2a({ url: served!.url, ...(auth ? { auth } : {}) }), { workspace: process.cwd(), ...options });
  agents.push(agent);
  return agent;
}

describe("a2a() against a2aServer()", () => {
  it("the served run's approval reaches the client's handler; its decision reaches the served run", async () => {
    await start();
    const asked: unknown[] = [];
    const agent = client({ defaults: { onApproval: async (request) => (asked.push(request), { decision: "allow" as const, optionId: "ok" }) } });
    const stream = agent.stream("clean the build");
    const events: AgentEvent[] = [];
    for await (const e of stream) events.push(e);
    const result = await stream.result;
    expect(result.text).toBe("cleaned");
    expect(asked).toEqual([expect.objectContaining({ requestId: "ap-1", kind: "command", callId: "c1", summary: "run rm -rf build" })]);
    expect(events.find((e) => e.type === "notice" && e.code === "fake_approval")).toMatchObject({ message: "decision: allow" });
    expect(events.find((e) => e.type === "tool.started")).toMatchObject({ callId: "c1", kind: "command", command: "rm -rf build" });
    expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ callId: "c1", status: "completed", exitCode: 0 });
    expect(result.usage).toMatchObject({ input_tokens: 12, output_tokens: 3 });
  });

  it("a denial from the client reaches the served run", async () => {
    await start();
    const agent = client({ defaults: { onApproval: async () => ({ decision: "deny", message: "not today" }) } });
    const stream = agent.stream("clean the build");
    const events: AgentEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(events.find((e) => e.type === "notice" && e.code === "fake_approval")).toMatchObject({ message: "decision: deny" });
  });

  it("the served run's question is answered from the client's stream", async () => {
    await start();
    const agent = client({ defaults: { onUserInput: "stream" } });
    const stream = agent.stream("ASK it");
    const events: AgentEvent[] = [];
    for await (const e of stream) {
      events.push(e);
      if (e.type === "question.requested") stream.answer(e.requestId, { db: "SQLite" });
    }
    expect((await stream.result).text).toBe("noted");
    expect(events.find((e) => e.type === "question.requested")).toMatchObject({ requestId: "q-1", questions: [{ id: "db", question: "Which database?" }] });
    expect(events.find((e) => e.type === "notice" && e.code === "fake_answer")).toMatchObject({ message: JSON.stringify({ db: "SQLite" }) });
  });

  it("authorize refuses a client without the token and accepts one with it, which never shows", async () => {
    await start((request) => request.headers.get("authorization") === `Bearer ${TOKEN}`);
    const anonymous = client({});
    expect((await anonymous.inspect()).auth.reason?.code).toBe("auth_required");
    await expect(anonymous.run("clean the build")).rejects.toMatchObject({ code: "auth_required" });
    const signed = client({ defaults: { onApproval: async () => ({ decision: "allow" }) } }, { token: TOKEN });
    const inspection = await signed.inspect();
    expect(inspection.auth.value).toMatchObject({ signedIn: true, method: "bearer" });
    const result = await signed.run("clean the build");
    expect(result.text).toBe("cleaned");
    expect(JSON.stringify({ inspection, transcript: result.transcript(), raw: result.raw() })).not.toContain(TOKEN);
  });
});
