/**
 * Real-CLI lane, CodeBuddy Code: the headless bundle shipped inside `@tencent-ai/agent-sdk`,
 * driven over its stream-json + control protocol (a dialect of Claude Code's), against the
 * scripted model server's Chat Completions dialect.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { lastUserText, type CapturedRequest } from "../../src/testing/model-server/index.js";
import { withRealCli, type CliProcess } from "../../src/testing/real-cli/index.js";
import { describeRealCli, isObject } from "./helpers.js";

type Json = Record<string, unknown>;

async function initialize(proc: CliProcess): Promise<Json> {
  proc.send({ type: "control_request", request_id: "lane_init", request: { subtype: "initialize" } });
  const reply = await proc.waitFor<{ response: { subtype: string; response: Json } }>(
    (m) => isObject(m) && m.type === "control_response" && isObject(m.response) && m.response.request_id === "lane_init",
    { what: "initialize control_response" },
  );
  expect(reply.response.subtype).toBe("success");
  return reply.response.response;
}

async function runTurn(proc: CliProcess, text: string): Promise<{ result: Json; messages: unknown[] }> {
  const from = proc.messages.length;
  proc.send({ type: "user", message: { role: "user", content: text } });
  const index = await proc.waitForIndex((m) => isObject(m) && m.type === "result", { from, what: "result" });
  return { result: proc.messages[index] as Json, messages: proc.messages.slice(from, index) };
}

function modelRequests(requests: readonly CapturedRequest[]): CapturedRequest[] {
  return requests.filter((r) => r.dialect === "chat" && !r.auxiliary);
}

describeRealCli("codebuddy", () => {
  it("streams a scripted text reply and sends the prompt to the model server", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 6 } }] };
    await withRealCli("codebuddy", script, async (ctx) => {
      const proc = await ctx.spawn();
      await initialize(proc);
      const { result, messages } = await runTurn(proc, "Say hello to the lane");
      expect(result).toMatchObject({ subtype: "success", is_error: false, result: "Hello from the scripted model." });
      const system = messages.find((m) => isObject(m) && m.type === "system" && m.subtype === "init") as Json;
      expect(system).toMatchObject({ cwd: ctx.workspace });

      const requests = modelRequests(ctx.server.requests);
      expect(requests).toHaveLength(1);
      const [request] = requests as [CapturedRequest];
      expect(request).toMatchObject({ method: "POST", path: "/v1/chat/completions", model: ctx.model, stream: true, status: 200 });
      // CodeBuddy wraps the prompt in <user_query> tags.
      expect(lastUserText(request)).toContain("Say hello to the lane");
      expect(request.tools).toContain("Write");
    });
  });

  it("runs a scripted Write tool call in the workspace after host approval", async () => {
    const script = (dirs: { workspace: string }) => ({
      turns: [
        {
          match: { lastUserTextContains: "write the proof file" },
          reply: {
            toolCalls: [
              { id: "call_proof", name: "Write", arguments: { file_path: join(dirs.workspace, "proof.txt"), content: "proof from codebuddy\n" } },
            ],
          },
        },
        { match: { toolResultFor: "call_proof" }, reply: { text: "The proof file is written." } },
      ],
    });
    await withRealCli("codebuddy", script, async (ctx) => {
      const proc = await ctx.spawn({ extraArgs: ["--permission-mode", "default"] });
      const asked: Json[] = [];
      proc.onMessage((m) => {
        if (!isObject(m) || m.type !== "control_request" || !isObject(m.request) || m.request.subtype !== "can_use_tool") return;
        asked.push(m.request);
        // CodeBuddy's answer shape is {allowed}, not Claude's {behavior} (which it reads as a denial).
        proc.send({
          type: "control_response",
          response: { subtype: "success", request_id: m.request_id, response: { allowed: true, updatedInput: m.request.input } },
        });
      });
      await initialize(proc);

      const { result } = await runTurn(proc, "Please write the proof file");
      expect(result).toMatchObject({ subtype: "success", is_error: false, result: "The proof file is written." });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ tool_name: "Write" });
      expect(await readFile(join(ctx.workspace, "proof.txt"), "utf8")).toBe("proof from codebuddy\n");

      const requests = modelRequests(ctx.server.requests);
      expect(requests).toHaveLength(2);
      const results = (requests[1] as CapturedRequest).messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ callId: "call_proof" });
      expect(results[0]).not.toMatchObject({ isError: true });
    });
  });
});
