/**
 * The CLIs the stop benchmark drives: how the library's driver is configured for each against
 * the scripted model server, and how the same CLI is brought to its first text delta by hand
 * (the raw baseline that then gets SIGTERM on its process group).
 */
import { codexAcp, gemini } from "../../src/drivers/acp/index.js";
import { claudeDialect } from "../../src/drivers/claude/dialect.js";
import { claude, type ClaudeConfig } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { buildArgs, commandFor } from "../../src/drivers/stream-json/argv.js";
import { Launcher } from "../../src/drivers/stream-json/launcher.js";
import { readJsonLines, spawnProcess, writeJsonLine } from "../../src/process/index.js";
import { SCRIPTED_KEY_ENV, type RealCliContext, type RealCliName } from "../../src/testing/real-cli/index.js";

import { LONG_PROMPT, type PidDriver, type RawTurnInFlight } from "./measure.js";

export interface StopCli {
  name: RealCliName;
  makeDriver(ctx: RealCliContext): PidDriver;
  /** Spawns the CLI by hand and returns once its first text delta of `LONG_PROMPT` arrived. */
  rawTurn(ctx: RealCliContext): Promise<RawTurnInFlight>;
}

const base = (ctx: RealCliContext): string => ctx.server.url.replace(/\/+$/, "");
const WAIT = { timeoutMs: 60_000 };

type Json = Record<string, unknown>;
const field = (value: unknown, key: string): unknown => (typeof value === "object" && value !== null ? (value as Json)[key] : undefined);
const isMethod = (method: string) => (m: unknown) => field(m, "method") === method && field(m, "request") !== true;

/** codex app-server: `initialize`, `thread/start`, `turn/start`, then the first agent-message delta. */
async function rawCodexTurn(ctx: RealCliContext): Promise<RawTurnInFlight> {
  const cli = await ctx.spawnJsonRpc({ jsonrpcField: false });
  await cli.peer.request("initialize", { clientInfo: { name: "bench", title: null, version: "0" }, capabilities: null });
  await cli.peer.notify("initialized");
  const started = await cli.peer.request<{ thread: { id: string } }>("thread/start", { cwd: ctx.workspace });
  await cli.peer.request("turn/start", { threadId: started.thread.id, input: [{ type: "text", text: LONG_PROMPT, text_elements: [] }] });
  await cli.process.waitFor(isMethod("item/agentMessage/delta"), { ...WAIT, what: "item/agentMessage/delta" });
  return { pid: cli.process.pid, close: async () => void (await cli.process.stop()) };
}

/** An ACP agent: `initialize`, `session/new`, `session/prompt` (not awaited), then the first message chunk. */
async function rawAcpTurn(ctx: RealCliContext, env?: Record<string, string>): Promise<RawTurnInFlight> {
  const cli = await ctx.spawnJsonRpc({ jsonrpcField: true }, env === undefined ? {} : { env });
  await cli.peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const session = await cli.peer.request<{ sessionId: string }>("session/new", { cwd: ctx.workspace, mcpServers: [] });
  cli.peer.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: LONG_PROMPT }] }).catch(() => undefined);
  const chunk = (m: unknown) => isMethod("session/update")(m) && field(field(field(m, "params"), "update"), "sessionUpdate") === "agent_message_chunk";
  await cli.process.waitFor(chunk, { ...WAIT, what: "agent_message_chunk" });
  return { pid: cli.process.pid, close: async () => void (await cli.process.stop()) };
}

const CLAUDE_KEY_ENV = "CLAUDE_BENCH_KEY";

function claudeConfig(ctx: RealCliContext): ClaudeConfig {
  const env: Record<string, string | undefined> = { ...ctx.env, [CLAUDE_KEY_ENV]: "sk-bench-dummy-key" };
  delete env.ANTHROPIC_BASE_URL;
  delete env.ANTHROPIC_API_KEY;
  return { executable: ctx.executable, configDir: ctx.configDir, model: ctx.model, settingSources: [], provider: { baseUrl: ctx.server.url, apiKeyEnv: CLAUDE_KEY_ENV }, env };
}

/** Claude Code spawned with the driver's arguments and environment; a user line, then the first text delta. */
async function rawClaudeTurn(ctx: RealCliContext): Promise<RawTurnInFlight> {
  const config = claudeConfig(ctx);
  const { command, prefix } = commandFor(ctx.executable);
  const child = await spawnProcess({
    command,
    args: [...prefix, ...buildArgs(claudeDialect, config, { policy: {} })],
    cwd: ctx.workspace,
    env: new Launcher(claudeDialect, config, ctx.executable).childEnv(),
    inheritEnv: claudeDialect.inheritEnv,
  });
  const frames = readJsonLines(child.stdout)[Symbol.asyncIterator]();
  const close = () => child.stop();
  await writeJsonLine(child.stdin, { type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: LONG_PROMPT }] }, parent_tool_use_id: null });
  for (;;) {
    const read = await frames.next();
    if (read.done) {
      await close();
      throw new Error("Claude Code ended before its first text delta");
    }
    const frame = read.value.kind === "json" ? read.value.value : undefined;
    if (field(frame, "type") === "stream_event" && field(field(frame, "event"), "type") === "content_block_delta") break;
  }
  // Keep draining stdout so the CLI never blocks on a full pipe while it is being stopped.
  void (async () => {
    for (let read = await frames.next(); !read.done; read = await frames.next());
  })().catch(() => undefined);
  return { pid: child.pid, close };
}

export const STOP_CLIS: readonly StopCli[] = [
  {
    name: "codex",
    makeDriver: (ctx) =>
      codex({
        home: ctx.configDir,
        env: ctx.env,
        provider: { id: "bench", baseUrl: `${base(ctx)}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
        args: ["--disable", "plugins"],
      }),
    rawTurn: rawCodexTurn,
  },
  {
    name: "codex-acp",
    makeDriver: (ctx) => codexAcp({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env }),
    rawTurn: (ctx) => rawAcpTurn(ctx),
  },
  {
    name: "claude",
    makeDriver: (ctx) => claude(claudeConfig(ctx)),
    rawTurn: rawClaudeTurn,
  },
  {
    name: "gemini",
    makeDriver: (ctx) => gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env }),
    rawTurn: (ctx) => rawAcpTurn(ctx),
  },
];
