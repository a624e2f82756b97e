/**
 * Stop latency on the real CLIs (Codex app-server, codex-acp, Claude Code, Gemini CLI) against
 * the scripted model server:
 *
 *   npm run bench -- stops [--runs 8] [--warmup 1] [--only codex,claude]
 *
 * The scripted server answers a long text slowly (a delta every 20 ms), so a turn is in flight
 * when the consumer stops at its first `message.delta`, either by `break` or by aborting the
 * run's signal. Timed from the stop to the consumer's loop ending and to the provider's pid being
 * gone; deltas delivered after an abort are counted (a `break` ends delivery by construction).
 * The raw baseline: the same CLI spawned by hand and brought to its first text delta, then
 * SIGTERM to its process group, timed to its pid being gone. Targets: cooperative stops
 * ≤ 50 ms p95 from break to child gone on Codex and codex-acp; on Claude Code and Gemini CLI
 * within 20 ms of the raw SIGTERM-to-exit time of the same run.
 *
 * Sides alternate order every round so drifting load hits all alike. The last line printed is
 * one JSON object with the figures.
 */
import { availableParallelism, loadavg } from "node:os";

import { withRealCli, type RealCliContext, type RealCliScript } from "../src/testing/real-cli/index.js";

import { percentile } from "./stats.js";
import { STOP_CLIS, type StopCli } from "./stops/clis.js";
import { rawSigtermOnce, stopOnce, type StopSample } from "./stops/measure.js";

interface Options {
  runs: number;
  warmup: number;
  only: string[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = { runs: 8, warmup: 1, only: STOP_CLIS.map((c) => c.name) };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const value = inline ?? argv[++i] ?? "";
    if (flag === "--only") options.only = value.split(",");
    else if (flag === "--runs" || flag === "--warmup") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < (flag === "--warmup" ? 0 : 1)) throw new Error(`${flag} needs a positive integer`);
      options[flag === "--runs" ? "runs" : "warmup"] = n;
    } else throw new Error(`unknown option ${flag} (use --runs, --warmup, --only)`);
  }
  const unknown = options.only.filter((name) => !STOP_CLIS.some((c) => c.name === name));
  if (unknown.length > 0) throw new Error(`--only: unknown CLI ${unknown.join(", ")}`);
  return options;
}

/** A long reply dripped slowly: the turn is still streaming whenever the consumer stops. */
const SCRIPT: RealCliScript = {
  turns: [{ repeat: true, reply: { text: "word ".repeat(400), chunkSize: 5, usage: null }, fault: { dripMs: 20 } }],
};

interface Samples {
  break: StopSample[];
  abort: StopSample[];
  raw: number[];
  /** Samples whose process outlived the cap (break, abort, raw). */
  capped: number;
}

async function round(cli: StopCli, ctx: RealCliContext, into: Samples | undefined, forward: boolean): Promise<void> {
  const keepStop = (list: StopSample[], s: StopSample) => {
    if (into === undefined) return;
    list.push(s);
    if (s.goneMs === undefined) into.capped++;
  };
  const steps = [
    async () => keepStop(into?.break ?? [], await stopOnce(cli.makeDriver(ctx), ctx.workspace, "break")),
    async () => keepStop(into?.abort ?? [], await stopOnce(cli.makeDriver(ctx), ctx.workspace, "abort")),
    async () => {
      const ms = await rawSigtermOnce(() => cli.rawTurn(ctx));
      if (into === undefined) return;
      if (ms === undefined) into.capped++;
      else into.raw.push(ms);
    },
  ];
  for (const step of forward ? steps : [...steps].reverse()) await step();
}

const r1 = (n: number): number => Math.round(n * 10) / 10;
const stats = (values: number[]) => (values.length === 0 ? null : { p50: r1(percentile(values, 50)), p95: r1(percentile(values, 95)), max: r1(Math.max(...values)) });
const gone = (list: StopSample[]): number[] => list.flatMap((s) => (s.goneMs === undefined ? [] : [s.goneMs]));

function summarize(cli: StopCli, version: string, s: Samples) {
  const breakGone = stats(gone(s.break));
  const raw = stats(s.raw);
  const target =
    cli.name === "codex" || cli.name === "codex-acp"
      ? { rule: "break → gone ≤ 50 ms p95", met: breakGone !== null && breakGone.p95 <= 50 }
      : { rule: "break → gone within 20 ms of raw SIGTERM → gone (p95)", met: breakGone !== null && raw !== null && breakGone.p95 - raw.p95 <= 20 };
  return {
    cli: cli.name,
    version,
    break_loop_ms: stats(s.break.map((x) => x.loopMs)),
    break_gone_ms: breakGone,
    abort_loop_ms: stats(s.abort.map((x) => x.loopMs)),
    abort_gone_ms: stats(gone(s.abort)),
    abort_deltas_after: s.abort.reduce((n, x) => n + x.deltasAfter, 0),
    raw_sigterm_gone_ms: raw,
    outlived_cap: s.capped,
    target: target.rule,
    met: target.met,
    load_average_after: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

function print(rows: ReturnType<typeof summarize>[]): void {
  const f = (x: { p50: number; p95: number } | null) => (x === null ? "—" : `${x.p50.toFixed(1)} / ${x.p95.toFixed(1)}`);
  const table = rows.map((r) => [r.cli, f(r.break_loop_ms), f(r.break_gone_ms), f(r.abort_loop_ms), f(r.abort_gone_ms), String(r.abort_deltas_after), f(r.raw_sigterm_gone_ms), r.met ? "met" : "MISSED"]);
  const header = ["CLI", "break→loop end", "break→pid gone", "abort→loop end", "abort→pid gone", "deltas after abort", "raw SIGTERM→gone", "target"];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(`\n(p50 / p95 ms)\n${line(header)}\n${widths.map((w) => "─".repeat(w)).join("  ")}`);
  for (const t of table) console.log(line(t));
}

const options = parseArgs(process.argv.slice(2));
const clis = STOP_CLIS.filter((c) => options.only.includes(c.name));
console.log(`stop benchmark — Node ${process.version}, ${availableParallelism()} CPUs, ${options.runs} runs per side after ${options.warmup} warm-up, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
const rows: ReturnType<typeof summarize>[] = [];
for (const cli of clis) {
  const samples: Samples = { break: [], abort: [], raw: [], capped: 0 };
  let version = "";
  await withRealCli(cli.name, SCRIPT, async (ctx) => {
    version = ctx.version;
    console.log(`${cli.name}: ${ctx.version}`);
    for (let i = 0; i < options.warmup; i++) await round(cli, ctx, undefined, true);
    for (let i = 0; i < options.runs; i++) await round(cli, ctx, samples, i % 2 === 0);
  });
  rows.push(summarize(cli, version, samples));
  console.log(`  load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}
print(rows);
const load = loadavg().map((l) => Math.round(l * 100) / 100);
console.log(`load average at the end ${load.join(" ")} (1/5/15 min)`);
console.log(JSON.stringify({ bench: "stops", runs: options.runs, rows, load_average: load }));
