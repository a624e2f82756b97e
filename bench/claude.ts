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

import { runStandbyBench } from "./standby-bench.js";

const KEY_ENV = "CLAUDE_BENCH_KEY";

function configFor(ctx: RealCliContext): ClaudeConfig {
  const env: Record<string, string | undefined> = { ...ctx.env, [KEY_ENV]: "sk-bench-dummy-key" };
  delete env.ANTHROPIC_BASE_URL;
  delete env.ANTHROPIC_API_KEY;
  return { executable: ctx.executable, configDir: ctx.configDir, model: ctx.model, settingSources: [], provider: { baseUrl: ctx.server.url, apiKeyEnv: KEY_ENV }, env };
}

/** The baseline: the same spawn and `initialize`, read by hand, nothing else. */
async function timedBareInitialize(ctx: RealCliContext): Promise<number> {
  const config = configFor(ctx);
  const launcher = new Launcher(claudeDialect, config, ctx.executable);
  const { command, prefix } = commandFor(ctx.executable);
  const start = performance.now();
  const child = await spawnProcess({
    command,
    args: [...prefix, ...buildArgs(claudeDialect, config, { policy: {} })],
    cwd: ctx.workspace,
    env: launcher.childEnv(),
    inheritEnv: claudeDialect.inheritEnv,
  });
  try {
    await writeJsonLine(child.stdin, { type: "control_request", request_id: "bench", request: { subtype: "initialize" } });
    for await (const frame of readJsonLines(child.stdout)) {
      const value = frame.kind === "json" ? (frame.value as { type?: string; response?: { request_id?: string } }) : undefined;
      if (value?.type === "control_response" && value.response?.request_id === "bench") return performance.now() - start;
    }
    throw new Error("the CLI ended without answering initialize");
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
});
