/**
 * Approvals and questions answered from the stream (issue #15 item 4): the request is published
 * before any handler runs and carries the run; `respond()` / `answer()` / `decline()` settle it, the
 * first answer wins (handler, stream, cancel or timeout) and later stream answers are refused with
 * a typed error; a timeout only when the host set one; `run()` never waits for a stream answer.
 */
import { describe, expect, it } from "vitest";
import { createAgent, ResponseRejectedError, type AgentEvent, type ApprovalDecision, type Driver, type UserInputAnswer } from "../../src/index.js";
import type { ApprovalRequest, UserInputRequest } from "../../src/driver/vocabulary.js";
import { fakeDriver } from "../../src/testing/index.js";

const REQUEST: ApprovalRequest = {
  requestId: "req-1",
  kind: "command",
  summary: "Run `rm -rf build`",
  options: [
    { id: "accept", label: "Allow once", kind: "allow_once" },
    { id: "acceptWithExecpolicyAmendment", label: "Allow and remember this command prefix", kind: "allow_always" },
    { id: "decline", label: "Deny", kind: "deny" },
  ],
};

const QUESTION: UserInputRequest = {
  requestId: "ask-1",
  questions: [
    { id: "color", question: "Which colour?", options: [{ label: "red" }, { label: "blue" }], multiSelect: true },
    { id: "token", question: "Your token?", secret: true, allowOther: true },
  ],
};

/** A driver that asks once per run and completes with what it got, as JSON text. */
function askingDriver(ask: (request: Parameters<Driver["run"]>[0]) => Promise<ApprovalDecision | UserInputAnswer>): Driver {
  const base = fakeDriver();
  return {
    ...base,
    async run(request, sink) {
      request.markDelivered();
      const got = await ask(request);
      await sink.emit({ type: "message.completed", itemId: "m", text: JSON.stringify(got) });
      return { text: JSON.stringify(got) };
    },
  };
}

const approving = () => askingDriver((request) => request.approve(structuredClone(REQUEST)));
const asking = () => askingDriver((request) => request.ask(structuredClone(QUESTION)));

function rejection(fn: () => void): ResponseRejectedError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ResponseRejectedError);
    return error as ResponseRejectedError;
  }
  throw new Error("expected a ResponseRejectedError");
}

describe("approvals answered from the stream", () => {
  it("selects an offered option by id; the decision carries it and a second answer is refused typed", async () => {
    const agent = createAgent(approving(), { defaults: { onApproval: "stream" } });
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type !== "approval.requested") continue;
      expect(event).toMatchObject({ runId: stream.runId, requestId: "req-1", options: REQUEST.options });
      stream.respond(event.requestId, { optionId: "acceptWithExecpolicyAmendment" });
      const late = rejection(() => stream.respond(event.requestId, { decision: "deny" }));
      expect(late).toMatchObject({ code: "request_not_pending", requestId: "req-1" });
      expect(late.message).toContain("by: stream");
    }
    const decision = { decision: "allow", scope: "session", optionId: "acceptWithExecpolicyAmendment" };
    expect(JSON.parse((await stream.result).text)).toEqual(decision);
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ decision, by: "stream" });
    await agent.close();
  });

  it("refuses unknown ids, options not offered, contradicting kinds and questions answered with respond()", async () => {
    const agent = createAgent(approving(), { defaults: { onApproval: "stream" } });
    const stream = agent.stream("x");
    for await (const event of stream) {
      if (event.type !== "approval.requested") continue;
      expect(rejection(() => stream.respond("nope", { decision: "allow" })).code).toBe("request_not_pending");
      expect(rejection(() => stream.respond("req-1", { optionId: "acceptForSession" })).code).toBe("response_invalid");
      expect(rejection(() => stream.respond("req-1", { decision: "allow", optionId: "decline" })).code).toBe("response_invalid");
      expect(rejection(() => stream.answer("req-1", {})).code).toBe("response_invalid");
      // Still pending after the refusals: a valid answer settles it.
      stream.respond("req-1", { decision: "deny", message: "use make clean", optionId: "decline" });
    }
    expect(JSON.parse((await stream.result).text)).toEqual({ decision: "deny", message: "use make clean", optionId: "decline" });
    await agent.close();
  });

  it("publishes the request before the handler decides, and the handler gets the run and thread ids", async () => {
    const seen: { runId: string; threadId?: string }[] = [];
    // The handler answers only once the host has read approval.requested: were the request
    // published after the handler settled, this run would never end.
    let hostSaw!: () => void;
    const agent = createAgent(approving(), {
      defaults: {
        onApproval: async (request) => {
          seen.push({ runId: request.runId, ...(request.threadId ? { threadId: request.threadId } : {}) });
          await new Promise<void>((resolve) => (hostSaw = resolve));
          return { decision: "allow" };
        },
      },
    });
    const readAll = async (stream: AsyncIterable<AgentEvent>) => {
      for await (const event of stream) if (event.type === "approval.requested") hostSaw();
    };
    const stream = agent.stream("x");
    await readAll(stream);
    expect(seen).toEqual([{ runId: stream.runId }]);
    expect((await stream.result).transcript().map((e) => e.type).slice(0, 3)).toEqual(["run.started", "approval.requested", "approval.resolved"]);
    const thread = await agent.startThread();
    const threadStream = thread.stream("y");
    await readAll(threadStream);
    expect(seen[1]).toEqual({ runId: threadStream.runId, threadId: thread.id });
    await agent.close();
  });

  it("the stream beats a handler that has not answered; the handler's late answer is ignored", async () => {
    let release!: (decision: ApprovalDecision) => void;
    const agent = createAgent(approving(), { defaults: { onApproval: () => new Promise((resolve) => (release = resolve)) } });
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval.requested") stream.respond(event.requestId, { optionId: "decline" });
    }
    release({ decision: "allow" });
    expect(JSON.parse((await stream.result).text)).toEqual({ decision: "deny", optionId: "decline" });
    expect(events.filter((e) => e.type === "approval.resolved")).toMatchObject([{ by: "stream" }]);
    expect(events.filter((e) => e.type === "notice")).toEqual([]);
    await agent.close();
  });

  it("a handler that answered first wins; the stream's answer is refused typed", async () => {
    const agent = createAgent(approving(), { defaults: { onApproval: async () => ({ decision: "allow", optionId: "accept" }) } });
    const stream = agent.stream("x");
    let refused: ResponseRejectedError | undefined;
    for await (const event of stream) {
      if (event.type === "approval.resolved") refused = rejection(() => stream.respond(event.requestId, { optionId: "decline" }));
    }
    expect(refused).toMatchObject({ code: "request_not_pending", requestId: "req-1" });
    expect(JSON.parse((await stream.result).text)).toEqual({ decision: "allow", optionId: "accept" });
    await agent.close();
  });

  it("a handler choosing an option the request did not offer denies, with a notice", async () => {
    const agent = createAgent(approving(), { defaults: { onApproval: async () => ({ decision: "allow", optionId: "yolo" }) } });
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(JSON.parse((await stream.result).text)).toMatchObject({ decision: "deny" });
    expect(events.filter((e) => e.type === "notice").map((e) => e.code)).toEqual(["approval_handler_failed"]);
    await agent.close();
  });
});

describe("who answers when no one does", () => {
  it("without a handler the policy denies at once, even while the host reads the stream", async () => {
    const agent = createAgent(approving());
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ by: "policy", decision: { decision: "deny" } });
    expect(rejection(() => stream.respond("req-1", { decision: "allow" }))).toMatchObject({ code: "request_not_pending" });
    await agent.close();
  });

  it('run() with onApproval "stream" has no stream to answer from: denied by policy, with a notice that says so', async () => {
    const agent = createAgent(approving(), { defaults: { onApproval: "stream" } });
    const result = await agent.run("x");
    expect(JSON.parse(result.text)).toMatchObject({ decision: "deny" });
    const notice = result.transcript().find((e) => e.type === "notice");
    expect(notice).toMatchObject({ code: "approval_denied_by_policy", message: expect.stringContaining("run()") });
    const thread = await agent.startThread();
    expect(JSON.parse((await thread.run("y")).text)).toMatchObject({ decision: "deny" });
    await agent.close();
  });

  it("an unanswered request waits without a timeout (a later answer still settles it)", async () => {
    const agent = createAgent(approving(), { defaults: { onApproval: "stream" } });
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type !== "approval.requested") continue;
      // Several timer turns pass with the request still pending and nothing resolved.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(events.map((e) => e.type)).toEqual(["run.started", "approval.requested"]);
      stream.respond(event.requestId, { decision: "allow" });
    }
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ by: "stream" });
    await agent.close();
  });

  it("times out only when the host set approvalTimeoutMs: denied by timeout, a notice, and a late answer refused as approval_timeout", async () => {
    const agent = createAgent(approving(), { defaults: { onApproval: "stream", approvalTimeoutMs: 30 } });
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual(["run.started", "approval.requested", "notice", "approval.resolved", "message.completed", "run.completed"]);
    expect(events.find((e) => e.type === "notice")).toMatchObject({ code: "approval_timeout" });
    expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ by: "timeout", decision: { decision: "deny" } });
    expect(rejection(() => stream.respond("req-1", { decision: "allow" }))).toMatchObject({ code: "approval_timeout", requestId: "req-1" });
    await agent.close();
  });

  it("a cancel settles a pending request, and the stream's answer after it is refused", async () => {
    const agent = createAgent(approving(), { defaults: { onApproval: "stream" } });
    const stream = agent.stream("x");
    let refused: ResponseRejectedError | undefined;
    for await (const event of stream) {
      if (event.type !== "approval.requested") continue;
      stream.cancel("stop");
      refused = rejection(() => stream.respond(event.requestId, { decision: "allow" }));
    }
    expect(refused).toMatchObject({ code: "request_not_pending" });
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    await agent.close();
  });
});

describe("questions answered from the stream", () => {
  it("keeps every flag of the question and takes the answers by question id", async () => {
    const agent = createAgent(asking(), { defaults: { onUserInput: "stream" } });
    const stream = agent.stream("x");
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type !== "question.requested") continue;
      expect(event.questions).toEqual(QUESTION.questions);
      expect(rejection(() => stream.answer("ask-1", { color: "red" })).code).toBe("response_invalid");
      expect(rejection(() => stream.answer("ask-1", { color: "red", token: "t", extra: "x" })).code).toBe("response_invalid");
      expect(rejection(() => stream.respond("ask-1", { decision: "allow" })).code).toBe("response_invalid");
      stream.answer("ask-1", { color: ["red", "blue"], token: "s3cret" });
      expect(rejection(() => stream.decline("ask-1")).code).toBe("request_not_pending");
    }
    expect(JSON.parse((await stream.result).text)).toEqual({ answers: { color: ["red", "blue"], token: "s3cret" } });
    expect(events.find((e) => e.type === "question.resolved")).toMatchObject({ answered: true, by: "stream" });
    await agent.close();
  });

  it("declines from the stream, and a single-select question takes one value only", async () => {
    const single: UserInputRequest = { requestId: "ask-2", questions: [{ id: "q", question: "One?", options: [{ label: "a" }, { label: "b" }] }] };
    const agent = createAgent(askingDriver((request) => request.ask(structuredClone(single))), { defaults: { onUserInput: "stream" } });
    const stream = agent.stream("x");
    for await (const event of stream) {
      if (event.type !== "question.requested") continue;
      expect(rejection(() => stream.answer("ask-2", { q: ["a", "b"] })).code).toBe("response_invalid");
      stream.decline("ask-2");
    }
    expect(JSON.parse((await stream.result).text)).toEqual({ declined: true });
    await agent.close();
  });

  it("a question handler gets the run id and races the stream like an approval handler", async () => {
    let runId: string | undefined;
    const agent = createAgent(asking(), {
      defaults: {
        onUserInput: (request) => {
          runId = request.runId;
          return new Promise(() => undefined);
        },
        approvalTimeoutMs: 0,
      },
    });
    const stream = agent.stream("x");
    for await (const event of stream) if (event.type === "question.requested") stream.answer(event.requestId, { color: "red", token: "t" });
    expect(runId).toBe(stream.runId);
    expect(JSON.parse((await stream.result).text)).toEqual({ answers: { color: "red", token: "t" } });
    await agent.close();
  });
});
