/**
 * The AI SDK UI message stream bridge read by the AI SDK's own client: `AbstractChat` (the core of
 * `useChat`, with a plain in-memory state instead of React's) over `DefaultChatTransport` against a
 * real node:http server, and `readUIMessageStream`. A run of the fake driver with reasoning, text,
 * a tool call and its approval renders as the parts `useChat` shows; the approval is answered the
 * AI SDK way (`addToolApprovalResponse`) plus a POST to the bridge's answer endpoint.
 */
import { AbstractChat, DefaultChatTransport, readUIMessageStream, type ChatState, type ChatStatus, type UIMessage, type UIMessageChunk } from "ai";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { createAgent, createSession, type Agent, type RunStream } from "../../src/index.js";
import type { AgentEvent } from "../../src/events/public.js";
import { fakeDriver, type FakeRunScript } from "../../src/testing/index.js";
import { writeUIMessageStream, toUIMessageStream, type AgentUIDataTypes, type AgentUIMessageChunk, type AgentUIMessageMetadata } from "../../src/bridges/ai-sdk/index.js";
import { sseActionsNodeHandler } from "../../src/bridges/sse/index.js";
import { startServer, type TestServer } from "./sse-helpers.js";

type AgentUIMessage = UIMessage<AgentUIMessageMetadata, AgentUIDataTypes>;

const APPROVAL = {
  requestId: "req-1",
  kind: "command" as const,
  callId: "call-1",
  summary: "Run `ls`",
  options: [
    { id: "allow", label: "Allow", kind: "allow_once" as const },
    { id: "deny", label: "Deny", kind: "deny" as const },
  ],
};

function script(prompt: string): FakeRunScript {
  const denied = prompt.includes("deny");
  return {
    steps: [
      { markDelivered: true },
      { emit: { type: "reasoning.delta", itemId: "r1", text: "I should " } },
      { emit: { type: "reasoning.delta", itemId: "r1", text: "list files." } },
      { emit: { type: "reasoning.completed", itemId: "r1", text: "I should list files." } },
      { emit: { type: "plan.updated", entries: [{ text: "List files", status: "in_progress" }] } },
      { emit: { type: "message.delta", itemId: "m1", text: "Listing" } },
      { emit: { type: "message.completed", itemId: "m1", text: "Listing…" } },
      { emit: { type: "tool.started", callId: "call-1", kind: "command", name: "Bash", title: "ls -a", command: "ls -a", rawInput: { command: "ls -a" } } },
      { approve: APPROVAL },
      ...(denied
        ? [{ emit: { type: "tool.completed", callId: "call-1", status: "declined" } } as const]
        : ([
            { emit: { type: "tool.updated", callId: "call-1", output: "a.txt\n" } },
            { emit: { type: "tool.completed", callId: "call-1", status: "completed", output: "a.txt\nb.txt\n", exitCode: 0 } },
          ] as const)),
      { emit: { type: "usage.observed", usage: { input_tokens: 10, output_tokens: 5 } } },
      { emit: { type: "message.delta", itemId: "m2", text: denied ? "Not allowed." : "Two files." } },
      { emit: { type: "message.completed", itemId: "m2", text: denied ? "Not allowed." : "Two files." } },
    ],
    text: denied ? "Not allowed." : "Two files.",
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

/** `useChat`'s state, kept in plain arrays; `onChange` sees every update. */
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

let agent: Agent | undefined;
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  await agent?.close();
  server = undefined;
  agent = undefined;
});

/** A chat route answering with the run of the last user message, and the answer endpoint for its approvals. */
async function chatServer(): Promise<TestServer> {
  agent = createAgent(fakeDriver({ script }), { defaults: { onApproval: "stream" } });
  const runs = new Map<string, RunStream>();
  const answer = sseActionsNodeHandler({ resolve: ({ runId }) => (runId === undefined ? undefined : runs.get(runId)) });
  return startServer(async (req, res) => {
    if (req.url === "/actions") return answer(req, res);
    let body = "";
    for await (const chunk of req) body += String(chunk);
    const { messages } = JSON.parse(body) as { messages: AgentUIMessage[] };
    const last = messages.at(-1)!;
    const text = last.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    const stream = agent!.stream(text);
    runs.set(stream.runId, stream);
    await writeUIMessageStream(res, stream);
  });
}

/** Answers each approval the AI SDK way and over the answer endpoint, once. */
function approver(url: string, approved: boolean) {
  const answered = new Set<string>();
  const posts: Promise<Response>[] = [];
  const onChange = (chat: HeadlessChat, messages: AgentUIMessage[]): void => {
    const message = messages.at(-1);
    if (message?.role !== "assistant") return;
    for (const part of message.parts) {
      if (part.type !== "dynamic-tool" || part.state !== "approval-requested" || answered.has(part.approval.id)) continue;
      answered.add(part.approval.id);
      void chat.addToolApprovalResponse({ id: part.approval.id, approved, ...(approved ? {} : { reason: "not now" }) });
      const body = { runId: message.metadata?.runId, requestId: part.approval.id, approved, ...(approved ? {} : { reason: "not now" }) };
      posts.push(fetch(`${url}/actions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
    }
  };
  return { onChange, answered, posts };
}

describe("toUIMessageStream read by the AI SDK", () => {
  it("useChat's core renders text, reasoning, the tool call through its approval flow, and the data parts", async () => {
    server = await chatServer();
    const approvals = approver(server.url, true);
    const chat = new HeadlessChat(`${server.url}/chat`, approvals.onChange);
    await chat.sendMessage({ text: "list the files" });
    expect(chat.error).toBeUndefined();
    expect(chat.status).toBe("ready");
    expect((await Promise.all(approvals.posts)).map((r) => r.status)).toEqual([200]);

    const [user, assistant] = chat.messages;
    expect(user).toMatchObject({ role: "user", parts: [{ type: "text", text: "list the files" }] });
    expect(assistant!.role).toBe("assistant");
    expect(assistant!.metadata).toMatchObject({ runId: assistant!.id, driver: "fake", status: "completed", usage: { input_tokens: 10, output_tokens: 5 } });
    const parts = assistant!.parts;
    expect(parts.map((p) => p.type)).toEqual(["step-start", "reasoning", "data-plan", "text", "dynamic-tool", "data-approval", "data-notice", "data-usage", "text"]);
    expect(parts[1]).toMatchObject({ type: "reasoning", text: "I should list files.", state: "done" });
    expect(parts[2]).toMatchObject({ type: "data-plan", data: { entries: [{ text: "List files", status: "in_progress" }] } });
    expect(parts[3]).toMatchObject({ type: "text", text: "Listing…", state: "done" });
    expect(parts[4]).toMatchObject({
      type: "dynamic-tool",
      toolName: "Bash",
      toolCallId: "call-1",
      title: "ls -a",
      state: "output-available",
      input: { command: "ls -a" },
      output: { status: "completed", output: "a.txt\nb.txt\n", exitCode: 0 },
      approval: { id: "req-1" },
      toolMetadata: { kind: "command", command: "ls -a" },
    });
    expect(parts[4]).not.toHaveProperty("preliminary", true);
    expect(parts[5]).toMatchObject({ type: "data-approval", id: "req-1", data: { status: "resolved", by: "stream", decision: { decision: "allow" }, summary: "Run `ls`" } });
    expect(parts[8]).toMatchObject({ type: "text", text: "Two files.", state: "done" });
  });

  it("a denied approval leaves the tool part output-denied, and the deny's reason reaches the run", async () => {
    server = await chatServer();
    const approvals = approver(server.url, false);
    const chat = new HeadlessChat(`${server.url}/chat`, approvals.onChange);
    await chat.sendMessage({ text: "please deny this" });
    expect(approvals.answered.size).toBe(1);
    const tool = chat.messages[1]!.parts.find((p) => p.type === "dynamic-tool");
    expect(tool).toMatchObject({ toolCallId: "call-1", state: "output-denied" });
    const approval = chat.messages[1]!.parts.find((p) => p.type === "data-approval");
    expect(approval).toMatchObject({ data: { status: "resolved", decision: { decision: "deny", message: "not now" } } });
  });

  it("a failed run is the AI SDK's error; a cancelled one its abort", async () => {
    agent = createAgent(fakeDriver({ script: { steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "par" } }, { fail: { code: "provider_error", message: "the model went away" } }] } }));
    const errors: Error[] = [];
    let last: AgentUIMessage | undefined;
    for await (const message of readUIMessageStream<AgentUIMessage>({ stream: toUIMessageStream(agent.stream("x")) as ReadableStream<UIMessageChunk>, onError: (e) => errors.push(e as Error) })) last = message;
    expect(errors.map((e) => e.message)).toEqual(["the model went away"]);
    expect(last?.metadata).toMatchObject({ status: "failed", errorCode: "provider_error" });
    expect(last?.parts).toEqual([{ type: "step-start" }, expect.objectContaining({ type: "text", text: "par", state: "done" })]);

    const cancelling = createAgent(fakeDriver({ script: { steps: [{ markDelivered: true }, { emit: { type: "message.delta", itemId: "m", text: "a" } }, { waitForAbort: true }] } }));
    try {
      const stream = cancelling.stream("x");
      const chunks: AgentUIMessageChunk[] = [];
      for await (const chunk of toUIMessageStream(stream)) {
        chunks.push(chunk);
        if (chunk.type === "text-delta") stream.cancel("stop");
      }
      expect(chunks.at(-1)).toEqual({ type: "abort", reason: "stop" });
      expect(chunks.map((c) => c.type)).not.toContain("finish");
    } finally {
      await cancelling.close();
    }
  });

  it("over a session's log: the message is the first run after `from`, session notices and earlier runs skipped", async () => {
    agent = createAgent(fakeDriver({ script: (prompt) => ({ steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "m", text: `echo ${prompt}` } }], text: `echo ${prompt}` }) }));
    const session = await createSession(agent);
    try {
      await session.submit("one");
      for await (const entry of session.events()) if (entry.event.type === "run.completed") break;
      const from = session.status().lastSeq;
      await session.submit("two");
      let last: AgentUIMessage | undefined;
      for await (const message of readUIMessageStream<AgentUIMessage>({ stream: toUIMessageStream(session, { from }) as ReadableStream<UIMessageChunk> })) last = message;
      expect(last?.parts.filter((p) => p.type === "text").map((p) => p.text)).toEqual(["echo two"]);
      expect(last?.metadata).toMatchObject({ status: "completed", driver: "fake" });
    } finally {
      await session.close();
    }
  });

  it("an approval asked before its call started gets a part the call then fills in, still asking; questions are data parts", async () => {
    const base = { runId: "run_1", at: 1 };
    const events = [
      { ...base, seq: 0, type: "run.started", driver: "claude", schemaVersion: 1 },
      { ...base, seq: 1, type: "approval.requested", requestId: "perm-1", kind: "command", callId: "toolu_1", summary: "Bash: ls", options: [{ id: "allow", label: "Allow", kind: "allow_once" }] },
      { ...base, seq: 2, type: "tool.started", callId: "toolu_1", kind: "command", name: "Bash", title: "ls", command: "ls" },
      { ...base, seq: 3, type: "approval.resolved", requestId: "perm-1", decision: { decision: "allow" }, by: "handler" },
      { ...base, seq: 4, type: "tool.completed", callId: "toolu_1", status: "failed", output: "ls: denied", exitCode: 2 },
      { ...base, seq: 5, type: "question.requested", requestId: "q-1", questions: [{ id: "db", question: "Which?" }] },
      { ...base, seq: 6, type: "question.resolved", requestId: "q-1", answered: false, by: "timeout" },
      { ...base, seq: 7, type: "run.completed", result: { runId: "run_1", status: "completed", text: "", durationMs: 3 } },
    ] as AgentEvent[];
    const snapshots: AgentUIMessage[] = [];
    for await (const message of readUIMessageStream<AgentUIMessage>({ stream: toUIMessageStream(events) as ReadableStream<UIMessageChunk> })) snapshots.push(structuredClone(message));
    const toolStates = snapshots.map((m) => m.parts.find((p) => p.type === "dynamic-tool")).map((p) => (p ? `${p.toolName}:${p.state}` : "-"));
    // Asked before the call: a part named by the request's kind; filled in by tool.started, still asking.
    expect(toolStates).toContain("command:approval-requested");
    expect(toolStates).toContain("Bash:approval-requested");
    expect(toolStates.indexOf("command:approval-requested")).toBeLessThan(toolStates.indexOf("Bash:approval-requested"));
    const last = snapshots.at(-1)!;
    expect(last.parts.find((p) => p.type === "dynamic-tool")).toMatchObject({ toolName: "Bash", state: "output-error", errorText: "ls: denied (exit code 2)" });
    expect(last.parts.find((p) => p.type === "data-question")).toMatchObject({ id: "q-1", data: { status: "declined", by: "timeout", questions: [{ id: "db" }] } });
    expect(last.parts.filter((p) => p.type === "dynamic-tool")).toHaveLength(1);
  });

  it("its chunk type is the AI SDK's UIMessageChunk for the bridge's metadata and data parts", () => {
    expectTypeOf<AgentUIMessageChunk>().toExtend<UIMessageChunk<AgentUIMessageMetadata, AgentUIDataTypes>>();
  });
});
