/**
 * Subagents on the openai driver against the scripted model server: a `task` call runs a child
 * loop with a fresh conversation (the model server sees only the task's prompt, and no `task`
 * tool at the depth limit), its events are nested under the task call (`parentCallId`, prefixed
 * call ids, its text as the call's output), its approvals go through the host, its usage counts
 * to the turn, and a cancel of the run stops it (its command's processes gone, one
 * run.cancelled). Bounds: the task count per run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { createAgent, type AgentEvent } from "../../../src/index.js";
import { openai } from "../../../src/drivers/openai/index.js";
import { startModelServer, type CapturedRequest, type ModelScript, type ModelServer } from "../../../src/testing/model-server/index.js";

const root = mkdtempSync(join(tmpdir(), "openai-subagents-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function workspace(): string {
  const dir = join(root, `ws-${++n}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "notes.txt"), "alpha\nbeta\n");
  return dir;
}

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const of = <T extends AgentEvent["type"]>(events: AgentEvent[], type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
const generated = (s: ModelServer): CapturedRequest[] => s.requests.filter((r) => r.dialect === "chat" || r.dialect === "responses");
const texts = (r: CapturedRequest) => r.messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.parts.map((p) => (p.type === "text" ? p.text : p.type)).join(" ")}`);

function running(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !/^[ZX]/.test(state.slice(state.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

for (const api of ["chat", "responses"] as const) {
  describe(`openai subagents (${api})`, () => {
    it("runs a task in a fresh conversation, its events nested under the task call", async () => {
      const script: ModelScript = {
        turns: [
          { match: { lastUserTextContains: "delegate" }, reply: { toolCalls: [{ id: "call_task", name: "task", arguments: { description: "count the notes", prompt: "SUBTASK: read notes.txt and count its lines" } }] } },
          { match: { lastUserTextContains: "SUBTASK", systemTextContains: "You are a subagent" }, reply: { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "notes.txt" } }] } },
          { match: { toolResultFor: "call_read" }, reply: { text: "notes.txt has 2 lines" } },
          { match: { toolResultFor: "call_task" }, reply: { text: "The subagent counted 2 lines." } },
        ],
      };
      server = await startModelServer({ script });
      const agent = createAgent(openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", stateDir: join(root, "state") }), { workspace: workspace() });
      try {
        const stream = agent.stream("delegate the counting");
        const events = await collect(stream);
        const result = await stream.result;
        expect(result.text).toBe("The subagent counted 2 lines.");

        const started = of(events, "tool.started");
        expect(started.map((e) => [e.callId, e.kind, e.parentCallId])).toEqual([
          ["call_task", "subagent", undefined],
          ["call_task/call_read", "read", "call_task"],
        ]);
        expect(started[0]!.title).toBe("task: count the notes");
        const completed = of(events, "tool.completed");
        expect(completed.map((e) => [e.callId, e.status])).toEqual([
          ["call_task/call_read", "completed"],
          ["call_task", "completed"],
        ]);
        expect(completed[1]!.output).toBe("notes.txt has 2 lines");
        const streamed = of(events, "tool.updated").filter((e) => e.callId === "call_task").map((e) => e.output ?? "").join("");
        expect(streamed).toContain("notes.txt has 2 lines");
        // The child's text is not the run's message.
        expect(of(events, "message.completed").map((e) => e.text)).toEqual(["The subagent counted 2 lines."]);

        const [parent1, child1, child2, parent2] = generated(server);
        expect(parent1!.tools).toContain("task");
        expect(texts(child1!)).toEqual(["user: SUBTASK: read notes.txt and count its lines"]);
        expect(child1!.tools).toContain("read");
        expect(child1!.tools).not.toContain("task");
        expect(texts(child2!).at(-1)).toContain("tool");
        const taskResult = parent2!.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result" && p.callId === "call_task") as { text?: string };
        expect(taskResult.text).toBe("notes.txt has 2 lines");
        // Four requests of 10 input tokens each (the model server's default usage).
        expect(result.usage?.input_tokens).toBe(40);
      } finally {
        await agent.close();
      }
    });
  });
}

describe("openai subagents", () => {
  it("are cancelled with the parent: the child's command is stopped, run.cancelled comes once", async () => {
    const ws = workspace();
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "delegate" }, reply: { toolCalls: [{ id: "call_task", name: "task", arguments: { prompt: "SUBTASK: wait" } }] } },
        { match: { lastUserTextContains: "SUBTASK" }, reply: { toolCalls: [{ id: "call_sh", name: "bash", arguments: { command: "echo $$ > shell.pid; sleep 30 & echo $! > sleep.pid; echo started; wait" } }] } },
      ],
    };
    server = await startModelServer({ script });
    const approvals: string[] = [];
    const agent = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "state") }), {
      workspace: ws,
      defaults: {
        onApproval: async (request) => {
          approvals.push(`${request.kind} ${request.callId}`);
          return { decision: "allow" };
        },
      },
    });
    try {
      const stream = agent.stream("delegate the waiting");
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "tool.updated" && event.callId === "call_task/call_sh") stream.cancel("stop it");
      }
      expect(approvals).toEqual(["command call_task/call_sh"]);
      expect(of(events, "approval.requested").map((e) => e.callId)).toEqual(["call_task/call_sh"]);
      expect(of(events, "run.cancelled")).toHaveLength(1);
      expect(events.at(-1)!.type).toBe("run.cancelled");
      expect(of(events, "tool.completed").map((e) => [e.callId, e.status])).toEqual([
        ["call_task/call_sh", "cancelled"],
        ["call_task", "cancelled"],
      ]);
      for (const file of ["shell.pid", "sleep.pid"]) expect(running(Number(readFileSync(join(ws, file), "utf8")))).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it("nest to maxDepth: a subagent's own task and its calls name their parents", async () => {
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "delegate" }, reply: { toolCalls: [{ id: "t", name: "task", arguments: { prompt: "LEVEL1 pass it on" } }] } },
        { match: { lastUserTextContains: "LEVEL1" }, reply: { toolCalls: [{ id: "c", name: "task", arguments: { prompt: "LEVEL2 read the notes" } }] } },
        { match: { lastUserTextContains: "LEVEL2" }, reply: { toolCalls: [{ id: "r", name: "read", arguments: { path: "notes.txt" } }] } },
        { match: { toolResultFor: "r" }, reply: { text: "level two read it" } },
        { match: { toolResultFor: "c" }, reply: { text: "level one heard back" } },
        { match: { toolResultFor: "t" }, reply: { text: "all done" } },
      ],
    };
    server = await startModelServer({ script });
    const agent = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "state"), subagents: { maxDepth: 2 } }), { workspace: workspace() });
    try {
      const stream = agent.stream("delegate deeply");
      const events = await collect(stream);
      expect((await stream.result).text).toBe("all done");
      expect(of(events, "tool.started").map((e) => [e.callId, e.kind, e.parentCallId])).toEqual([
        ["t", "subagent", undefined],
        ["t/c", "subagent", "t"],
        ["t/c/r", "read", "t/c"],
      ]);
      const [, level1, level2] = generated(server);
      expect(level1!.tools).toContain("task");
      expect(level2!.tools).not.toContain("task");
    } finally {
      await agent.close();
    }
  });

  it("are bounded: past maxTasks a task call is a tool error the model reads; subagents: false offers no task", async () => {
    const script: ModelScript = {
      turns: [
        { match: { lastUserTextContains: "delegate" }, reply: { toolCalls: [{ id: "t1", name: "task", arguments: { prompt: "SUBTASK one" } }, { id: "t2", name: "task", arguments: { prompt: "SUBTASK two" } }] } },
        { match: { lastUserTextContains: "SUBTASK one" }, reply: { text: "one done" } },
        { match: { toolResultFor: "t2" }, reply: { text: "done" } },
        { match: { lastUserTextContains: "plain" }, reply: { text: "plain answer" } },
      ],
    };
    server = await startModelServer({ script });
    const bounded = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "state"), subagents: { maxTasks: 1 } }), { workspace: workspace() });
    try {
      await bounded.run("delegate twice");
      const last = generated(server).at(-1)!;
      const results = last.messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result") as { callId: string; text?: string }[];
      expect(results.map((r) => [r.callId, r.text?.slice(0, 40)])).toEqual([
        ["t1", "one done"],
        ["t2", "Not run: this turn already started 1 sub"],
      ]);
    } finally {
      await bounded.close();
    }
    const off = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(root, "state"), subagents: false }), { workspace: workspace() });
    try {
      await off.run("plain question");
      expect(generated(server).at(-1)!.tools).not.toContain("task");
    } finally {
      await off.close();
    }
  });
});
