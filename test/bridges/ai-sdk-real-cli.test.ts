/**
 * The bridges on a real Codex CLI against the scripted model server: the AI SDK's own chat core
 * (`AbstractChat` over `DefaultChatTransport`, what `useChat` runs) renders a run with reasoning,
 * an escalated command whose approval it answers the AI SDK way plus a POST to the answer
 * endpoint, the command's output and the final text; and an `eventsource` client reads a run
 * through `toSSE` over node:http to its terminal.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { AbstractChat, DefaultChatTransport, type ChatState, type ChatStatus, type UIMessage } from "ai";
import { EventSource } from "eventsource";
import { expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import type { RunStream } from "../../src/agent/run-stream.js";
import { codex, type CodexDriver } from "../../src/drivers/codex/index.js";
import { EVENT_TYPES, type AgentEvent } from "../../src/events/public.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../src/testing/real-cli/index.js";
import { writeUIMessageStream, type AgentUIDataTypes, type AgentUIMessageMetadata } from "../../src/bridges/ai-sdk/index.js";
import { sseActionsNodeHandler, writeSSE } from "../../src/bridges/sse/index.js";
import { describeRealCli } from "../real-cli/helpers.js";
import { deferred, startServer } from "./sse-helpers.js";

type AgentUIMessage = UIMessage<AgentUIMessageMetadata, AgentUIDataTypes>;

function driverFor(ctx: RealCliContext): CodexDriver {
  return codex({
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "scripted_driver", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  });
}

class PlainChatState implements ChatState<AgentUIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: AgentUIMessage[] = [];
  constructor(private readonly onChange: (messages: AgentUIMessage[]) => void) {}
  pushMessage = (message: AgentUIMessage): void => {
    this.messages = [...this.messages, message];
    this.onChange(this.messages);
  };
  popMessage = (): void => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: AgentUIMessage): void => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
    this.onChange(this.messages);
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class HeadlessChat extends AbstractChat<AgentUIMessage> {
  constructor(api: string, onChange: (chat: HeadlessChat, messages: AgentUIMessage[]) => void) {
    let self: HeadlessChat | undefined;
    super({ transport: new DefaultChatTransport<AgentUIMessage>({ api }), state: new PlainChatState((messages) => self && onChange(self, messages)) });
    self = this;
  }
}

describeRealCli("codex", () => {
  it("useChat's core renders a Codex run: reasoning, the command through the AI SDK approval flow, its output, the text", async () => {
    const script: RealCliScript = {
      turns: [
        {
          match: { lastUserTextContains: "Create" },
          reply: {
            reasoning: "The user wants a file.",
            toolCalls: [{ id: "call_touch", name: "exec_command", arguments: { cmd: "touch made.txt", sandbox_permissions: "require_escalated", justification: "The test asks for it" } }],
          },
        },
        { match: { toolResultFor: "call_touch" }, reply: { text: "Created made.txt." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace, defaults: { policy: { sandbox: "workspace-write", approval: "on-request" }, onApproval: "stream" } });
      const runs = new Map<string, RunStream>();
      const answers = sseActionsNodeHandler({ resolve: ({ runId }) => (runId === undefined ? undefined : runs.get(runId)) });
      const server = await startServer(async (req, res) => {
        if (req.url === "/answers") return answers(req, res);
        let body = "";
        for await (const chunk of req) body += String(chunk);
        const last = (JSON.parse(body) as { messages: AgentUIMessage[] }).messages.at(-1)!;
        const stream = agent.stream(last.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(""));
        runs.set(stream.runId, stream);
        await writeUIMessageStream(res, stream);
      });
      const posted: Promise<Response>[] = [];
      try {
        const chat = new HeadlessChat(`${server.url}/chat`, (self, messages) => {
          const message = messages.at(-1);
          for (const part of message?.role === "assistant" ? message.parts : []) {
            if (part.type !== "dynamic-tool" || part.state !== "approval-requested" || posted.length > 0) continue;
            void self.addToolApprovalResponse({ id: part.approval.id, approved: true });
            const body = JSON.stringify({ runId: message!.metadata?.runId, requestId: part.approval.id, approved: true });
            posted.push(fetch(`${server.url}/answers`, { method: "POST", headers: { "content-type": "application/json" }, body }));
          }
        });
        await chat.sendMessage({ text: "Create the file" });
        expect(chat.error).toBeUndefined();
        expect((await Promise.all(posted)).map((r) => r.status)).toEqual([200]);
        const assistant = chat.messages[1]!;
        expect(assistant.metadata).toMatchObject({ driver: "codex", status: "completed" });
        const types = assistant.parts.map((p) => p.type);
        expect(types).toContain("reasoning");
        expect(assistant.parts.find((p) => p.type === "reasoning")).toMatchObject({ text: expect.stringContaining("The user wants a file."), state: "done" });
        const tool = assistant.parts.find((p) => p.type === "dynamic-tool");
        expect(tool).toMatchObject({ toolCallId: "call_touch", state: "output-available", approval: { id: expect.any(String) }, toolMetadata: { kind: "command", command: expect.stringContaining("touch made.txt") }, output: { status: "completed" } });
        expect(assistant.parts.find((p) => p.type === "data-approval")).toMatchObject({ data: { status: "resolved", by: "stream", decision: { decision: "allow" }, callId: "call_touch" } });
        const texts = assistant.parts.filter((p) => p.type === "text").map((p) => p.text);
        expect(texts.at(-1)).toBe("Created made.txt.");
        expect(types.indexOf("reasoning")).toBeLessThan(types.indexOf("dynamic-tool"));
        expect(existsSync(join(ctx.workspace, "made.txt"))).toBe(true);
      } finally {
        await server.close();
        await agent.close();
      }
    });
  });

  it("an EventSource reads a Codex run through toSSE over node:http to its terminal", async () => {
    const script: RealCliScript = { turns: [{ match: { lastUserTextContains: "Greet" }, reply: { text: "Hello\nfrom Codex." } }] };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      const server = await startServer((req, res) => writeSSE(res, agent.stream("Greet me"), { request: req }));
      const source = new EventSource(`${server.url}/events`);
      try {
        const received: { id: string; event: AgentEvent }[] = [];
        const done = deferred();
        for (const type of EVENT_TYPES) {
          source.addEventListener(type, (message) => {
            received.push({ id: message.lastEventId, event: JSON.parse(message.data) as AgentEvent });
            if (type === "run.completed" || type === "run.failed" || type === "run.cancelled") {
              source.close();
              done.resolve();
            }
          });
        }
        await done.promise;
        expect(received.map((r) => r.id)).toEqual(received.map((_, i) => String(i)));
        expect(received[0]!.event).toMatchObject({ type: "run.started", driver: "codex" });
        expect(received.at(-1)!.event).toMatchObject({ type: "run.completed", result: { text: "Hello\nfrom Codex." } });
      } finally {
        source.close();
        await server.close();
        await agent.close();
      }
    });
  });
});
