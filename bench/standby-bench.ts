/**
 * The shared body of the real-CLI driver benchmarks (`codex`, `claude`): time to first event of
 * a cold run against a run that claims a prepared standby, a thread's second turn on its warm
 * writer against one that relaunches and resumes, both against raw turns written by hand on an
 * open provider connection, and `inspect()` against a bare handshake script, samples alternating
 * between the sides so drifting load hits both alike.
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
  /**
   * The turn baseline: on a spawned and initialized provider connection (not timed), a first turn
   * (binding a new session included) and a second turn of the same session, written by hand and
   * each timed from its first request to the provider's turn end.
   */
  rawTurns?(ctx: RealCliContext): Promise<RawTurns>;
}

/** A turn from its start to the first text delta and to its completion. */
export interface TurnSample {
  firstDeltaMs: number;
  completedMs: number;
}

export interface RawTurns {
  first: TurnSample;
  second: TurnSample;
}

interface RunSample extends TurnSample {
  firstEventMs: number;
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

function row(label: string, values: number[]): string[] | undefined {
  if (values.length === 0) return undefined;
  return [label, String(values.length), ...[percentile(values, 50), percentile(values, 95), Math.min(...values), Math.max(...values)].map((v) => round(v).toFixed(1))];
}

/** Prints the rows that have samples (a bench without a raw turn baseline has none there). */
function printRows(rows: (string[] | undefined)[]): void {
  print(rows.filter((r): r is string[] => r !== undefined));
}

function print(rows: string[][]): void {
  const header = ["", "n", "p50 ms", "p95 ms", "min ms", "max ms"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(format(header));
  console.log(widths.map((w) => "─".repeat(w)).join("  "));
  for (const r of rows) console.log(format(r));
}

/** Time from `stream()` to `thread.bound` (the first event both paths emit), to the first delta and to `run.completed`. */
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
    let completed: number | undefined;
    const stream = agent.stream("Say ok");
    for await (const event of stream) {
      if (event.type === "thread.bound") firstEvent ??= performance.now();
      if (event.type === "message.delta") firstDelta ??= performance.now();
      if (event.type === "run.completed") completed = performance.now();
    }
    await stream.result;
    if (firstEvent === undefined || firstDelta === undefined || completed === undefined) throw new Error("the run emitted no thread.bound, message.delta or run.completed");
    return { firstEventMs: firstEvent - start, firstDeltaMs: firstDelta - start, completedMs: completed - start };
  } finally {
    await agent.close();
  }
}

/**
 * A thread's second turn, from `stream()` to the first delta and to `run.completed`: on the warm
 * writer the first turn left (`warm`), or relaunched and resumed (`threadWriterIdleMs: 0`).
 */
async function timedSecondTurn(spec: StandbyBenchSpec, ctx: RealCliContext, warm: boolean): Promise<TurnSample> {
  const agent = createAgent(spec.makeDriver(ctx), { workspace: ctx.workspace, ...(warm ? {} : { threadWriterIdleMs: 0 }) });
  try {
    const thread = await agent.startThread();
    await thread.run("Say ok");
    const start = performance.now();
    let firstDelta: number | undefined;
    let completed: number | undefined;
    const stream = thread.stream("Say ok again");
    for await (const event of stream) {
      if (event.type === "message.delta") firstDelta ??= performance.now();
      if (event.type === "run.completed") completed = performance.now();
    }
    await stream.result;
    if (firstDelta === undefined || completed === undefined) throw new Error("the second turn emitted no message.delta or no run.completed");
    return { firstDeltaMs: firstDelta - start, completedMs: completed - start };
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

interface Samples {
  cold: RunSample[];
  prepared: RunSample[];
  inspect: number[];
  bare: number[];
  resumed: TurnSample[];
  warm: TurnSample[];
  rawFirst: TurnSample[];
  rawSecond: TurnSample[];
}

/** One round of every side; `forward` alternates which side of each pair goes first. */
async function sampleRound(spec: StandbyBenchSpec, ctx: RealCliContext, into: Samples | undefined, forward: boolean): Promise<void> {
  const keep = <T>(list: (s: Samples) => T[], value: T) => void (into ? list(into).push(value) : undefined);
  const steps = [
    async () => keep((s) => s.cold, await timedRun(spec, ctx, false)),
    async () => keep((s) => s.prepared, await timedRun(spec, ctx, true)),
    async () => keep((s) => s.inspect, await timedInspect(spec, ctx)),
    async () => keep((s) => s.bare, await spec.bare.time(ctx)),
    async () => keep((s) => s.resumed, await timedSecondTurn(spec, ctx, false)),
    async () => keep((s) => s.warm, await timedSecondTurn(spec, ctx, true)),
    async () => {
      if (spec.rawTurns === undefined) return;
      const raw = await spec.rawTurns(ctx);
      keep((s) => s.rawFirst, raw.first);
      keep((s) => s.rawSecond, raw.second);
    },
  ];
  const order = forward ? [0, 1, 2, 3, 4, 5, 6] : [1, 0, 3, 2, 6, 5, 4];
  for (const i of order) await steps[i]!();
}

const p50 = (values: number[]): number => percentile(values, 50);
const ratio = (a: number, b: number, digits = 100): number => Math.round((a / b) * digits) / digits;

function report(spec: StandbyBenchSpec, ctx: RealCliContext, options: Options, s: Samples): void {
  const delta = (list: TurnSample[]) => list.map((t) => t.firstDeltaMs);
  const done = (list: TurnSample[]) => list.map((t) => t.completedMs);
  console.log();
  printRows([
    row("cold run → thread.bound", s.cold.map((r) => r.firstEventMs)),
    row("prepared run → thread.bound", s.prepared.map((r) => r.firstEventMs)),
    row("cold run → first delta", delta(s.cold)),
    row("prepared run → first delta", delta(s.prepared)),
    row("prepared run → run.completed", done(s.prepared)),
    row("raw 1st turn on an open connection → first delta", delta(s.rawFirst)),
    row("raw 1st turn on an open connection → turn end", done(s.rawFirst)),
    row("inspect()", s.inspect),
    row(spec.bare.label, s.bare),
    row("thread 2nd turn, resumed → first delta", delta(s.resumed)),
    row("thread 2nd turn, warm writer → first delta", delta(s.warm)),
    row("raw 2nd turn on an open connection → first delta", delta(s.rawSecond)),
    row("thread 2nd turn, resumed → run.completed", done(s.resumed)),
    row("thread 2nd turn, warm writer → run.completed", done(s.warm)),
    row("raw 2nd turn on an open connection → turn end", done(s.rawSecond)),
  ]);
  const standbyRatio = p50(s.cold.map((r) => r.firstEventMs)) / p50(s.prepared.map((r) => r.firstEventMs));
  const standbyRatioP95 = percentile(s.cold.map((r) => r.firstEventMs), 95) / percentile(s.prepared.map((r) => r.firstEventMs), 95);
  const inspectRatio = p50(s.inspect) / p50(s.bare);
  const preparedDone = p50(done(s.prepared)) / p50(done(s.rawFirst));
  const warmDone = p50(done(s.warm)) / p50(done(s.rawSecond));
  const warmSpeedUp = p50(done(s.resumed)) / p50(done(s.warm));
  console.log();
  console.log(`standby speed-up (cold ÷ prepared, time to first event) = ${standbyRatio.toFixed(2)}× at p50, ${standbyRatioP95.toFixed(2)}× at p95 (target ≥ 5)`);
  console.log(`inspect ÷ ${spec.bare.label} = ${inspectRatio.toFixed(3)} at p50${spec.bare.target ? ` (target ${spec.bare.target})` : ""}`);
  if (s.rawFirst.length > 0) {
    console.log(`prepared run → run.completed ÷ raw 1st turn → turn end = ${preparedDone.toFixed(3)} at p50 (target ≤ 1.1)`);
    console.log(`warm 2nd turn → run.completed ÷ raw 2nd turn → turn end = ${warmDone.toFixed(3)} at p50 (target ≤ 1.1)`);
  }
  console.log(`warm writer speed-up (resumed ÷ warm, thread 2nd turn to run.completed) = ${warmSpeedUp.toFixed(2)}× at p50`);
  console.log(`load average at the end ${loadavg().map((l) => l.toFixed(2)).join(" ")} (1/5/15 min)`);
  const stats = (values: number[]) => ({ p50: round(p50(values)), p95: round(percentile(values, 95)) });
  const turn = (list: TurnSample[]) => ({ first_delta: stats(delta(list)), completed: stats(done(list)) });
  console.log(
    JSON.stringify({
      bench: spec.name,
      [spec.name]: ctx.version,
      runs: options.runs,
      cold_first_event_ms: stats(s.cold.map((r) => r.firstEventMs)),
      prepared_first_event_ms: stats(s.prepared.map((r) => r.firstEventMs)),
      cold_first_delta_ms: stats(delta(s.cold)),
      prepared_first_delta_ms: stats(delta(s.prepared)),
      prepared_completed_ms: stats(done(s.prepared)),
      inspect_ms: stats(s.inspect),
      [spec.bare.key]: stats(s.bare),
      raw_first_turn_ms: turn(s.rawFirst),
      resumed_second_turn_ms: turn(s.resumed),
      warm_second_turn_ms: turn(s.warm),
      raw_second_turn_ms: turn(s.rawSecond),
      standby_ratio: ratio(standbyRatio, 1),
      inspect_ratio: ratio(inspectRatio, 1, 1000),
      prepared_done_vs_raw_turn: ratio(preparedDone, 1, 1000),
      warm_turn_vs_raw_turn: ratio(warmDone, 1, 1000),
      warm_writer_speed_up: ratio(warmSpeedUp, 1),
      load_average: loadavg().map((l) => Math.round(l * 100) / 100),
    }),
  );
}

export async function runStandbyBench(spec: StandbyBenchSpec): Promise<void> {
  const options = parseArgs(process.argv.slice(2), spec.defaults);
  const script = { turns: [{ repeat: true, reply: { text: "ok", usage: null } }] };
  await withRealCli(spec.name, script, async (ctx) => {
    console.log(`${spec.name} driver benchmark — ${ctx.version}, Node ${process.version}, ${availableParallelism()} CPUs, ${options.runs} runs per side after ${options.warmup} warm-up`);
    const samples: Samples = { cold: [], prepared: [], inspect: [], bare: [], resumed: [], warm: [], rawFirst: [], rawSecond: [] };
    for (let i = 0; i < options.warmup; i++) await sampleRound(spec, ctx, undefined, true);
    for (let i = 0; i < options.runs; i++) await sampleRound(spec, ctx, samples, i % 2 === 0);
    report(spec, ctx, options, samples);
  });
}
