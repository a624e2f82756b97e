/**
 * The OpenAI-compatible driver running its built-in workspace tools against the scripted model
 * server: a read → edit → bash turn changing a real file (diff and exit code events, approvals
 * only for the edit and the command), a denial the model reads, a cancel in the middle of a
 * command (its process group gone, run.cancelled once), "allow always", and the policy's say
 * over what is asked and offered.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { createAgent, type AgentEvent, type ApprovalHandler } from "../../../src/index.js";
import { openai } from "../../../src/drivers/openai/index.js";
import { startModelServer, type ModelScript, type ModelServer } from "../../../src/testing/model-server/index.js";

const root = mkdtempSync(join(tmpdir(), "openai-tools-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: ModelScript): Promise<string> {
  server = await startModelServer({ script });
  return `${server.url}/v1`;
}

let workspaces = 0;
function workspace(files: Record<string, string> = {}): string {
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const allow: ApprovalHandler = async () => ({ decision: "allow" });
const of = <T extends AgentEvent["type"]>(events: AgentEvent[], type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
const toolResult = (requestIndex: number, callId: string) =>
  server!.requests[requestIndex]!.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result" && p.callId === callId) as { text?: string } | undefined;

/** Whether `pid` is a running process (a zombie waiting for an init that does not reap is not). */
function running(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !/^[ZX]/.test(state.slice(state.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

for (const api of ["chat", "responses"] as const) {
  const driver = (baseURL: string) => openai({ baseURL, api, model: "scripted-model", stateDir: join(root, `state-${api}`) });

  describe(`openai driver built-in tools (${api})`, () => {
    it("reads, edits and runs a command in one turn: a real file changes, with diff and exit-code events", async () => {
      const ws = workspace({ "app.txt": "hello world\n" });
      const baseURL = await serve({
        turns: [
          { reply: { toolCalls: [{ id: "r1", name: "read", arguments: { path: "app.txt" } }] } },
          { match: { toolResultFor: "r1" }, reply: { toolCalls: [{ id: "e1", name: "edit", arguments: { path: "app.txt", old_string: "world", new_string: "there" } }] } },
          { match: { toolResultFor: "e1" }, reply: { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "cat app.txt; exit 3" } }] } },
          { match: { toolResultFor: "b1" }, reply: { text: "done" } },
        ],
      });
      const agent = createAgent(driver(baseURL), { workspace: ws, defaults: { onApproval: allow } });
      try {
        const stream = agent.stream("fix the greeting");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("done");
        expect(readFileSync(join(ws, "app.txt"), "utf8")).toBe("hello there\n");
        const started = of(events, "tool.started");
        expect(started.map((e) => [e.name, e.kind])).toEqual([["read", "read"], ["edit", "file_change"], ["bash", "command"]]);
        expect(started[2]!.command).toBe("cat app.txt; exit 3");
        const done = of(events, "tool.completed");
        expect(done.map((e) => e.status)).toEqual(["completed", "completed", "failed"]);
        expect(done[1]!.files?.[0]).toMatchObject({ path: "app.txt", change: "modified" });
        expect(done[1]!.files?.[0]?.diff).toContain("-hello world\n+hello there");
        expect(done[2]!.exitCode).toBe(3);
        expect(done[2]!.output).toContain("hello there");
        expect(of(events, "approval.requested").map((e) => e.kind)).toEqual(["file_change", "command"]);
        expect(toolResult(1, "r1")?.text).toContain("hello world");
        expect(toolResult(3, "b1")?.text).toContain("hello there");
      } finally {
        await agent.close();
      }
    });

    it("returns a denial to the model, with the host's message, and leaves the file alone", async () => {
      const ws = workspace();
      const baseURL = await serve({
        turns: [
          { reply: { toolCalls: [{ id: "w1", name: "write", arguments: { path: "new.txt", content: "data" } }] } },
          { match: { toolResultFor: "w1" }, reply: { text: "understood" } },
        ],
      });
      const agent = createAgent(driver(baseURL), { workspace: ws, defaults: { onApproval: async () => ({ decision: "deny", message: "not in this repo" }) } });
      try {
        const stream = agent.stream("write a file");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("understood");
        expect(existsSync(join(ws, "new.txt"))).toBe(false);
        expect(of(events, "tool.completed")[0]).toMatchObject({ callId: "w1", status: "declined" });
        expect(toolResult(1, "w1")?.text).toMatch(/denied.*not in this repo/);
      } finally {
        await agent.close();
      }
    });

    it("cancels in the middle of a command: its process group is gone and run.cancelled comes once", async () => {
      const ws = workspace();
      const baseURL = await serve({ turns: [{ reply: { toolCalls: [{ id: "s1", name: "bash", arguments: { command: "echo $$ > shell.pid; sleep 30 & echo $! > sleep.pid; echo started; wait; echo never" } }] } }] });
      const agent = createAgent(driver(baseURL), { workspace: ws, defaults: { onApproval: allow } });
      try {
        const stream = agent.stream("wait a while");
        const events: AgentEvent[] = [];
        for await (const event of stream) {
          events.push(event);
          if (event.type === "tool.updated") stream.cancel("stop it");
        }
        expect(of(events, "run.cancelled")).toHaveLength(1);
        expect(events.at(-1)!.type).toBe("run.cancelled");
        expect(of(events, "tool.completed")).toEqual([expect.objectContaining({ callId: "s1", status: "cancelled" })]);
        for (const file of ["shell.pid", "sleep.pid"]) expect(running(Number(readFileSync(join(ws, file), "utf8")))).toBe(false);
      } finally {
        await agent.close();
      }
    });

    it("asks once for a kind answered with allow-always, and never under approval: never", async () => {
      const ws = workspace();
      const script: ModelScript = {
        turns: [
          { reply: { toolCalls: [{ id: "a1", name: "bash", arguments: { command: "echo one" } }] } },
          { match: { toolResultFor: "a1" }, reply: { toolCalls: [{ id: "a2", name: "bash", arguments: { command: "echo two" } }] } },
          { match: { toolResultFor: "a2" }, reply: { text: "ran both" } },
        ],
      };
      const baseURL = await serve(script);
      const always = createAgent(driver(baseURL), { workspace: ws, defaults: { onApproval: async () => ({ optionId: "allow_always" }) as never } });
      try {
        const events = await collect(always.stream("run two commands"));
        expect(of(events, "approval.requested")).toHaveLength(1);
        expect(of(events, "tool.completed").map((e) => e.output?.trim())).toEqual(["one", "two"]);
      } finally {
        await always.close();
      }
      await server!.close();
      const again = await serve(script);
      const never = createAgent(driver(again), { workspace: ws, defaults: { policy: { approval: "never" } } });
      try {
        const events = await collect(never.stream("run two commands"));
        expect(of(events, "approval.requested")).toHaveLength(0);
        expect(of(events, "tool.completed").map((e) => e.status)).toEqual(["completed", "completed"]);
      } finally {
        await never.close();
      }
    });

    it("offers only the reading tools in a read-only sandbox", async () => {
      const baseURL = await serve({ turns: [{ reply: { text: "looked" } }] });
      const agent = createAgent(driver(baseURL), { workspace: workspace(), defaults: { policy: { sandbox: "read-only" } } });
      try {
        await agent.run("look around");
        const tools = server!.requests[0]!.tools;
        expect(tools).toContain("read");
        expect(tools).not.toContain("write");
        expect(tools).not.toContain("edit");
        expect(tools).not.toContain("bash");
      } finally {
        await agent.close();
      }
    });
  });
}
