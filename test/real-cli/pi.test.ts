/**
 * Real-CLI lane, Pi: `pi --mode rpc` (its own JSONL protocol, not JSON-RPC), against the
 * scripted model server's Chat Completions dialect through a custom provider.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { lastUserText, type CapturedRequest } from "../../src/testing/model-server/index.js";
import { withRealCli, type CliProcess } from "../../src/testing/real-cli/index.js";
import { describeRealCli, isObject } from "./helpers.js";

type Json = Record<string, unknown>;

/** Sends a command and resolves with its response (correlated by id). */
async function command(proc: CliProcess, id: string, payload: Json): Promise<Json> {
  proc.send({ id, ...payload });
  const response = await proc.waitFor<Json>((m) => isObject(m) && m.type === "response" && m.id === id, { what: `response ${id}` });
  expect(response.success).toBe(true);
  return response;
}

/** Prompts and resolves with the run's events up to `agent_end`. Pi has no permission system. */
async function runPrompt(proc: CliProcess, message: string): Promise<Json[]> {
  const from = proc.messages.length;
  await command(proc, `prompt-${from}`, { type: "prompt", message });
  const end = await proc.waitForIndex((m) => isObject(m) && m.type === "agent_end", { from, what: "agent_end" });
  return proc.messages.slice(from, end + 1) as Json[];
}

function assistantText(events: Json[]): string {
  const ends = events.filter((e) => e.type === "message_end" && isObject(e.message) && e.message.role === "assistant");
  const last = ends.at(-1)?.message as { content: { type: string; text?: string }[] } | undefined;
  return (last?.content ?? []).filter((c) => c.type === "text").map((c) => c.text ?? "").join("");
}

function modelRequests(requests: readonly CapturedRequest[]): CapturedRequest[] {
  return requests.filter((r) => r.dialect === "chat" && !r.auxiliary);
}

describeRealCli("pi", () => {
  it("streams a scripted text reply and sends the prompt to the model server", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 6 } }] };
    await withRealCli("pi", script, async (ctx) => {
      const proc = await ctx.spawn();
      const state = await command(proc, "state", { type: "get_state" });
      expect(state.data).toMatchObject({ model: { id: ctx.model, provider: "scripted" } });

      const events = await runPrompt(proc, "Say hello to the lane");
      expect(assistantText(events)).toBe("Hello from the scripted model.");
      const deltas = events.filter(
        (e) => e.type === "message_update" && isObject(e.assistantMessageEvent) && e.assistantMessageEvent.type === "text_delta",
      );
      expect(deltas.length).toBeGreaterThan(1);

      const requests = modelRequests(ctx.server.requests);
      expect(requests).toHaveLength(1);
      const [request] = requests as [CapturedRequest];
      expect(request).toMatchObject({ method: "POST", path: "/v1/chat/completions", model: ctx.model, stream: true, status: 200 });
      expect(lastUserText(request)).toBe("Say hello to the lane");
      expect(request.tools).toEqual(expect.arrayContaining(["read", "bash", "edit", "write"]));
    });
  });

  it("runs a scripted bash tool call in the workspace and returns its output to the model", async () => {
    const script = {
      turns: [
        {
          match: { lastUserTextContains: "write the proof file" },
          reply: { toolCalls: [{ id: "call_proof", name: "bash", arguments: { command: "printf 'proof from pi' > proof.txt && echo wrote-proof" } }] },
        },
        { match: { toolResultFor: "call_proof" }, reply: { text: "The proof file is written." } },
      ],
    };
    await withRealCli("pi", script, async (ctx) => {
      const proc = await ctx.spawn();
      const events = await runPrompt(proc, "Please write the proof file");
      expect(await readFile(join(ctx.workspace, "proof.txt"), "utf8")).toBe("proof from pi");
      const toolEnd = events.find((e) => e.type === "tool_execution_end");
      expect(toolEnd).toMatchObject({ toolCallId: "call_proof", toolName: "bash", isError: false });
      expect(assistantText(events)).toBe("The proof file is written.");

      const requests = modelRequests(ctx.server.requests);
      expect(requests).toHaveLength(2);
      const results = (requests[1] as CapturedRequest).messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ callId: "call_proof" });
      expect((results[0] as { text?: string }).text).toContain("wrote-proof");
    });
  });
});
