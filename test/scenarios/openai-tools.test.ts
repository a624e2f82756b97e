/**
 * The openai() driver's built-in tools as a demanding host drives them through the scripted model
 * server: twenty calls in one answer, a repeated call id, empty and huge arguments, a directory
 * link made by a command earlier in the turn, commands that leave children behind or print without
 * end, reads out of range, and a cancel during a search whose pattern backtracks without end.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { createAgent, type AgentEvent, type ApprovalHandler } from "../../src/index.js";
import { openai, type OpenAIConfig } from "../../src/drivers/openai/index.js";
import { startModelServer, type ModelScript, type ModelServer } from "../../src/testing/model-server/index.js";
import { scratch } from "./helpers.js";

const tmp = scratch("openai-tools-scn-");

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: ModelScript): Promise<string> {
  server = await startModelServer({ script });
  return `${server.url}/v1`;
}

const driverFor = (api: "chat" | "responses", baseURL: string, extra: Partial<OpenAIConfig> = {}) =>
  openai({ baseURL, api, model: "scripted-model", stateDir: join(tmp.root, `state-${api}`), retryBaseDelayMs: 1, ...extra });

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const allow: ApprovalHandler = async () => ({ decision: "allow" });
const of = <T extends AgentEvent["type"]>(events: AgentEvent[], type: T) => events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
/** The tool results of the n-th model request (0-based; model listings left out). */
const toolResults = (n: number) =>
  server!.requests.filter((r) => r.dialect === "chat" || r.dialect === "responses")[n]!.messages.flatMap((m) => m.parts).filter((p): p is Extract<typeof p, { type: "tool_result" }> => p.type === "tool_result");

/** Whether `pid` is a running process (a zombie is not). */
function running(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !/^[ZX]/.test(state.slice(state.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

for (const api of ["chat", "responses"] as const) {
  describe(`openai tools under a demanding host (${api})`, () => {
    it("runs twenty reads of one answer and returns each result under its own call, in order", async () => {
      const ws = tmp.dir();
      for (let i = 0; i < 20; i++) writeFileSync(join(ws, `f${i}.txt`), `content of file ${i}\n`);
      const calls = Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, name: "read", arguments: { path: `f${i}.txt` } }));
      const baseURL = await serve({ turns: [{ reply: { toolCalls: calls } }, { reply: { text: "read them all" } }] });
      const agent = createAgent(driverFor(api, baseURL), { workspace: ws });
      const warnings: string[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning.name);
      process.on("warning", onWarning);
      try {
        const stream = agent.stream("read everything");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("read them all");
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings).not.toContain("MaxListenersExceededWarning");
        expect(of(events, "tool.completed").map((e) => e.status)).toEqual(Array(20).fill("completed"));
        const results = toolResults(1);
        expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.id));
        results.forEach((r, i) => expect(r.text).toContain(`content of file ${i}`));
      } finally {
        process.off("warning", onWarning);
        await agent.close();
      }
    });

    it("gives each call of an answer that repeats a call id its own id and its own result", async () => {
      const ws = tmp.dir();
      writeFileSync(join(ws, "a.txt"), "alpha\n");
      writeFileSync(join(ws, "b.txt"), "beta\n");
      const baseURL = await serve({
        turns: [
          { reply: { toolCalls: [{ id: "same", name: "read", arguments: { path: "a.txt" } }, { id: "same", name: "read", arguments: { path: "b.txt" } }] } },
          { reply: { text: "both" } },
        ],
      });
      const agent = createAgent(driverFor(api, baseURL), { workspace: ws });
      try {
        const stream = agent.stream("read both");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("both");
        const ids = of(events, "tool.started").map((e) => e.callId);
        expect(ids).toHaveLength(2);
        expect(new Set(ids).size).toBe(2);
        const results = toolResults(1);
        expect(results.map((r) => r.callId)).toEqual(ids);
        expect(results[0]!.text).toContain("alpha");
        expect(results[1]!.text).toContain("beta");
      } finally {
        await agent.close();
      }
    });

    it("answers empty arguments with the missing field named, and writes a multi-megabyte argument whole", async () => {
      const ws = tmp.dir();
      const big = "0123456789abcdef\n".repeat(200_000); // 3.4 MB
      const baseURL = await serve({
        turns: [
          { reply: { toolCalls: [{ id: "e1", name: "read", arguments: "" }] } },
          { reply: { toolCalls: [{ id: "w1", name: "write", arguments: { path: "big.txt", content: big } }] } },
          { reply: { text: "done" } },
        ],
      });
      const agent = createAgent(driverFor(api, baseURL), { workspace: ws, defaults: { onApproval: allow } });
      try {
        const stream = agent.stream("go");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("done");
        expect(of(events, "tool.completed").find((e) => e.callId === "e1")!.status).toBe("failed");
        expect(toolResults(1)[0]!.text).toMatch(/path: .*expected string/);
        expect(readFileSync(join(ws, "big.txt"), "utf8")).toBe(big);
        // Events stay bounded: a 3.4 MB argument is not copied whole into every event.
        const completed = of(events, "tool.completed").find((e) => e.callId === "w1")!;
        expect(JSON.stringify(completed).length).toBeLessThan(1024 * 1024);
      } finally {
        await agent.close();
      }
    });

    it("refuses a write through a directory link to outside that a command made earlier in the same turn", async () => {
      const ws = tmp.dir();
      const outside = tmp.dir();
      const baseURL = await serve({
        turns: [
          { reply: { toolCalls: [{ id: "b1", name: "bash", arguments: { command: `ln -s ${JSON.stringify(outside)} linked` } }] } },
          { reply: { toolCalls: [{ id: "w1", name: "write", arguments: { path: "linked/escaped.txt", content: "out" } }, { id: "e1", name: "edit", arguments: { path: "linked/x.txt", old_string: "a", new_string: "b" } }] } },
          { reply: { text: "tried" } },
        ],
      });
      writeFileSync(join(outside, "x.txt"), "a\n");
      const agent = createAgent(driverFor(api, baseURL), { workspace: ws, defaults: { onApproval: allow } });
      try {
        const stream = agent.stream("escape");
        const events = await collect(stream);
        await stream.result;
        expect(of(events, "tool.completed").map((e) => [e.callId, e.status])).toEqual([["b1", "completed"], ["w1", "failed"], ["e1", "failed"]]);
        const results = toolResults(2).filter((r) => r.callId !== "b1");
        expect(results).toHaveLength(2);
        for (const r of results) expect(r.text).toContain("outside the workspace");
        expect(existsSync(join(outside, "escaped.txt"))).toBe(false);
        expect(readFileSync(join(outside, "x.txt"), "utf8")).toBe("a\n");
      } finally {
        await agent.close();
      }
    });

    it("leaves no process behind a command that started a background child and exited", async () => {
      const ws = tmp.dir();
      const baseURL = await serve({
        turns: [
          {
            reply: {
              toolCalls: [
                { id: "b1", name: "bash", arguments: { command: "nohup sleep 300 >/dev/null 2>&1 & echo bg=$!; ( sleep 301 >/dev/null 2>&1 & echo sub=$! ); setsid sleep 302 >/dev/null 2>&1 </dev/null & echo own=$!" } },
              ],
            },
          },
          { reply: { text: "started" } },
        ],
      });
      const agent = createAgent(driverFor(api, baseURL), { workspace: ws, defaults: { onApproval: allow } });
      try {
        await agent.run("start a server");
        const text = toolResults(1)[0]!.text ?? "";
        // `own` left the command's process group (a session of its own): it is stopped all the same.
        const pids = [...text.matchAll(/(?:bg|sub|own)=(\d+)/g)].map((m) => Number(m[1]));
        expect(pids).toHaveLength(3);
        for (const pid of pids) expect(running(pid)).toBe(false);
      } finally {
        await agent.close();
      }
    });

    it("bounds a command that prints without end: killed at its timeout, start and end kept, live output capped", async () => {
      const ws = tmp.dir();
      const baseURL = await serve({
        turns: [{ reply: { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "yes line", timeout: 1500 } }] } }, { reply: { text: "stopped" } }],
      });
      const agent = createAgent(driverFor(api, baseURL), { workspace: ws, defaults: { onApproval: allow } });
      try {
        const stream = agent.stream("flood");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("stopped");
        const result = toolResults(1)[0]!;
        expect(of(events, "tool.completed")[0]!.status).toBe("failed");
        expect(result.text).toContain("timed out after 1500 ms");
        expect(result.text).toContain("bytes of output omitted");
        expect(result.text!.length).toBeLessThan(40 * 1024);
        const live = of(events, "tool.updated").reduce((n, e) => n + (e.output?.length ?? 0), 0);
        expect(live).toBeLessThan(1.1 * 1024 * 1024);
      } finally {
        await agent.close();
      }
    });

    it("reads ranges out of bounds with errors the model can act on, and the last line of a large file", async () => {
      const ws = tmp.dir();
      writeFileSync(join(ws, "big.txt"), Array.from({ length: 100_000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
      const baseURL = await serve({
        turns: [
          {
            reply: {
              toolCalls: [
                { id: "past", name: "read", arguments: { path: "big.txt", offset: 100_001 } },
                { id: "zero", name: "read", arguments: { path: "big.txt", offset: 0 } },
                { id: "neg", name: "read", arguments: { path: "big.txt", limit: -5 } },
                { id: "last", name: "read", arguments: { path: "big.txt", offset: 100_000, limit: 10 } },
                { id: "huge", name: "read", arguments: { path: "big.txt", offset: 1, limit: 1_000_000_000 } },
              ],
            },
          },
          { reply: { text: "ok" } },
        ],
      });
      const agent = createAgent(driverFor(api, baseURL), { workspace: ws });
      try {
        const stream = agent.stream("read");
        const events = await collect(stream);
        await stream.result;
        const status = Object.fromEntries(of(events, "tool.completed").map((e) => [e.callId, e.status]));
        expect(status).toEqual({ past: "failed", zero: "failed", neg: "failed", last: "completed", huge: "completed" });
        const byId = Object.fromEntries(toolResults(1).map((r) => [r.callId, r]));
        expect(byId.past!.text).toContain("past the end");
        expect(byId.zero!.text).toContain("offset");
        expect(byId.neg!.text).toContain("limit");
        expect(byId.last!.text).toBe("100000\tline 100000");
        expect(byId.huge!.text!.length).toBeLessThan(300 * 1024);
        expect(byId.huge!.text).toContain("offset=");
      } finally {
        await agent.close();
      }
    });
  });
}

describe("openai edit of a CRLF file", () => {
  it("writes the lines a one-line replacement adds with CRLF, as the file's other lines", async () => {
    const ws = tmp.dir();
    writeFileSync(join(ws, "win.txt"), "one\r\ntwo\r\n");
    const baseURL = await serve({
      turns: [{ reply: { toolCalls: [{ id: "e1", name: "edit", arguments: { path: "win.txt", old_string: "one", new_string: "one\nextra" } }] } }, { reply: { text: "edited" } }],
    });
    const agent = createAgent(driverFor("chat", baseURL), { workspace: ws, defaults: { onApproval: allow } });
    try {
      await agent.run("add a line");
      expect(readFileSync(join(ws, "win.txt"), "utf8")).toBe("one\r\nextra\r\ntwo\r\n");
    } finally {
      await agent.close();
    }
  });
});

describe("openai tools on a FIFO in the workspace", () => {
  for (const ripgrep of [true, false]) {
    it(`refuse it at once instead of waiting for a writer (grep ${ripgrep ? "through ripgrep when found" : "in JS"})`, async () => {
      const ws = tmp.dir();
      execFileSync("mkfifo", [join(ws, "pipe")]);
      const calls = [
        { id: "r1", name: "read", arguments: { path: "pipe" } },
        { id: "g1", name: "grep", arguments: { pattern: "x", path: "pipe" } },
        { id: "e1", name: "edit", arguments: { path: "pipe", old_string: "a", new_string: "b" } },
        { id: "w1", name: "write", arguments: { path: "pipe", content: "data" } },
      ];
      const baseURL = await serve({ turns: [{ reply: { toolCalls: calls } }, { reply: { text: "refused" } }] });
      const agent = createAgent(driverFor("chat", baseURL, { tools: { grep: { ripgrep } } }), { workspace: ws, defaults: { onApproval: allow } });
      try {
        const stream = agent.stream("read the pipe");
        const events = await collect(stream);
        expect((await stream.result).text).toBe("refused");
        expect(of(events, "tool.completed").map((e) => [e.callId, e.status])).toEqual(calls.map((c) => [c.id, "failed"]));
        for (const r of toolResults(1)) expect(r.text).toContain("not a regular file");
        expect(statSync(join(ws, "pipe")).isFIFO()).toBe(true);
      } finally {
        await agent.close();
      }
    }, 10_000);
  }
});

describe("openai grep without ripgrep", () => {
  it("is cancelled at once during a search whose pattern backtracks without end, and the host stays responsive", async () => {
    const ws = tmp.dir();
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src", "data.txt"), `${"a".repeat(40)}!\n`.repeat(5));
    const baseURL = await serve({ turns: [{ reply: { toolCalls: [{ id: "g1", name: "grep", arguments: { pattern: "^(a+)+$" } }] } }, { reply: { text: "never" } }] });
    const agent = createAgent(driverFor("chat", baseURL, { tools: { grep: { ripgrep: false } } }), { workspace: ws });
    try {
      const stream = agent.stream("search");
      const events: AgentEvent[] = [];
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 20);
      try {
        for await (const event of stream) {
          events.push(event);
          if (event.type === "tool.started") setTimeout(() => stream.cancel("enough"), 200);
        }
      } finally {
        clearInterval(ticker);
      }
      expect(events.at(-1)!.type).toBe("run.cancelled");
      await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
      // The event loop kept turning while the search ran: timers fired.
      expect(ticks).toBeGreaterThan(3);
    } finally {
      await agent.close();
    }
  }, 20_000);
});

describe("openai subagent under a host that stops the turn", () => {
  it("ends the parent's turn too when the host denies a subagent's call with interrupt", async () => {
    const ws = tmp.dir();
    const baseURL = await serve({
      turns: [
        { match: { lastUserTextContains: "delegate" }, reply: { toolCalls: [{ id: "call_task", name: "task", arguments: { prompt: "SUBTASK: remove the build folder" } }] } },
        { match: { lastUserTextContains: "SUBTASK" }, reply: { toolCalls: [{ id: "call_rm", name: "bash", arguments: { command: "rm -rf build" } }] } },
        { match: { toolResultFor: "call_rm" }, reply: { text: "the subagent goes on" } },
        { match: { toolResultFor: "call_task" }, reply: { text: "the parent goes on" } },
      ],
    });
    const deny: ApprovalHandler = async () => ({ decision: "deny", message: "stop everything", interrupt: true });
    const agent = createAgent(driverFor("chat", baseURL), { workspace: ws, defaults: { onApproval: deny } });
    try {
      const stream = agent.stream("delegate the cleanup");
      const events = await collect(stream);
      await stream.result.catch(() => undefined);
      const generated = server!.requests.filter((r) => r.dialect === "chat");
      // The parent's request and the subagent's: nobody is asked to go on after the stop.
      expect(generated).toHaveLength(2);
      expect(of(events, "tool.completed").map((e) => [e.callId, e.status])).toEqual([
        ["call_task/call_rm", "declined"],
        ["call_task", "failed"],
      ]);
    } finally {
      await agent.close();
    }
  });
});
