/**
 * Real-CLI lane, Claude Code: the native binary from the Agent SDK, driven directly over its
 * headless stream-json + control protocol, against the scripted model server's Anthropic
 * Messages dialect.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { lastUserText, type CapturedRequest } from "../../src/testing/model-server/index.js";
import { withRealCli, type CliProcess } from "../../src/testing/real-cli/index.js";
import { describeRealCli, isObject } from "./helpers.js";

type Json = Record<string, unknown>;

/** Sends the `initialize` control request and resolves with its response payload. */
async function initialize(proc: CliProcess): Promise<Json> {
  proc.send({ type: "control_request", request_id: "lane_init", request: { subtype: "initialize" } });
  const reply = await proc.waitFor<{ response: { subtype: string; response: Json } }>(
    (m) => isObject(m) && m.type === "control_response" && isObject(m.response) && m.response.request_id === "lane_init",
    { what: "initialize control_response" },
  );
  expect(reply.response.subtype).toBe("success");
  return reply.response.response;
}

/** Sends a user message and resolves with the turn's `result` message and everything before it. */
async function runTurn(proc: CliProcess, text: string): Promise<{ result: Json; messages: unknown[] }> {
  const from = proc.messages.length;
  proc.send({ type: "user", message: { role: "user", content: text } });
  const index = await proc.waitForIndex((m) => isObject(m) && m.type === "result", { from, what: "result" });
  return { result: proc.messages[index] as Json, messages: proc.messages.slice(from, index) };
}

function assistantBlocks(messages: unknown[]): Json[] {
  return messages
    .filter((m): m is { type: "assistant"; message: { content: Json[] } } => isObject(m) && m.type === "assistant")
    .flatMap((m) => m.message.content);
}

function modelRequests(requests: readonly CapturedRequest[]): CapturedRequest[] {
  return requests.filter((r) => r.dialect === "anthropic" && r.path === "/v1/messages" && !r.auxiliary);
}

describeRealCli("claude", () => {
  it("streams a scripted text reply and sends the prompt to the model server", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 6 } }] };
    await withRealCli("claude", script, async (ctx) => {
      const proc = await ctx.spawn();
      const init = await initialize(proc);
      expect(init).toMatchObject({ account: { apiKeySource: "ANTHROPIC_API_KEY" } });

      const { result, messages } = await runTurn(proc, "Say hello to the lane");
      expect(result).toMatchObject({ subtype: "success", is_error: false, result: "Hello from the scripted model." });
      const system = messages.find((m) => isObject(m) && m.type === "system" && m.subtype === "init") as Json;
      expect(system).toMatchObject({ cwd: ctx.workspace, model: ctx.model, apiKeySource: "ANTHROPIC_API_KEY" });
      expect(assistantBlocks(messages)).toEqual([{ type: "text", text: "Hello from the scripted model." }]);

      const requests = modelRequests(ctx.server.requests);
      expect(requests).toHaveLength(1);
      const [request] = requests as [CapturedRequest];
      expect(request).toMatchObject({ method: "POST", model: ctx.model, stream: true, status: 200 });
      expect(lastUserText(request)).toBe("Say hello to the lane");
      expect(request.tools).toContain("Write");
      // Nothing but the scripted server was called (no side requests are expected for a plain turn).
      expect(ctx.server.requests.every((r) => r.path.startsWith("/v1/messages"))).toBe(true);
    });
  });

  it("runs a scripted Write tool call in the workspace after host approval", async () => {
    const script = (dirs: { workspace: string }) => ({
      turns: [
        {
          match: { lastUserTextContains: "write the proof file" },
          reply: {
            toolCalls: [
              {
                id: "toolu_proof",
                name: "Write",
                arguments: { file_path: join(dirs.workspace, "proof.txt"), content: "proof from claude\n" },
              },
            ],
          },
        },
        { match: { toolResultFor: "toolu_proof" }, reply: { text: "The proof file is written." } },
      ],
    });
    await withRealCli("claude", script, async (ctx) => {
      // The stdio permission-prompt tool turns every prompt into a `can_use_tool` control request.
      const proc = await ctx.spawn({ extraArgs: ["--permission-prompt-tool", "stdio", "--permission-mode", "default"] });
      const asked: Json[] = [];
      proc.onMessage((m) => {
        if (!isObject(m) || m.type !== "control_request" || !isObject(m.request)) return;
        if (m.request.subtype !== "can_use_tool") return;
        asked.push(m.request);
        proc.send({
          type: "control_response",
          response: { subtype: "success", request_id: m.request_id, response: { behavior: "allow", updatedInput: m.request.input } },
        });
      });
      await initialize(proc);

      const { result, messages } = await runTurn(proc, "Please write the proof file");
      expect(result).toMatchObject({ subtype: "success", is_error: false, result: "The proof file is written." });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ tool_name: "Write", tool_use_id: "toolu_proof" });
      expect(await readFile(join(ctx.workspace, "proof.txt"), "utf8")).toBe("proof from claude\n");
      const toolResults = messages
        .filter((m): m is { type: "user"; message: { content: Json[] } } => isObject(m) && m.type === "user")
        .flatMap((m) => (Array.isArray(m.message.content) ? m.message.content : []))
        .filter((b) => b.type === "tool_result");
      expect(toolResults).toMatchObject([{ tool_use_id: "toolu_proof" }]);
      expect(toolResults[0]?.is_error).not.toBe(true);

      const requests = modelRequests(ctx.server.requests);
      expect(requests).toHaveLength(2);
      const followUp = requests[1] as CapturedRequest;
      const results = followUp.messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ callId: "toolu_proof" });
      expect(results[0]).not.toMatchObject({ isError: true });
    });
  });
});
