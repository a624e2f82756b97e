import { describe, expect, it } from "vitest";
import { readSse } from "../../src/testing/model-server/index.js";
import { start } from "./model-server-fixture.js";
import type { ModelServer } from "../../src/testing/model-server/index.js";


/** A non-streaming chat request whose last user message is `text` (plus optional tool result). */
function chat(s: ModelServer, text: string, toolResultFor?: string): Promise<Response> {
  const messages: unknown[] = [{ role: "user", content: text }];
  if (toolResultFor) {
    messages.push(
      { role: "assistant", content: null, tool_calls: [{ id: toolResultFor, type: "function", function: { name: "bash", arguments: "{}" } }] },
      { role: "tool", tool_call_id: toolResultFor, content: "output" },
    );
  }
  return fetch(`${s.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages }) });
}

async function replyText(res: Response): Promise<string> {
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  return body.choices[0]!.message.content;
}

describe("scripted turns", () => {
  it("are consumed in order; a turn without a rule takes the next request", async () => {
    const s = await start({ turns: [{ reply: { text: "one" } }, { reply: { text: "two" } }] });
    expect(await replyText(await chat(s, "a"))).toBe("one");
    expect(await replyText(await chat(s, "b"))).toBe("two");
    expect(s.requests.map((r) => [r.nth, r.matchedTurn])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect(s.unusedTurns()).toEqual([]);
  });

  it("match on lastUserTextContains, toolResultFor, dialect, model and systemTextContains", async () => {
    const s = await start({
      turns: [
        { match: { lastUserTextContains: "RUN", dialect: "chat" }, reply: { toolCalls: [{ id: "call_9", name: "bash", arguments: { command: "ls" } }] } },
        { match: { toolResultFor: "call_9", model: "m" }, reply: { text: "listed" } },
        { match: { dialect: ["anthropic", "gemini"], systemTextContains: "Claude" }, reply: { text: "anthropic answer" } },
      ],
    });
    expect((await chat(s, "please RUN ls")).status).toBe(200);
    expect(await replyText(await chat(s, "please RUN ls", "call_9"))).toBe("listed");
    const res = await fetch(`${s.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "claude", system: "You are Claude Code", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
    });
    expect(res.status).toBe(200);
    expect(s.requests.map((r) => r.matchedTurn)).toEqual([0, 1, 2]);
  });

  it("match endsWithToolResult: a tool result last, not one followed by a new prompt", async () => {
    const s = await start({
      turns: [],
      auxiliary: {
        rules: [
          { match: { endsWithToolResult: true }, reply: { text: "after the tool" } },
          { match: { endsWithToolResult: false }, reply: { text: "a new prompt" } },
        ],
      },
    });
    expect(await replyText(await chat(s, "a", "call_1"))).toBe("after the tool");
    expect(await replyText(await chat(s, "a"))).toBe("a new prompt");
    // An interrupted call's result stays behind the assistant message; the prompt after it is new.
    const messages = [
      { role: "user", content: "a" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_2", type: "function", function: { name: "bash", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_2", content: "The call was interrupted before it finished." },
      { role: "user", content: "b" },
    ];
    const res = await fetch(`${s.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages }) });
    expect(await replyText(res)).toBe("a new prompt");
  });

  it("match.nth counts model-turn requests only (auxiliary requests are not counted)", async () => {
    const s = await start({ turns: [{ match: { nth: 1 }, reply: { text: "first" } }, { match: { nth: 2 }, reply: { text: "second" } }] });
    expect(await replyText(await chat(s, "a"))).toBe("first");
    await fetch(`${s.url}/v1/models`);
    expect(await replyText(await chat(s, "b"))).toBe("second");
    expect(s.requests.map((r) => r.nth)).toEqual([1, undefined, 2]);
  });

  it("an unmatched request gets HTTP 400 naming the expected step, and the step stays current", async () => {
    const s = await start({ turns: [{ label: "needs the tool result", match: { toolResultFor: "call_1" }, reply: { text: "ok" } }] });
    const res = await chat(s, "something else");
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; code: string }; script: unknown };
    expect(body.error.code).toBe("script_unmatched");
    expect(body.error.message).toContain('turns[0] "needs the tool result" {"toolResultFor":"call_1"}');
    expect(body.error.message).toContain('"something else"');
    expect(body.script).toEqual({
      reason: "unmatched",
      request: 0,
      expected: [{ turn: 0, label: "needs the tool result", match: { toolResultFor: "call_1" } }],
    });
    expect(s.requests[0]).toMatchObject({ status: 400, nth: 1 });
    expect(s.requests[0]?.error).toContain("turns[0]");
    expect(s.requests[0]?.matchedTurn).toBeUndefined();
    // the step was not consumed: the right request still matches it
    expect(await replyText(await chat(s, "again", "call_1"))).toBe("ok");
  });

  it("unmatched errors use the request's dialect envelope (Anthropic, Gemini)", async () => {
    const s = await start({ turns: [{ match: { lastUserTextContains: "never" }, reply: { text: "x" } }] });
    const anthropic = await fetch(`${s.url}/v1/messages`, { method: "POST", body: JSON.stringify({ model: "c", max_tokens: 1, messages: [{ role: "user", content: "hi" }] }) });
    expect(anthropic.status).toBe(400);
    expect(await anthropic.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("turns[0]") as string } });
    const gemini = await fetch(`${s.url}/v1beta/models/g:streamGenerateContent?alt=sse`, { method: "POST", body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }) });
    expect(gemini.status).toBe(400);
    expect(await gemini.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining("turns[0]") as string } });
  });

  it("after the last turn, requests get HTTP 400 'script exhausted'", async () => {
    const s = await start({ turns: [{ reply: { text: "only" } }] });
    await chat(s, "a");
    const res = await chat(s, "b");
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe("script_exhausted");
    expect(body.error.message).toContain("script exhausted");
    expect(s.requests[1]).toMatchObject({ status: 400, error: expect.stringContaining("script exhausted") as string });
  });

  it("a repeat turn answers while it matches; the first request it does not match goes to the next turn", async () => {
    const s = await start({
      turns: [
        { match: { lastUserTextContains: "again" }, repeat: true, reply: { text: "repeating" } },
        { reply: { text: "moved on" } },
        { repeat: true, reply: { text: "catch-all" } },
      ],
    });
    expect(await replyText(await chat(s, "again 1"))).toBe("repeating");
    expect(await replyText(await chat(s, "again 2"))).toBe("repeating");
    expect(await replyText(await chat(s, "new topic"))).toBe("moved on");
    expect(await replyText(await chat(s, "again 3"))).toBe("catch-all");
    expect(await replyText(await chat(s, "anything"))).toBe("catch-all");
    expect(s.requests.map((r) => r.matchedTurn)).toEqual([0, 0, 1, 2, 2]);
  });

  it("repeat: N answers at most N requests", async () => {
    const s = await start({ turns: [{ repeat: 2, reply: { text: "twice" } }, { reply: { text: "then this" } }] });
    expect(await replyText(await chat(s, "a"))).toBe("twice");
    expect(await replyText(await chat(s, "b"))).toBe("twice");
    expect(await replyText(await chat(s, "c"))).toBe("then this");
  });

  it("a non-matching request at a repeat turn names both candidate steps", async () => {
    const s = await start({
      turns: [
        { match: { lastUserTextContains: "again" }, repeat: true, reply: { text: "r" } },
        { match: { lastUserTextContains: "finish" }, reply: { text: "f" } },
      ],
    });
    const res = await chat(s, "neither");
    const body = (await res.json()) as { error: { message: string } };
    expect(res.status).toBe(400);
    expect(body.error.message).toContain('turns[0] {"lastUserTextContains":"again"} or turns[1] {"lastUserTextContains":"finish"}');
  });

  it("auxiliary rules answer side requests anywhere without consuming turns", async () => {
    const s = await start({
      auxiliary: {
        rules: [
          { label: "title generation", match: { systemTextContains: "generate a title" }, reply: { text: '{"title":"T"}' } },
          { match: { lastUserTextContains: "classify" }, fault: { status: 503 } },
        ],
      },
      turns: [{ reply: { text: "main" } }],
    });
    const title = await fetch(`${s.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "system", content: "Please generate a title" }, { role: "user", content: "hi" }] }),
    });
    expect(await replyText(title)).toBe('{"title":"T"}');
    expect((await chat(s, "classify this")).status).toBe(503);
    expect(await replyText(await chat(s, "hi"))).toBe("main");
    expect(s.requests.map((r) => [r.auxiliary, r.auxiliaryReason, r.matchedTurn])).toEqual([
      [true, "auxiliary.rules[0]", undefined],
      [true, "auxiliary.rules[1]", undefined],
      [undefined, undefined, 0],
    ]);
  });

  it("auxiliary.builtin: false sends Gemini JSON utility calls to the script instead", async () => {
    const s = await start({ auxiliary: { builtin: false }, turns: [{ reply: { text: '{"model_choice":"pro"}' } }] });
    const res = await fetch(`${s.url}/v1beta/models/g:generateContent`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "route" }] }], generationConfig: { responseMimeType: "application/json" } }),
    });
    const body = (await res.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(body.candidates[0]?.content.parts[0]?.text).toBe('{"model_choice":"pro"}');
    expect(s.requests[0]).toMatchObject({ matchedTurn: 0, nth: 1 });
  });

  it("the same script drives a streaming and a non-streaming dialect alike", async () => {
    const s = await start({ turns: [{ reply: { text: "a" } }, { reply: { text: "b" } }] });
    const { events } = await readSse(
      await fetch(`${s.url}/v1/responses`, { method: "POST", body: JSON.stringify({ model: "m", stream: true, input: "x" }) }),
    );
    expect(events.at(-1)?.event).toBe("response.completed");
    expect(await replyText(await chat(s, "y"))).toBe("b");
  });
});
