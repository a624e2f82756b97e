import { describe, expect, it } from "vitest";
import { lastUserText, readSse } from "../../src/testing/model-server/index.js";
import { start } from "./model-server-fixture.js";
import type { ModelServer } from "../../src/testing/model-server/index.js";


function post(s: ModelServer, body: unknown, path = "/v1/responses"): Promise<Response> {
  return fetch(`${s.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const userInput = (text: string): unknown[] => [
  { type: "message", role: "developer", content: [{ type: "input_text", text: "be brief" }] },
  { type: "message", role: "user", content: [{ type: "input_text", text }] },
];

describe("OpenAI Responses dialect", () => {
  it("streams text as output_item.added → content deltas → output_item.done → response.completed with usage", async () => {
    const s = await start({ turns: [{ reply: { text: "Hello world", chunkSize: 5, usage: { input_tokens: 12, output_tokens: 3, cached_input_tokens: 2 } } }] });
    const res = await post(s, { model: "fake-model", stream: true, input: userInput("say hello") });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const { events, complete } = await readSse(res);
    expect(complete).toBe(true);
    expect(events.map((e) => e.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    for (const e of events) expect((e.json as { type: string }).type).toBe(e.event);
    const added = events[2]?.json as { item: { id: string; type: string } };
    const deltas = events.filter((e) => e.event === "response.output_text.delta").map((e) => e.json as { item_id: string; delta: string });
    expect(deltas.map((d) => d.delta).join("")).toBe("Hello world");
    expect(deltas.every((d) => d.item_id === added.item.id)).toBe(true);
    const completed = events.at(-1)?.json as { response: { status: string; model: string; usage: unknown; output: unknown[] } };
    expect(completed.response.status).toBe("completed");
    expect(completed.response.model).toBe("fake-model");
    expect(completed.response.usage).toEqual({
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 2 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    });
    expect(completed.response.output).toEqual([
      {
        id: added.item.id,
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Hello world", annotations: [] }],
      },
    ]);
    const req = s.requests[0];
    expect(req).toMatchObject({ dialect: "responses", model: "fake-model", stream: true, status: 200, matchedTurn: 0, nth: 1 });
    expect(req?.messages[0]).toEqual({ role: "system", parts: [{ type: "text", text: "be brief" }] });
    expect(lastUserText(req!)).toBe("say hello");
  });

  it("streams reasoning summary, then a codex exec_command function_call", async () => {
    const s = await start({
      turns: [{ reply: { reasoning: "Thinking it over", toolCalls: [{ id: "call_ls", name: "exec_command", arguments: { cmd: "ls -la" } }] } }],
    });
    const res = await post(s, {
      model: "fake-model",
      stream: true,
      input: userInput("list files"),
      tools: [{ type: "function", name: "exec_command", parameters: {} }, { type: "web_search" }],
    });
    const { events } = await readSse(res);
    const types = events.map((e) => e.event);
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const reasoningDone = events[7]?.json as { item: unknown };
    expect(reasoningDone.item).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text", text: "Thinking it over" }] });
    const callDone = events[11]?.json as { output_index: number; item: Record<string, unknown> };
    expect(callDone.output_index).toBe(1);
    expect(callDone.item).toMatchObject({ type: "function_call", call_id: "call_ls", name: "exec_command", status: "completed" });
    expect(JSON.parse(callDone.item.arguments as string)).toEqual({ cmd: "ls -la" });
    expect(s.requests[0]?.tools).toEqual(["exec_command", "web_search"]);
  });

  it("answers a tool call for a freeform custom tool (apply_patch) as a custom_tool_call item", async () => {
    const patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n";
    const s = await start({ turns: [{ reply: { toolCalls: [{ name: "apply_patch", arguments: patch }] } }] });
    const res = await post(s, { model: "m", stream: true, input: userInput("patch"), tools: [{ type: "custom", name: "apply_patch" }] });
    const { events } = await readSse(res);
    expect(events.map((e) => e.event)).toContain("response.custom_tool_call_input.delta");
    const done = events.find((e) => e.event === "response.output_item.done")?.json as { item: Record<string, unknown> };
    expect(done.item).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: patch, call_id: "call_0_0" });
  });

  it("answers non-streaming requests with the response object", async () => {
    const s = await start({ turns: [{ reply: { text: "plain", toolCalls: [{ name: "shell", arguments: { command: ["echo", "hi"] } }] } }] });
    const res = await post(s, { model: "m", input: "just a string" }, "/responses");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; status: string; output: { type: string }[]; usage: { total_tokens: number } };
    expect(body).toMatchObject({ object: "response", status: "completed" });
    expect(body.output.map((o) => o.type)).toEqual(["message", "function_call"]);
    expect(body.usage.total_tokens).toBe(15);
    expect(s.requests[0]).toMatchObject({ stream: false, path: "/responses" });
    expect(lastUserText(s.requests[0]!)).toBe("just a string");
  });

  it("omits usage when the script says usage: null", async () => {
    const s = await start({ turns: [{ reply: { text: "x", usage: null } }] });
    const { events } = await readSse(await post(s, { model: "m", stream: true, input: userInput("q") }));
    const completed = events.at(-1)?.json as { response: Record<string, unknown> };
    expect(completed.response.usage).toBeUndefined();
  });

  it("captures images, files, tool calls and tool outputs in codex's input shape", async () => {
    const s = await start({ turns: [{ reply: { text: "seen" } }] });
    const png = Buffer.from("not-really-a-png").toString("base64");
    await post(s, {
      model: "m",
      stream: true,
      input: [
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "What is in this image?" },
            { type: "input_text", text: '<image name=[Image #1] path="/w/pixel.png">' },
            { type: "input_image", image_url: `data:image/png;base64,${png}`, detail: "high" },
            { type: "input_text", text: "</image>" },
            { type: "input_file", filename: "a.pdf", file_data: "data:application/pdf;base64,AAAA" },
          ],
        },
        { type: "function_call", call_id: "call_1", name: "exec_command", arguments: '{"cmd":"ls"}' },
        { type: "function_call_output", call_id: "call_1", output: "Process exited with code 0\nOutput:\na.txt" },
      ],
    });
    const [user, call, output] = s.requests[0]!.messages;
    expect(user?.parts[2]).toEqual({ type: "image", source: "base64", mediaType: "image/png", byteLength: 16, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(user?.parts[4]).toEqual({ type: "file", source: "base64", mediaType: "application/pdf", byteLength: 3, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), filename: "a.pdf" });
    expect(user?.parts.some((p) => p.type === "text" && p.text.includes("base64"))).toBe(false);
    expect(call).toEqual({ role: "assistant", parts: [{ type: "tool_call", name: "exec_command", callId: "call_1", arguments: { cmd: "ls" } }] });
    expect(output).toEqual({ role: "tool", parts: [{ type: "tool_result", callId: "call_1", text: "Process exited with code 0\nOutput:\na.txt" }] });
  });
});
