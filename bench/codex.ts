/**
 * The Codex driver on the real `@openai/codex` CLI against the scripted model server:
 *
 *   npm run bench -- codex [--runs 20] [--warmup 2]
 *
 * 1. Time to first event of a run, cold `run()` against `run()` after `prepare()`. Timed from
 *    `agent.stream()` to `thread.bound` — the first event every Codex run emits, in both paths
 *    (Codex's start-up `configWarning`, when there is one, arrives before the thread on a cold
 *    process but is dropped by an idle standby, so "any first event" would compare different
 *    things). The first `message.delta` is reported too. `prepare()` itself is not timed.
 *    Target: standby ≥ 5× faster (p50 ratio cold ÷ standby).
 * 2. `agent.inspect()` wall time against a bare handshake script in the same run: spawn the same
 *    binary with the same arguments and environment, `initialize`, `model/list`, timed to the
 *    `model/list` answer. Target: inspect ≤ 1.1× the bare handshake (p50 ratio).
 *
 * Everything runs in one isolated Codex home (warm after the warm-up), with the scripted server
 * answering every request with a short text. Samples alternate between the two sides so drifting
 * load hits both alike. The last line printed is one JSON object with the figures.
 */
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";

import { createAgent } from "../src/agent/agent.js";
import { appServerArgs, childEnv, inheritedEnv, resolveCodexConfig, type CodexConfig } from "../src/drivers/codex/config.js";
import { resolveExecutable } from "../src/drivers/codex/executable.js";
import { codex } from "../src/drivers/codex/index.js";
import { JsonRpcPeer, spawnProcess } from "../src/process/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext } from "../src/testing/real-cli/index.js";

interface Options {
  runs: number;
  warmup: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { runs: 20, warmup: 2 };
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

function configFor(ctx: RealCliContext): CodexConfig {
  return {
    home: ctx.configDir,
    env: ctx.env,
    provider: { id: "bench", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
    args: ["--disable", "plugins"],
  };
}

interface RunSample {
  firstEventMs: number;
  firstDeltaMs: number;
}

async function timedRun(ctx: RealCliContext, prepared: boolean): Promise<RunSample> {
  const agent = createAgent(codex(configFor(ctx)), { workspace: ctx.workspace });
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
  const agent = createAgent(codex(configFor(ctx)), { workspace: ctx.workspace });
  try {
    const start = performance.now();
    const inspection = await agent.inspect();
    const ms = performance.now() - start;
    if (inspection.models.status !== "observed") throw new Error(`inspect: models ${inspection.models.status}`);
    return ms;
  } finally {
    await agent.close();
  }
}

/** The baseline: the same spawn, `initialize`, `model/list`, nothing else. */
async function timedBareHandshake(ctx: RealCliContext): Promise<number> {
  const config = resolveCodexConfig(configFor(ctx));
  const executable = resolveExecutable(undefined, ctx.env.PATH);
  if (executable === undefined) throw new Error("the Codex executable was not found");
  const start = performance.now();
  const child = await spawnProcess({
    command: executable.path,
    args: appServerArgs(config, []),
    cwd: ctx.workspace,
    env: childEnv(config, executable.pathDirs).env,
    inheritEnv: inheritedEnv(config),
  });
  const peer = new JsonRpcPeer({ input: child.stdout, output: child.stdin, jsonrpcField: false });
  try {
    await peer.request("initialize", { clientInfo: { name: "bench", title: null, version: "0" }, capabilities: null });
    await peer.notify("initialized");
    await peer.request("model/list", {});
    return performance.now() - start;
  } finally {
    await child.stop();
    await peer.close();
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
  await withRealCli("codex", script, async (ctx) => {
    console.log(`codex driver benchmark — ${ctx.version}, Node ${process.version}, ${availableParallelism()} CPUs, ${options.runs} runs per side after ${options.warmup} warm-up`);
    for (let i = 0; i < options.warmup; i++) {
      await timedRun(ctx, false);
      await timedRun(ctx, true);
      await timedInspect(ctx);
      await timedBareHandshake(ctx);
    }
    const cold: RunSample[] = [];
    const standby: RunSample[] = [];
    const inspect: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      // Alternate which side goes first.
      if (i % 2 === 0) {
        cold.push(await timedRun(ctx, false));
        standby.push(await timedRun(ctx, true));
        inspect.push(await timedInspect(ctx));
        bare.push(await timedBareHandshake(ctx));
      } else {
        standby.push(await timedRun(ctx, true));
        cold.push(await timedRun(ctx, false));
        bare.push(await timedBareHandshake(ctx));
        inspect.push(await timedInspect(ctx));
      }
    }
    const load = loadavg().map((l) => l.toFixed(2)).join(" ");

    console.log();
    print([
      row("cold run → thread.bound", cold.map((s) => s.firstEventMs)),
      row("prepared run → thread.bound", standby.map((s) => s.firstEventMs)),
      row("cold run → first delta", cold.map((s) => s.firstDeltaMs)),
      row("prepared run → first delta", standby.map((s) => s.firstDeltaMs)),
      row("inspect()", inspect),
      row("bare spawn+initialize+model/list", bare),
    ]);
    const standbyRatio = percentile(cold.map((s) => s.firstEventMs), 50) / percentile(standby.map((s) => s.firstEventMs), 50);
    const standbyRatioP95 = percentile(cold.map((s) => s.firstEventMs), 95) / percentile(standby.map((s) => s.firstEventMs), 95);
    const inspectRatio = percentile(inspect, 50) / percentile(bare, 50);
    console.log();
    console.log(`standby speed-up (cold ÷ prepared, time to first event) = ${standbyRatio.toFixed(2)}× at p50, ${standbyRatioP95.toFixed(2)}× at p95 (target ≥ 5)`);
    console.log(`inspect ÷ bare handshake = ${inspectRatio.toFixed(3)} at p50 (target ≤ 1.1)`);
    console.log(`load average at the end ${load} (1/5/15 min)`);
    const stats = (values: number[]) => ({ p50: round(percentile(values, 50)), p95: round(percentile(values, 95)) });
    console.log(
      JSON.stringify({
        bench: "codex",
        codex: ctx.version,
        runs: options.runs,
        cold_first_event_ms: stats(cold.map((s) => s.firstEventMs)),
        prepared_first_event_ms: stats(standby.map((s) => s.firstEventMs)),
        cold_first_delta_ms: stats(cold.map((s) => s.firstDeltaMs)),
        prepared_first_delta_ms: stats(standby.map((s) => s.firstDeltaMs)),
        inspect_ms: stats(inspect),
        bare_handshake_ms: stats(bare),
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
