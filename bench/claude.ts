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
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";

import { createAgent } from "../src/agent/agent.js";
import { claudeDialect } from "../src/drivers/claude/dialect.js";
import { claude, type ClaudeConfig } from "../src/drivers/claude/index.js";
import { buildArgs, commandFor } from "../src/drivers/stream-json/argv.js";
import { Launcher } from "../src/drivers/stream-json/launcher.js";
import { readJsonLines, spawnProcess, writeJsonLine } from "../src/process/index.js";
import { withRealCli, type RealCliContext } from "../src/testing/real-cli/index.js";

interface Options {
  runs: number;
  warmup: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { runs: 10, warmup: 1 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const key = flag.replace(/^--/, "");
    if (!(key in options)) throw new Error(`unknown option ${flag} (use --runs, --warmup)`);
    const value = Number(inline ?? argv[++i] ?? "");
    if (!Number.isInteger(value) || value < (key === "warmup" ? 0 : 1)) throw new Error(`${flag} needs a positive integer`);
    options[key as keyof Options] = value;
  }
  return options;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

const round = (n: number): number => Math.round(n * 10) / 10;
const KEY_ENV = "CLAUDE_BENCH_KEY";

function configFor(ctx: RealCliContext): ClaudeConfig {
  const env: Record<string, string | undefined> = { ...ctx.env, [KEY_ENV]: "sk-bench-dummy-key" };
  delete env.ANTHROPIC_BASE_URL;
  delete env.ANTHROPIC_API_KEY;
  return { executable: ctx.executable, configDir: ctx.configDir, model: ctx.model, settingSources: [], provider: { baseUrl: ctx.server.url, apiKeyEnv: KEY_ENV }, env };
}

interface RunSample {
  firstEventMs: number;
  firstDeltaMs: number;
}

async function timedRun(ctx: RealCliContext, prepared: boolean): Promise<RunSample> {
  const agent = createAgent(claude(configFor(ctx)), { workspace: ctx.workspace });
  try {
    if (prepared) {
      const report = await agent.prepare();
      if (report.process !== "ready") throw new Error(`prepare() reported ${report.process}`);
    }
    const start = performance.now();
    let firstEvent: number | undefined;
    let firstDelta: number | undefined;
    const stream = agent.stream("Say ok");
    for await (const event of stream) {
      if (event.type === "thread.bound") firstEvent ??= performance.now();
      if (event.type === "message.delta") firstDelta ??= performance.now();
    }
    await stream.result;
    if (firstEvent === undefined || firstDelta === undefined) throw new Error("the run emitted no thread.bound or no message.delta");
    return { firstEventMs: firstEvent - start, firstDeltaMs: firstDelta - start };
  } finally {
    await agent.close();
  }
}

async function timedInspect(ctx: RealCliContext): Promise<number> {
  const agent = createAgent(claude(configFor(ctx)), { workspace: ctx.workspace });
  try {
    const start = performance.now();
    const inspection = await agent.inspect();
    const ms = performance.now() - start;
    if (inspection.commands.status !== "observed") throw new Error(`inspect: commands ${inspection.commands.status}`);
    return ms;
  } finally {
    await agent.close();
  }
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

function row(label: string, values: number[]): string[] {
  return [label, String(values.length), round(percentile(values, 50)).toFixed(1), round(percentile(values, 95)).toFixed(1), round(Math.min(...values)).toFixed(1), round(Math.max(...values)).toFixed(1)];
}

function print(rows: string[][]): void {
  const header = ["", "n", "p50 ms", "p95 ms", "min ms", "max ms"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(format(header));
  console.log(widths.map((w) => "─".repeat(w)).join("  "));
  for (const r of rows) console.log(format(r));
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const script = { turns: [{ repeat: true, reply: { text: "ok", usage: null } }] };
  await withRealCli("claude", script, async (ctx) => {
    console.log(`claude driver benchmark — ${ctx.version}, Node ${process.version}, ${availableParallelism()} CPUs, ${options.runs} runs per side after ${options.warmup} warm-up`);
    for (let i = 0; i < options.warmup; i++) {
      await timedRun(ctx, false);
      await timedRun(ctx, true);
      await timedInspect(ctx);
      await timedBareInitialize(ctx);
    }
    const cold: RunSample[] = [];
    const prepared: RunSample[] = [];
    const inspect: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      if (i % 2 === 0) {
        cold.push(await timedRun(ctx, false));
        prepared.push(await timedRun(ctx, true));
        inspect.push(await timedInspect(ctx));
        bare.push(await timedBareInitialize(ctx));
      } else {
        prepared.push(await timedRun(ctx, true));
        cold.push(await timedRun(ctx, false));
        bare.push(await timedBareInitialize(ctx));
        inspect.push(await timedInspect(ctx));
      }
    }

    console.log();
    print([
      row("cold run → thread.bound", cold.map((s) => s.firstEventMs)),
      row("prepared run → thread.bound", prepared.map((s) => s.firstEventMs)),
      row("cold run → first delta", cold.map((s) => s.firstDeltaMs)),
      row("prepared run → first delta", prepared.map((s) => s.firstDeltaMs)),
      row("inspect()", inspect),
      row("bare spawn + initialize", bare),
    ]);
    const standbyRatio = percentile(cold.map((s) => s.firstEventMs), 50) / percentile(prepared.map((s) => s.firstEventMs), 50);
    const standbyRatioP95 = percentile(cold.map((s) => s.firstEventMs), 95) / percentile(prepared.map((s) => s.firstEventMs), 95);
    const inspectRatio = percentile(inspect, 50) / percentile(bare, 50);
    console.log();
    console.log(`standby speed-up (cold ÷ prepared, time to first event) = ${standbyRatio.toFixed(2)}× at p50, ${standbyRatioP95.toFixed(2)}× at p95 (target ≥ 5)`);
    console.log(`inspect ÷ bare initialize = ${inspectRatio.toFixed(3)} at p50`);
    console.log(`load average at the end ${loadavg().map((l) => l.toFixed(2)).join(" ")} (1/5/15 min)`);
    const stats = (values: number[]) => ({ p50: round(percentile(values, 50)), p95: round(percentile(values, 95)) });
    console.log(
      JSON.stringify({
        bench: "claude",
        claude: ctx.version,
        runs: options.runs,
        cold_first_event_ms: stats(cold.map((s) => s.firstEventMs)),
        prepared_first_event_ms: stats(prepared.map((s) => s.firstEventMs)),
        cold_first_delta_ms: stats(cold.map((s) => s.firstDeltaMs)),
        prepared_first_delta_ms: stats(prepared.map((s) => s.firstDeltaMs)),
        inspect_ms: stats(inspect),
        bare_initialize_ms: stats(bare),
        standby_ratio: Math.round(standbyRatio * 100) / 100,
        inspect_ratio: Math.round(inspectRatio * 1000) / 1000,
        load_average: loadavg().map((l) => Math.round(l * 100) / 100),
      }),
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
