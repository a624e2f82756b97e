import { describe, expect, it } from "vitest";
import { lastUserText, readSse } from "../../src/testing/model-server/index.js";
import { start } from "./model-server-fixture.js";
import type { ModelServer } from "../../src/testing/model-server/index.js";


const googleHeaders = { "content-type": "application/json", "x-goog-api-key": "AIza-secret" };

function post(s: ModelServer, path: string, body: unknown): Promise<Response> {
  return fetch(`${s.url}${path}`, { method: "POST", headers: googleHeaders, body: JSON.stringify(body) });
}

type Chunk = {
  candidates: { content: { role: string; parts: Record<string, unknown>[] }; finishReason?: string }[];
  usageMetadata?: Record<string, number>;
  modelVersion: string;
};

const contents = (text: string): unknown[] => [
  { role: "user", parts: [{ text: "<session_context>cwd /w</session_context>" }] },
  { role: "user", parts: [{ text }] },
];

describe("Gemini dialect", () => {
  it("streams data: {candidates} chunks; the last carries finishReason STOP and usageMetadata", async () => {
    const s = await start({ turns: [{ reply: { reasoning: "ponder", text: "Hello world", chunkSize: 6, usage: { input_tokens: 30, output_tokens: 4, reasoning_output_tokens: 2 } } }] });
    const res = await post(s, "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse", {
      contents: contents("hi"),
      systemInstruction: { role: "user", parts: [{ text: "You are Gemini CLI" }] },
      tools: [{ functionDeclarations: [{ name: "run_shell_command" }, { name: "read_file" }] }, { googleSearch: {} }],
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const { events, complete } = await readSse(res);
    expect(complete).toBe(true);
    expect(events.every((e) => e.event === undefined)).toBe(true);
    const chunks = events.map((e) => e.json as Chunk);
    expect(chunks.map((c) => c.candidates[0]?.content.parts)).toEqual([
      [{ text: "ponder", thought: true }],
      [{ text: "Hello " }],
      [{ text: "world" }],
    ]);
    expect(chunks.slice(0, -1).every((c) => c.candidates[0]?.finishReason === undefined && c.usageMetadata === undefined)).toBe(true);
    expect(chunks.at(-1)?.candidates[0]?.finishReason).toBe("STOP");
    expect(chunks.at(-1)?.usageMetadata).toEqual({ promptTokenCount: 30, candidatesTokenCount: 4, totalTokenCount: 34, thoughtsTokenCount: 2 });
    expect(chunks.every((c) => c.modelVersion === "gemini-3.8-flash" && c.candidates[0]?.content.role === "model")).toBe(true);
    const req = s.requests[0]!;
    expect(req).toMatchObject({ dialect: "gemini", model: "gemini-3.8-flash", stream: true, query: { alt: "sse" } });
    expect(req.tools).toEqual(["run_shell_command", "read_file", "googleSearch"]);
    expect(req.messages[0]).toEqual({ role: "system", parts: [{ type: "text", text: "You are Gemini CLI" }] });
    expect(lastUserText(req)).toBe("hi");
  });

  it("streams functionCall parts with args objects and the scripted id", async () => {
    const s = await start({ turns: [{ reply: { toolCalls: [{ id: "fc-1", name: "run_shell_command", arguments: { command: "ls" } }] } }] });
    const { events } = await readSse(await post(s, "/v1/models/gemini-x:streamGenerateContent?alt=sse", { contents: contents("RUN_SHELL") }));
    expect(events).toHaveLength(1);
    const chunk = events[0]?.json as Chunk;
    expect(chunk.candidates[0]?.content.parts).toEqual([{ functionCall: { id: "fc-1", name: "run_shell_command", args: { command: "ls" } } }]);
    expect(chunk.candidates[0]?.finishReason).toBe("STOP");
  });

  it("answers non-streaming generateContent with all parts in one candidate", async () => {
    const s = await start({ turns: [{ reply: { text: "sure", toolCalls: [{ name: "read_file", arguments: '{"path":"a"}' }] } }] });
    const res = await post(s, "/v1beta/models/gemini-x:generateContent", { contents: contents("q") });
    const body = (await res.json()) as Chunk;
    expect(body.candidates[0]?.content.parts).toEqual([
      { text: "sure" },
      { functionCall: { id: "call_0_0", name: "read_file", args: { path: "a" } } },
    ]);
    expect(body.candidates[0]?.finishReason).toBe("STOP");
    expect(body.usageMetadata).toMatchObject({ promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 });
    expect(s.requests[0]?.stream).toBe(false);
  });

  it("answers Gemini CLI's non-streaming JSON routing call automatically with JSON that fits the schema", async () => {
    const s = await start({ turns: [{ reply: { text: "the real answer" } }] });
    const routing = await post(s, "/v1beta/models/gemini-3.5-flash-lite:generateContent", {
      contents: contents("list files"),
      systemInstruction: { parts: [{ text: "You are a specialized Task Routing AI." }] },
      generationConfig: {
        responseMimeType: "application/json",
        responseJsonSchema: {
          type: "OBJECT",
          properties: { reasoning: { type: "STRING" }, model_choice: { type: "STRING", enum: ["pro", "flash"] } },
          required: ["reasoning", "model_choice"],
        },
      },
    });
    const body = (await routing.json()) as Chunk;
    const answer = JSON.parse(String(body.candidates[0]?.content.parts[0]?.text)) as Record<string, unknown>;
    expect(answer).toEqual({ reasoning: expect.any(String) as string, model_choice: "flash" });
    const next = await post(s, "/v1beta/models/gemini-x:generateContent", {
      contents: contents("q"),
      generationConfig: {
        responseMimeType: "application/json",
        responseSchema: { type: "object", properties: { next_speaker: { type: "string", enum: ["model", "user"] }, confidence: { type: "number" } } },
      },
    });
    const nextBody = (await next.json()) as Chunk;
    expect(JSON.parse(String(nextBody.candidates[0]?.content.parts[0]?.text))).toEqual({ next_speaker: "user", confidence: 0 });
    expect(s.requests.map((r) => r.auxiliaryReason)).toEqual(["gemini-json-utility", "gemini-json-utility"]);
    expect(s.requests.every((r) => r.nth === undefined && r.matchedTurn === undefined)).toBe(true);
    const { events } = await readSse(await post(s, "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", { contents: contents("q") }));
    expect((events[0]?.json as Chunk).candidates[0]?.content.parts).toEqual([{ text: "the real answer" }]);
    expect(s.requests.at(-1)).toMatchObject({ matchedTurn: 0, nth: 1 });
  });

  it("answers countTokens and the Gemini model listing", async () => {
    const s = await start({ models: ["gemini-x"], turns: [] });
    const count = await post(s, "/v1beta/models/gemini-x:countTokens", { contents: contents("count") });
    expect(((await count.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    const list = await fetch(`${s.url}/v1beta/models`, { headers: googleHeaders });
    const models = (await list.json()) as { models: { name: string; supportedGenerationMethods: string[] }[] };
    expect(models.models.map((m) => m.name)).toEqual(["models/gemini-x"]);
    expect(models.models[0]?.supportedGenerationMethods).toContain("streamGenerateContent");
    const one = await fetch(`${s.url}/v1beta/models/gemini-x`, { headers: googleHeaders });
    expect(await one.json()).toMatchObject({ name: "models/gemini-x" });
    const missing = await fetch(`${s.url}/v1beta/models/nope`, { headers: googleHeaders });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND" } });
    expect(s.requests[0]).toMatchObject({ dialect: "gemini", model: "gemini-x", auxiliary: true, auxiliaryReason: "count-tokens" });
  });

  it("captures inlineData images, fileData, audio, functionCall and functionResponse parts", async () => {
    const s = await start({ turns: [{ reply: { text: "ok" } }] });
    await post(s, "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", {
      contents: [
        {
          role: "user",
          parts: [
            { text: "what is this" },
            { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
            { inlineData: { mimeType: "audio/mp3", data: "SUQz" } },
            { fileData: { mimeType: "application/pdf", fileUri: "gs://b/doc.pdf" } },
          ],
        },
        { role: "model", parts: [{ functionCall: { name: "read_file", args: { path: "a" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "contents of a" } } }] },
      ],
    });
    const [user, model, result] = s.requests[0]!.messages;
    expect(user?.parts.slice(1)).toEqual([
      { type: "image", source: "base64", mediaType: "image/png", byteLength: 8, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { type: "audio", source: "base64", mediaType: "audio/mp3", byteLength: 3, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { type: "file", source: "url", mediaType: "application/pdf", url: "gs://b/doc.pdf" },
    ]);
    // without ids, Gemini calls and responses are paired by function name
    expect(model).toEqual({ role: "assistant", parts: [{ type: "tool_call", name: "read_file", callId: "read_file", arguments: { path: "a" } }] });
    expect(result?.parts).toEqual([{ type: "tool_result", callId: "read_file", text: "contents of a" }]);
  });
});
