import { describe, expect, it } from "vitest";
import { lastUserText, readSse } from "../../src/testing/model-server/index.js";
import { start } from "./model-server-fixture.js";
import type { ModelServer } from "../../src/testing/model-server/index.js";


const anthropicHeaders = { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "sk-ant-secret" };

function post(s: ModelServer, body: unknown, path = "/v1/messages?beta=true"): Promise<Response> {
  return fetch(`${s.url}${path}`, { method: "POST", headers: anthropicHeaders, body: JSON.stringify(body) });
}

/** The shape Claude Code sends: reminders before the prompt, and a trailing system message. */
const claudeMessages = (prompt: string): unknown[] => [
  {
    role: "user",
    content: [
      { type: "text", text: "<system-reminder>\nSkills are available.\n</system-reminder>" },
      { type: "text", text: prompt },
    ],
  },
  { role: "system", content: "Environment: cwd /home/user/project" },
];

describe("Anthropic Messages dialect", () => {
  it("streams message_start → thinking/text blocks → message_delta → message_stop", async () => {
    const s = await start({
      turns: [{ reply: { reasoning: "hmm…", text: "hello there", chunkSize: 6, usage: { input_tokens: 20, output_tokens: 4, cached_input_tokens: 3 } } }],
    });
    const res = await post(s, {
      model: "claude-opus-5-5",
      stream: true,
      max_tokens: 128000,
      system: [{ type: "text", text: "x-anthropic-billing-header: cc_version=2" }, { type: "text", text: "You are Claude Code" }],
      messages: claudeMessages("please say hello"),
      tools: [{ name: "Bash", input_schema: {} }, { name: "Read", input_schema: {} }],
    });
    const { events, complete } = await readSse(res);
    expect(complete).toBe(true);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const start0 = events[0]?.json as { message: Record<string, unknown> };
    expect(start0.message).toMatchObject({ type: "message", role: "assistant", model: "claude-opus-5-5", content: [], stop_reason: null });
    expect(start0.message.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 3 });
    expect(events[1]?.json).toEqual({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } });
    expect((events[2]?.json as { delta: unknown }).delta).toEqual({ type: "thinking_delta", thinking: "hmm…" });
    expect((events[3]?.json as { delta: { type: string } }).delta.type).toBe("signature_delta");
    const text = events
      .filter((e) => (e.json as { index?: number; delta?: { type: string } }).delta?.type === "text_delta")
      .map((e) => (e.json as { index: number; delta: { text: string } }).delta.text);
    expect(text).toEqual(["hello ", "there"]);
    expect(events[9]?.json).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 3, output_tokens: 4 },
    });
    const req = s.requests[0]!;
    expect(req).toMatchObject({ dialect: "anthropic", path: "/v1/messages", query: { beta: "true" }, stream: true, tools: ["Bash", "Read"] });
    expect(req.messages.map((m) => m.role)).toEqual(["system", "user", "system"]);
    // the reminder block and the trailing system message are not "the user's text"
    expect(lastUserText(req)).toBe("please say hello");
  });

  it("streams tool_use blocks with input_json_delta and stop_reason tool_use", async () => {
    const s = await start({ turns: [{ reply: { chunkSize: 8, toolCalls: [{ id: "toolu_1", name: "Bash", arguments: { command: "ls -la" } }] } }] });
    const { events } = await readSse(await post(s, { model: "m", stream: true, max_tokens: 100, messages: claudeMessages("RUN_LS") }));
    const start1 = events.find((e) => e.event === "content_block_start")?.json;
    expect(start1).toEqual({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "Bash", input: {} } });
    const partial = events
      .filter((e) => e.event === "content_block_delta")
      .map((e) => (e.json as { delta: { type: string; partial_json: string } }).delta);
    expect(partial.every((d) => d.type === "input_json_delta")).toBe(true);
    expect(partial.length).toBeGreaterThan(1);
    expect(JSON.parse(partial.map((d) => d.partial_json).join(""))).toEqual({ command: "ls -la" });
    const delta = events.find((e) => e.event === "message_delta")?.json as { delta: { stop_reason: string } };
    expect(delta.delta.stop_reason).toBe("tool_use");
  });

  it("answers the non-streaming fallback with a complete message", async () => {
    const s = await start({ turns: [{ reply: { reasoning: "r", text: "final", toolCalls: [{ name: "Read", arguments: { file_path: "/a" } }] } }] });
    const res = await post(s, { model: "m", max_tokens: 64000, messages: [{ role: "user", content: "hi" }] }, "/v1/messages");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ type: "message", role: "assistant", stop_reason: "tool_use", usage: { input_tokens: 10, output_tokens: 5 } });
    expect(body.content).toEqual([
      { type: "thinking", thinking: "r", signature: expect.any(String) as string },
      { type: "text", text: "final" },
      { type: "tool_use", id: "toolu_0_0", name: "Read", input: { file_path: "/a" } },
    ]);
    expect(s.requests[0]?.stream).toBe(false);
  });

  it("answers count_tokens, HEAD / and the model listing automatically without consuming turns", async () => {
    const s = await start({ models: ["claude-opus-5-5", "claude-haiku-5-5"], turns: [{ reply: { text: "t" } }] });
    const count = await post(s, { model: "claude-opus-5-5", messages: [{ role: "user", content: "count me" }] }, "/v1/messages/count_tokens?beta=true");
    expect(count.status).toBe(200);
    expect(((await count.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    const head = await fetch(`${s.url}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    const list = await fetch(`${s.url}/v1/models`, { headers: anthropicHeaders });
    expect(await list.json()).toEqual({
      data: [
        { type: "model", id: "claude-opus-5-5", display_name: "claude-opus-5-5", created_at: expect.any(String) as string },
        { type: "model", id: "claude-haiku-5-5", display_name: "claude-haiku-5-5", created_at: expect.any(String) as string },
      ],
      has_more: false,
      first_id: "claude-opus-5-5",
      last_id: "claude-haiku-5-5",
    });
    const one = await fetch(`${s.url}/v1/models/claude-haiku-5-5`, { headers: anthropicHeaders });
    expect(await one.json()).toMatchObject({ type: "model", id: "claude-haiku-5-5" });
    expect(s.requests.map((r) => [r.dialect, r.auxiliary, r.auxiliaryReason])).toEqual([
      ["anthropic", true, "count-tokens"],
      ["other", true, "probe"],
      ["models", true, "model-listing"],
      ["models", true, "model-listing"],
    ]);
    expect(s.unusedTurns()).toEqual([0]);
    // the scripted turn is still there for the real request
    const res = await post(s, { model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(200);
    expect(s.requests.at(-1)).toMatchObject({ matchedTurn: 0, nth: 1 });
  });

  it("captures base64 and URL images, PDF documents, tool_use and tool_result blocks", async () => {
    const s = await start({ turns: [{ reply: { text: "ok" } }] });
    await post(s, {
      model: "m",
      stream: true,
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
            { type: "document", title: "spec", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
            { type: "text", text: "[Image: source: /tmp/claude-0/images/1.png]" },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a.png" } }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [
                { type: "text", text: "image follows" },
                { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
              ],
            },
          ],
        },
      ],
    });
    const [user, assistant, results] = s.requests[0]!.messages;
    expect(user?.parts.slice(1, 4)).toEqual([
      { type: "image", source: "base64", mediaType: "image/png", byteLength: 8, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { type: "image", source: "url", url: "https://example.com/a.png" },
      { type: "file", source: "base64", mediaType: "application/pdf", filename: "spec", byteLength: 5, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    expect(assistant?.parts).toEqual([{ type: "tool_call", name: "Read", callId: "toolu_1", arguments: { file_path: "/a.png" } }]);
    expect(results?.parts).toEqual([
      {
        type: "tool_result",
        callId: "toolu_1",
        text: "image follows",
        parts: [{ type: "image", source: "base64", mediaType: "image/png", byteLength: 8, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
      },
    ]);
    // after the tool round trip the last user text is still the prompt
    expect(lastUserText(s.requests[0]!)).toBe("look\n[Image: source: /tmp/claude-0/images/1.png]");
  });
});
