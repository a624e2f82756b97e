/**
 * Real-CLI lane, Codex: `codex app-server` JSON-RPC over stdio, against the scripted model
 * server's OpenAI Responses dialect.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { lastUserText, type CapturedRequest } from "../../src/testing/model-server/index.js";
import type { JsonRpcPeer } from "../../src/process/index.js";
import {
  isNotification,
  notificationsOf,
  withRealCli,
  type CliProcess,
  type RealCliContext,
} from "../../src/testing/real-cli/index.js";
import { describeRealCli } from "./helpers.js";

interface Item {
  type: string;
  id: string;
  text?: string;
  status?: string;
  exitCode?: number | null;
  aggregatedOutput?: string | null;
}

interface Session {
  readonly proc: CliProcess;
  readonly peer: JsonRpcPeer;
  readonly threadId: string;
}

/** Starts app-server, performs the handshake and opens a thread in the workspace. */
async function openThread(ctx: RealCliContext): Promise<Session> {
  // Nothing in these scripts needs approval (approval_policy = "never"); any request is refused.
  const { process: proc, peer } = await ctx.spawnJsonRpc({ jsonrpcField: false });
  const init = await peer.request<{ userAgent: string }>("initialize", {
    clientInfo: { name: "agent_adaptor_lane", title: null, version: "0.0.0" },
    capabilities: null,
  });
  expect(init.userAgent).toContain("agent_adaptor_lane");
  await peer.notify("initialized");
  const started = await peer.request<{ thread: { id: string }; model: string }>("thread/start", { cwd: ctx.workspace });
  expect(started.model).toBe(ctx.model);
  return { proc, peer, threadId: started.thread.id };
}

/** Runs one turn and resolves with its completed items, final status and text deltas. */
async function runTurn(session: Session, text: string): Promise<{ items: Item[]; status: string; deltas: string[] }> {
  const { proc, peer, threadId } = session;
  const from = proc.messages.length;
  await peer.request("turn/start", { threadId, input: [{ type: "text", text }] });
  const done = await proc.waitFor<{ params: { turn: { status: string; error: unknown } } }>(
    (m) => isNotification(m, "turn/completed"),
    { from, what: "turn/completed" },
  );
  expect(done.params.turn.error).toBeNull();
  return {
    items: notificationsOf<{ item: Item }>(proc, "item/completed", from).map((p) => p.item),
    status: done.params.turn.status,
    deltas: notificationsOf<{ delta: string }>(proc, "item/agentMessage/delta", from).map((p) => p.delta),
  };
}

function modelRequests(requests: readonly CapturedRequest[]): CapturedRequest[] {
  return requests.filter((r) => r.dialect === "responses" && !r.auxiliary);
}

describeRealCli("codex", () => {
  it("streams a scripted text reply and sends the prompt to the model server", async () => {
    const script = { turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 7 } }] };
    await withRealCli("codex", script, async (ctx) => {
      const session = await openThread(ctx);
      const { items, status, deltas } = await runTurn(session, "Say hello to the lane");

      expect(status).toBe("completed");
      const agent = items.filter((i) => i.type === "agentMessage");
      expect(agent.map((i) => i.text)).toEqual(["Hello from the scripted model."]);
      expect(deltas.join("")).toBe("Hello from the scripted model.");
      expect(deltas.length).toBeGreaterThan(1);

      const requests = modelRequests(ctx.server.requests);
      expect(requests).toHaveLength(1);
      const [request] = requests as [CapturedRequest];
      expect(request).toMatchObject({ method: "POST", path: "/v1/responses", model: ctx.model, stream: true, status: 200 });
      expect(lastUserText(request)).toBe("Say hello to the lane");
      expect(request.tools).toContain("exec_command");
      // CODEX_HOME lives outside the child's TMPDIR, so codex creates its sandbox helpers.
      expect(session.proc.stderr).not.toContain("Refusing to create helper binaries");
    });
  });

  it("runs a scripted exec_command in the workspace and returns its output to the model", async () => {
    const script = {
      turns: [
        {
          match: { lastUserTextContains: "write the proof file" },
          reply: {
            toolCalls: [
              { id: "call_proof", name: "exec_command", arguments: { cmd: "printf 'proof from codex' > proof.txt && echo wrote-proof" } },
            ],
          },
        },
        { match: { toolResultFor: "call_proof" }, reply: { text: "The proof file is written." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const session = await openThread(ctx);
      const { items, status } = await runTurn(session, "Please write the proof file");

      expect(status).toBe("completed");
      expect(await readFile(join(ctx.workspace, "proof.txt"), "utf8")).toBe("proof from codex");
      const command = items.find((i) => i.type === "commandExecution");
      expect(command).toMatchObject({ id: "call_proof", status: "completed", exitCode: 0 });
      expect(command?.aggregatedOutput).toContain("wrote-proof");
      expect(items.filter((i) => i.type === "agentMessage").map((i) => i.text)).toEqual(["The proof file is written."]);

      const requests = modelRequests(ctx.server.requests);
      expect(requests).toHaveLength(2);
      const followUp = requests[1] as CapturedRequest;
      const results = followUp.messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ callId: "call_proof" });
      expect((results[0] as { text?: string }).text).toContain("wrote-proof");
    });
  });
});
