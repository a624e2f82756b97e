import { describe, expect, it } from "vitest";
import { lastUserText, readSse } from "../../src/testing/model-server/index.js";
import { start } from "./model-server-fixture.js";
import type { ModelServer } from "../../src/testing/model-server/index.js";


function post(s: ModelServer, body: unknown, path = "/v1/chat/completions"): Promise<Response> {
  return fetch(`${s.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

type Chunk = {
  object: string;
  model: string;
  choices: { index: number; delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: Record<string, unknown>;
};

describe("OpenAI Chat Completions dialect", () => {
  it("streams role chunk, reasoning_content and content deltas, finish chunk, include_usage chunk, [DONE]", async () => {
    const s = await start({ turns: [{ reply: { reasoning: "hmm", text: "Hello there", chunkSize: 6, usage: { input_tokens: 7, output_tokens: 2 } } }] });
    const res = await post(s, {
      model: "qwen-fake",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "hi" },
      ],
    });
    const { events, complete } = await readSse(res);
    expect(complete).toBe(true);
    expect(events.at(-1)?.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => e.json as Chunk);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "qwen-fake")).toBe(true);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: "assistant", content: "" });
    expect(chunks[1]?.choices[0]?.delta).toEqual({ reasoning_content: "hmm" });
    expect(chunks.slice(2, 4).map((c) => c.choices[0]?.delta.content)).toEqual(["Hello ", "there"]);
    expect(chunks[4]?.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: "stop" });
    expect(chunks[5]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
    expect(chunks).toHaveLength(6);
    expect(s.requests[0]).toMatchObject({ dialect: "chat", model: "qwen-fake", stream: true });
    expect(s.requests[0]?.messages[0]).toEqual({ role: "system", parts: [{ type: "text", text: "sys" }] });
  });

  it("streams tool_calls deltas (id and name first, arguments after) with finish_reason tool_calls", async () => {
    const s = await start({
      turns: [{ reply: { chunkSize: 10, toolCalls: [{ id: "call_a", name: "Bash", arguments: { command: "ls", description: "list" } }, { name: "read", arguments: { path: "x" } }] } }],
    });
    const res = await post(s, {
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "go" }],
      tools: [{ type: "function", function: { name: "Bash" } }, { type: "function", function: { name: "read" } }],
    });
    const { events } = await readSse(res);
    const deltas = events.slice(0, -1).map((e) => (e.json as Chunk).choices[0]);
    // no usage chunk without stream_options.include_usage
    expect(events.slice(0, -1).every((e) => (e.json as Chunk).usage === undefined)).toBe(true);
    const calls = deltas.flatMap((c) => (c?.delta.tool_calls as Record<string, unknown>[] | undefined) ?? []);
    expect(calls[0]).toEqual({ index: 0, id: "call_a", type: "function", function: { name: "Bash", arguments: "" } });
    const args0 = calls.filter((c) => c.index === 0).map((c) => (c.function as { arguments: string }).arguments).join("");
    expect(JSON.parse(args0)).toEqual({ command: "ls", description: "list" });
    expect(calls.find((c) => c.index === 1 && c.id !== undefined)).toMatchObject({ id: "call_0_1", function: { name: "read" } });
    expect(deltas.at(-1)?.finish_reason).toBe("tool_calls");
    expect(s.requests[0]?.tools).toEqual(["Bash", "read"]);
  });

  it("answers non-streaming requests with a chat.completion", async () => {
    const s = await start({ turns: [{ reply: { text: "ok", toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] } }] });
    const res = await post(s, { model: "m", messages: [{ role: "user", content: "hi" }] }, "/chat/completions");
    const body = (await res.json()) as { object: string; choices: { message: Record<string, unknown>; finish_reason: string }[]; usage: unknown };
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0]?.finish_reason).toBe("tool_calls");
    expect(body.choices[0]?.message).toEqual({
      role: "assistant",
      content: "ok",
      tool_calls: [{ id: "call_0_0", type: "function", function: { name: "bash", arguments: '{"command":"pwd"}' } }],
    });
    expect(body.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it("captures image_url, audio and file parts, assistant tool calls and tool messages", async () => {
    const s = await start({ turns: [{ reply: { text: "done" } }] });
    await post(s, {
      model: "m",
      stream: true,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "<user_query>describe</user_query>" },
            { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
            { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
            { type: "file", file: { filename: "doc.pdf", file_data: "data:application/pdf;base64,JVBERi0=" } },
          ],
        },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "a.txt" },
      ],
    });
    const [user, assistant, tool] = s.requests[0]!.messages;
    expect(user?.parts.slice(1)).toEqual([
      { type: "image", source: "base64", mediaType: "image/jpeg", byteLength: 6, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { type: "image", source: "url", url: "https://example.com/cat.png" },
      { type: "audio", source: "base64", mediaType: "audio/wav" },
      { type: "file", source: "base64", mediaType: "application/pdf", byteLength: 5, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), filename: "doc.pdf" },
    ]);
    expect(assistant?.parts).toEqual([{ type: "tool_call", name: "bash", callId: "call_1", arguments: { command: "ls" } }]);
    expect(tool).toEqual({ role: "tool", parts: [{ type: "tool_result", callId: "call_1", text: "a.txt" }] });
    expect(lastUserText(s.requests[0]!)).toBe("<user_query>describe</user_query>");
  });
});
