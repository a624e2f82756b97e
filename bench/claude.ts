/**
 * The Claude driver on the real Claude Code binary (shipped with the Agent SDK) against the
 * scripted Anthropic Messages server:
 *
 *   npm run bench -- claude [--runs 10] [--warmup 1]
 *
 * 1. Time to first event of a run, cold `run()` against `run()` after `prepare()`. Timed from
 *    `agent.stream()` to `thread.bound` — the first event a Claude run emits (the CLI's
 *    `system/init`, which it sends once it has read the user message), in both paths. The first
 *    `message.delta` is reported too. `prepare()` itself is not timed.
 *    Target: standby ≥ 5× faster (p50 ratio cold ÷ prepared).
 * 2. `agent.inspect()` wall time against a bare initialize script in the same run: spawn the same
 *    binary with the same arguments and environment, write `initialize`, time to its answer.
 *    `inspect()` also asks `mcp_status` and `get_settings` and reaps the process.
 * 3. Turn completion and the warm writer against raw turns on an open connection (written by
 *    hand after `initialize`: a user line, then a second one, each timed to its `result`): a
 *    prepared run to `run.completed`, and a thread's second turn on its warm writer and
 *    relaunched with `--resume`. Target: ≤ 1.1× the raw turn (p50).
 *
 * Everything runs in one isolated config dir (warm after the warm-up); the scripted server
 * answers every request with a short text. Samples alternate between the sides so drifting load
 * hits both alike. The last line printed is one JSON object with the figures.
 */
import { performance } from "node:perf_hooks";

import { claudeDialect } from "../src/drivers/claude/dialect.js";
import { claude, type ClaudeConfig } from "../src/drivers/claude/index.js";
import { buildArgs, commandFor } from "../src/drivers/stream-json/argv.js";
import { Launcher } from "../src/drivers/stream-json/launcher.js";
import { readJsonLines, spawnProcess, writeJsonLine } from "../src/process/index.js";
import { type RealCliContext } from "../src/testing/real-cli/index.js";

import { runStandbyBench, type RawTurns, type TurnSample } from "./standby-bench.js";

const KEY_ENV = "CLAUDE_BENCH_KEY";

function configFor(ctx: RealCliContext): ClaudeConfig {
  const env: Record<string, string | undefined> = { ...ctx.env, [KEY_ENV]: "sk-bench-dummy-key" };
  delete env.ANTHROPIC_BASE_URL;
  delete env.ANTHROPIC_API_KEY;
  return { executable: ctx.executable, configDir: ctx.configDir, model: ctx.model, settingSources: [], provider: { baseUrl: ctx.server.url, apiKeyEnv: KEY_ENV }, env };
}

/** Spawns the CLI the driver would, with the same arguments and environment. */
async function spawnCli(ctx: RealCliContext) {
  const config = configFor(ctx);
  const launcher = new Launcher(claudeDialect, config, ctx.executable);
  const { command, prefix } = commandFor(ctx.executable);
  return spawnProcess({
    command,
    args: [...prefix, ...buildArgs(claudeDialect, config, { policy: {} })],
    cwd: ctx.workspace,
    env: launcher.childEnv(),
    inheritEnv: claudeDialect.inheritEnv,
  });
}

interface Frame {
  type?: string;
  event?: { type?: string };
  response?: { request_id?: string };
}

const INITIALIZE = { type: "control_request", request_id: "bench", request: { subtype: "initialize" } };

/** The baseline: the same spawn and `initialize`, read by hand, nothing else. */
async function timedBareInitialize(ctx: RealCliContext): Promise<number> {
  const start = performance.now();
  const child = await spawnCli(ctx);
  try {
    await writeJsonLine(child.stdin, INITIALIZE);
    for await (const frame of readJsonLines(child.stdout)) {
      const value = frame.kind === "json" ? (frame.value as Frame) : undefined;
      if (value?.type === "control_response" && value.response?.request_id === "bench") return performance.now() - start;
    }
    throw new Error("the CLI ended without answering initialize");
  } finally {
    await child.stop();
  }
}

/**
 * The turn baseline: spawn and `initialize` (not timed), then two user lines one after the other
 * in one session, each timed from its write to the first text delta and to its `result`.
 */
async function timedRawTurns(ctx: RealCliContext): Promise<RawTurns> {
  const child = await spawnCli(ctx);
  const frames = readJsonLines(child.stdout)[Symbol.asyncIterator]();
  const next = async (): Promise<Frame> => {
    for (;;) {
      const read = await frames.next();
      if (read.done) throw new Error("the CLI ended in the middle of a raw turn");
      if (read.value.kind === "json") return read.value.value as Frame;
    }
  };
  const turn = async (text: string): Promise<TurnSample> => {
    const start = performance.now();
    let firstDelta: number | undefined;
    await writeJsonLine(child.stdin, { type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null });
    for (;;) {
      const frame = await next();
      if (frame.type === "stream_event" && frame.event?.type === "content_block_delta") firstDelta ??= performance.now();
      if (frame.type !== "result") continue;
      if (firstDelta === undefined) throw new Error("the raw turn emitted no content_block_delta");
      return { firstDeltaMs: firstDelta - start, completedMs: performance.now() - start };
    }
  };
  try {
    await writeJsonLine(child.stdin, INITIALIZE);
    while ((await next()).response?.request_id !== "bench");
    const first = await turn("Say ok");
    const second = await turn("Say ok again");
    return { first, second };
  } finally {
    await child.stop();
  }
}

await runStandbyBench({
  name: "claude",
  defaults: { runs: 10, warmup: 1 },
  makeDriver: (ctx) => claude(configFor(ctx)),
  requiredPanel: "commands",
  bare: { label: "bare spawn + initialize", key: "bare_initialize_ms", time: timedBareInitialize },
  rawTurns: timedRawTurns,
});
