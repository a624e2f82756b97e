/**
 * The shared body of the real-CLI driver benchmarks (`codex`, `claude`): time to first event of
 * a cold run against a run that claims a prepared standby, and `inspect()` against a bare
 * handshake script, samples alternating between the sides so drifting load hits both alike.
 * The last line printed is one JSON object with the figures.
 */
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";

import { createAgent } from "../src/agent/agent.js";
import type { Driver } from "../src/driver/types.js";
import type { Inspection } from "../src/inspect/types.js";
import { withRealCli, type RealCliContext, type RealCliName } from "../src/testing/real-cli/index.js";
import { percentile } from "./stats.js";

interface Options {
  runs: number;
  warmup: number;
}

export interface StandbyBenchSpec {
  /** Bench and CLI name, e.g. `"codex"`. */
  name: RealCliName & string;
  defaults: Options;
  makeDriver(ctx: RealCliContext): Driver;
  /** The panel `inspect()` must observe for a sample to count. */
  requiredPanel: Exclude<keyof Inspection, "driver">;
  /** The baseline: spawn the same binary and do the minimal handshake, timed. */
  bare: { label: string; key: string; target?: string; time(ctx: RealCliContext): Promise<number> };
}

interface RunSample {
  firstEventMs: number;
  firstDeltaMs: number;
}

function parseArgs(argv: string[], defaults: Options): Options {
  const options: Options = { ...defaults };
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


const round = (n: number): number => Math.round(n * 10) / 10;

function row(label: string, values: number[]): string[] {
  return [label, String(values.length), ...[percentile(values, 50), percentile(values, 95), Math.min(...values), Math.max(...values)].map((v) => round(v).toFixed(1))];
}

function print(rows: string[][]): void {
  const header = ["", "n", "p50 ms", "p95 ms", "min ms", "max ms"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(format(header));
  console.log(widths.map((w) => "─".repeat(w)).join("  "));
  for (const r of rows) console.log(format(r));
}

/** Time from `stream()` to `thread.bound` (the first event both paths emit) and to the first delta. */
async function timedRun(spec: StandbyBenchSpec, ctx: RealCliContext, prepared: boolean): Promise<RunSample> {
  const agent = createAgent(spec.makeDriver(ctx), { workspace: ctx.workspace });
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

async function timedInspect(spec: StandbyBenchSpec, ctx: RealCliContext): Promise<number> {
  const agent = createAgent(spec.makeDriver(ctx), { workspace: ctx.workspace });
  try {
    const start = performance.now();
    const inspection = await agent.inspect();
    const ms = performance.now() - start;
    const panel = inspection[spec.requiredPanel];
    if (panel.status !== "observed") throw new Error(`inspect: ${spec.requiredPanel} ${panel.status}`);
    return ms;
  } finally {
    await agent.close();
  }
}

export async function runStandbyBench(spec: StandbyBenchSpec): Promise<void> {
  const options = parseArgs(process.argv.slice(2), spec.defaults);
  const script = { turns: [{ repeat: true, reply: { text: "ok", usage: null } }] };
  await withRealCli(spec.name, script, async (ctx) => {
    console.log(`${spec.name} driver benchmark — ${ctx.version}, Node ${process.version}, ${availableParallelism()} CPUs, ${options.runs} runs per side after ${options.warmup} warm-up`);
    const cold: RunSample[] = [];
    const prepared: RunSample[] = [];
    const inspect: number[] = [];
    const bare: number[] = [];
    const sample = async (record: boolean, coldFirst: boolean) => {
      const steps = [
        async () => void (record ? cold : []).push(await timedRun(spec, ctx, false)),
        async () => void (record ? prepared : []).push(await timedRun(spec, ctx, true)),
        async () => void (record ? inspect : []).push(await timedInspect(spec, ctx)),
        async () => void (record ? bare : []).push(await spec.bare.time(ctx)),
      ];
      // Alternate which side of each pair goes first.
      const order = coldFirst ? [0, 1, 2, 3] : [1, 0, 3, 2];
      for (const i of order) await steps[i]!();
    };
    for (let i = 0; i < options.warmup; i++) await sample(false, true);
    for (let i = 0; i < options.runs; i++) await sample(true, i % 2 === 0);

    console.log();
    print([
      row("cold run → thread.bound", cold.map((s) => s.firstEventMs)),
      row("prepared run → thread.bound", prepared.map((s) => s.firstEventMs)),
      row("cold run → first delta", cold.map((s) => s.firstDeltaMs)),
      row("prepared run → first delta", prepared.map((s) => s.firstDeltaMs)),
      row("inspect()", inspect),
      row(spec.bare.label, bare),
    ]);
    const standbyRatio = percentile(cold.map((s) => s.firstEventMs), 50) / percentile(prepared.map((s) => s.firstEventMs), 50);
    const standbyRatioP95 = percentile(cold.map((s) => s.firstEventMs), 95) / percentile(prepared.map((s) => s.firstEventMs), 95);
    const inspectRatio = percentile(inspect, 50) / percentile(bare, 50);
    console.log();
    console.log(`standby speed-up (cold ÷ prepared, time to first event) = ${standbyRatio.toFixed(2)}× at p50, ${standbyRatioP95.toFixed(2)}× at p95 (target ≥ 5)`);
    console.log(`inspect ÷ ${spec.bare.label} = ${inspectRatio.toFixed(3)} at p50${spec.bare.target ? ` (target ${spec.bare.target})` : ""}`);
    console.log(`load average at the end ${loadavg().map((l) => l.toFixed(2)).join(" ")} (1/5/15 min)`);
    const stats = (values: number[]) => ({ p50: round(percentile(values, 50)), p95: round(percentile(values, 95)) });
    console.log(
      JSON.stringify({
        bench: spec.name,
        [spec.name]: ctx.version,
        runs: options.runs,
        cold_first_event_ms: stats(cold.map((s) => s.firstEventMs)),
        prepared_first_event_ms: stats(prepared.map((s) => s.firstEventMs)),
        cold_first_delta_ms: stats(cold.map((s) => s.firstDeltaMs)),
        prepared_first_delta_ms: stats(prepared.map((s) => s.firstDeltaMs)),
        inspect_ms: stats(inspect),
        [spec.bare.key]: stats(bare),
        standby_ratio: Math.round(standbyRatio * 100) / 100,
        inspect_ratio: Math.round(inspectRatio * 1000) / 1000,
        load_average: loadavg().map((l) => Math.round(l * 100) / 100),
      }),
    );
  });
}
