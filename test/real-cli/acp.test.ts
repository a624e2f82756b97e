/**
 * Real-CLI lane, ACP agents (Gemini CLI, Copilot CLI, codex-acp; Qwen Code when installed):
 * Agent Client Protocol JSON-RPC over stdio, each against its own model dialect of the scripted
 * model server.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { lastUserText, type CapturedRequest } from "../../src/testing/model-server/index.js";
import type { JsonRpcPeer } from "../../src/process/index.js";
import {
  isNotification,
  realCliSpec,
  withRealCli,
  type CliProcess,
  type IncomingRequest,
  type RealCliContext,
  type RealCliDirs,
  type RealCliName,
} from "../../src/testing/real-cli/index.js";
import { describeRealCli } from "./helpers.js";

type Json = Record<string, unknown>;

interface AcpCase {
  readonly cli: RealCliName;
  /** The agent's own tool, called by the scripted model, that leaves `proof.txt` in the workspace. */
  readonly toolCall: (dirs: RealCliDirs) => { name: string; arguments: Json };
  readonly proof: string;
  /** Whether the agent asks the client before running that tool in its default mode. */
  readonly asksPermission: boolean;
  /** Arguments after the agent's base args. */
  readonly extraArgs?: readonly string[];
}

const cases: AcpCase[] = [
  {
    cli: "gemini",
    toolCall: () => ({
      name: "run_shell_command",
      arguments: { command: "printf 'proof from gemini' > proof.txt", description: "write the proof file" },
    }),
    proof: "proof from gemini",
    asksPermission: true,
  },
  {
    cli: "qwen",
    toolCall: () => ({ name: "run_shell_command", arguments: { command: "printf 'proof from qwen' > proof.txt" } }),
    proof: "proof from qwen",
    asksPermission: true,
  },
  {
    cli: "copilot",
    toolCall: (dirs) => ({ name: "create", arguments: { path: join(dirs.workspace, "proof.txt"), file_text: "proof from copilot" } }),
    proof: "proof from copilot",
    asksPermission: true,
  },
  {
    cli: "codex-acp",
    // Sandboxed workspace commands run without asking. Codex's shell tool, not its unified exec
    // (`exec_command`), whose end a loaded machine can see reported only after the turn's answer
    // (test/drivers/acp/tool-fields-real-cli.test.ts says how).
    toolCall: () => ({ name: "shell_command", arguments: { command: "printf 'proof from codex-acp' > proof.txt" } }),
    extraArgs: ["-c", "features.unified_exec=false"],
    proof: "proof from codex-acp",
    asksPermission: false,
  },
];

// codex-acp relays codex's "Model metadata for `…` not found" warning as an agent_message_chunk.
const CODEX_METADATA_WARNING = /^Model metadata for `[^`]*` not found/;

interface AcpSession {
  readonly proc: CliProcess;
  readonly peer: JsonRpcPeer;
  readonly sessionId: string;
  readonly permissions: IncomingRequest[];
}

/** Answers permission requests by option kind (ids differ per agent), never by a hard-coded id. */
function allowOnce(request: IncomingRequest): unknown {
  if (request.method !== "session/request_permission") return undefined;
  const options = ((request.params as Json).options ?? []) as { optionId: string; kind: string }[];
  const option = options.find((o) => o.kind === "allow_once") ?? options.find((o) => o.kind === "allow_always");
  return option ? { outcome: { outcome: "selected", optionId: option.optionId } } : { outcome: { outcome: "cancelled" } };
}

async function openSession(ctx: RealCliContext, extraArgs: readonly string[] = []): Promise<AcpSession> {
  const { process: proc, peer, incoming } = await ctx.spawnJsonRpc({ jsonrpcField: true, onRequest: allowOnce }, { extraArgs });
  const init = await peer.request<{ protocolVersion: number }>("initialize", {
    protocolVersion: 1,
    // No fs capability: gemini's write path breaks when readTextFile is advertised.
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  expect(init.protocolVersion).toBe(1);
  const session = await peer.request<{ sessionId: string }>("session/new", { cwd: ctx.workspace, mcpServers: [] });
  return { proc, peer, sessionId: session.sessionId, permissions: incoming };
}

interface PromptOutcome {
  readonly stopReason: string;
  /** All agent text of the turn. */
  readonly text: string;
  /** Agent text after the last tool-call update (copilot narrates a created file as "Info: <path>" first). */
  readonly finalText: string;
  readonly updates: Json[];
}

const chunkText = (updates: Json[]): string =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => String((u.content as Json | undefined)?.text ?? ""))
    .filter((t) => !CODEX_METADATA_WARNING.test(t))
    .join("");

async function prompt(session: AcpSession, text: string): Promise<PromptOutcome> {
  const from = session.proc.messages.length;
  const result = await session.peer.request<{ stopReason: string }>("session/prompt", {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text }],
  });
  const updates = session.proc.messages
    .slice(from)
    .filter((m) => isNotification(m, "session/update"))
    .map((m) => (m as { params: { update: Json } }).params.update);
  const lastTool = updates.findLastIndex((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
  return {
    stopReason: result.stopReason,
    text: chunkText(updates),
    finalText: chunkText(updates.slice(lastTool + 1)),
    updates,
  };
}

function modelRequests(ctx: RealCliContext): CapturedRequest[] {
  return ctx.server.requests.filter((r) => r.dialect === ctx.spec.dialect && !r.auxiliary);
}

for (const c of cases) {
  describeRealCli(c.cli, () => {
    it(`streams a scripted text reply over ACP (${realCliSpec(c.cli).dialect} dialect)`, async () => {
      const script = { turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 6 } }] };
      await withRealCli(c.cli, script, async (ctx) => {
        const session = await openSession(ctx, c.extraArgs);
        const turn = await prompt(session, "Say hello to the lane");
        expect(turn.stopReason).toBe("end_turn");
        expect(turn.text).toBe("Hello from the scripted model.");

        const requests = modelRequests(ctx);
        expect(requests).toHaveLength(1);
        const [request] = requests as [CapturedRequest];
        expect(request).toMatchObject({ method: "POST", model: ctx.model, status: 200 });
        expect(lastUserText(request)).toContain("Say hello to the lane");
        expect(request.tools).toContain(c.toolCall({ home: "", tmp: "", workspace: "" }).name);
      });
    });

    it("runs a scripted tool call in the workspace and returns the result to the model", async () => {
      const script = (dirs: RealCliDirs) => ({
        turns: [
          {
            match: { lastUserTextContains: "write the proof file" },
            reply: { toolCalls: [{ id: "call_proof", ...c.toolCall(dirs) }] },
          },
          { match: { toolResultFor: "call_proof" }, reply: { text: "The proof file is written." } },
        ],
      });
      await withRealCli(c.cli, script, async (ctx) => {
        const session = await openSession(ctx, c.extraArgs);
        const turn = await prompt(session, "Please write the proof file");
        expect(turn.stopReason).toBe("end_turn");
        expect(await readFile(join(ctx.workspace, "proof.txt"), "utf8")).toBe(c.proof);
        expect(turn.finalText).toBe("The proof file is written.");
        const permissions = session.permissions.filter((r) => r.method === "session/request_permission");
        if (c.asksPermission) expect(permissions.length).toBeGreaterThanOrEqual(1);
        else expect(permissions).toEqual([]);
        const toolUpdates = turn.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
        expect(toolUpdates.length).toBeGreaterThanOrEqual(1);

        const requests = modelRequests(ctx);
        expect(requests).toHaveLength(2);
        const results = (requests[1] as CapturedRequest).messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
        expect(results).toHaveLength(1);
        expect(results[0]).toMatchObject({ callId: "call_proof" });
        expect(results[0]).not.toMatchObject({ isError: true });
      });
    });
  });
}
