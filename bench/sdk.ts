/**
 * The official SDKs against this library's drivers and a raw reader, on the same fake providers
 * speaking the real protocols (issue #14 item 1):
 *
 *   npm run bench -- sdk [--n 50000] [--reps 7] [--warmup 1]
 *                        [--memory-n 200000] [--memory-reps 1]
 *                        [--stop-reps 7] [--stubborn-reps 3] [--stop-after 1000] [--stop-cap-ms 15000]
 *                        [--only throughput,memory,stop] [--sides claude-raw,claude-sdk,…] [--full]
 *
 * `--full` sets the sizes: 200 000 deltas per throughput run, 1 000 000 per memory run.
 *
 * Sides (bench/sdk/sides.ts): Claude stream-json — raw reader, claude-agent-sdk `query()`,
 * `claude()`; Codex — raw readers of app-server JSON-RPC and of exec JSONL, codex-sdk (exec),
 * `codex()` (app-server). Fakes: bench/sdk/fixtures, ~244-byte Claude delta frames, batched
 * writes at pipe speed, cooperative or stubborn about stopping.
 *
 * 1. Throughput: one process, sides in alternating order (reversed every other repetition),
 *    heap collected before each run, medians. Ratios against the raw reader of the same wire and
 *    against the official SDK, and the consumer's CPU time per event (this process only).
 * 2. Slow-consumer memory: a fresh process per side and repetition (a peak RSS is per process),
 *    the consumer pausing 1 ms every 1 000 deltas.
 * 3. Stop: after `--stop-after` deltas the consumer breaks out of its loop, or aborts and keeps
 *    reading; timed to the loop's end and to the provider's pid being gone, p50/p95, with the
 *    deltas delivered after the stop. Cooperative and stubborn providers; a provider still alive
 *    at the cap is SIGKILLed by the harness and counted. Stubborn cases default to fewer
 *    repetitions (`--stubborn-reps`): several sides run into the cap every time.
 *
 * The last line printed is one JSON object with the figures.
 */
import { spawnSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";

import { formatLoad, int, median, percentile } from "./stats.js";
import { installFakes, type FakeInstall } from "./sdk/fakes.js";
import { memoryOnce, stopOnce, throughputOnce, type MemorySample, type StopHow, type StopSample, type ThroughputSample } from "./sdk/measure.js";
import { SIDES, type ProviderMode, type Side } from "./sdk/sides.js";
import { printTable } from "./sdk/table.js";

interface Options {
  n: number;
  reps: number;
  warmup: number;
  memoryN: number;
  memoryReps: number;
  stopReps: number;
  stubbornReps: number;
  stopAfter: number;
  stopCapMs: number;
  only: Set<string>;
  sides: Side[];
  memoryChild?: string;
}

const SECTIONS = ["throughput", "memory", "stop"];

function parseArgs(argv: string[]): Options {
  const options: Options = { n: 50_000, reps: 7, warmup: 1, memoryN: 200_000, memoryReps: 1, stopReps: 7, stubbornReps: 3, stopAfter: 1_000, stopCapMs: 15_000, only: new Set(SECTIONS), sides: [...SIDES] };
  const numeric: Record<string, keyof Options> = { n: "n", reps: "reps", warmup: "warmup", "memory-n": "memoryN", "memory-reps": "memoryReps", "stop-reps": "stopReps", "stubborn-reps": "stubbornReps", "stop-after": "stopAfter", "stop-cap-ms": "stopCapMs" };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const key = flag.replace(/^--/, "");
    if (key === "full") {
      options.n = 200_000;
      options.memoryN = 1_000_000;
      continue;
    }
    const value = inline ?? argv[++i] ?? "";
    if (key === "only") {
      options.only = new Set(value.split(","));
      for (const section of options.only) if (!SECTIONS.includes(section)) throw new Error(`--only: unknown section ${section} (${SECTIONS.join(", ")})`);
    } else if (key === "sides") {
      options.sides = value.split(",").map((id) => SIDES.find((side) => side.id === id) ?? fail(`--sides: unknown side ${id} (${SIDES.map((s) => s.id).join(", ")})`));
    } else if (key === "memory-child") {
      options.memoryChild = value;
    } else if (key in numeric) {
      const number = Number(value.replaceAll("_", ""));
      if (!Number.isInteger(number) || number < (key === "warmup" ? 0 : 1)) throw new Error(`${flag} needs a positive integer`);
      (options as unknown as Record<string, number>)[numeric[key]!] = number;
    } else {
      throw new Error(`unknown option ${flag}`);
    }
  }
  return options;
}

function fail(message: string): never {
  throw new Error(message);
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const round = (value: number, digits = 1): number => Number(value.toFixed(digits));
const loadNow = (): number[] => loadavg().map((v) => round(v, 2));

/** Sides in the order of one repetition: as listed, reversed every other time. */
const orderFor = (sides: Side[], rep: number): Side[] => (rep % 2 === 0 ? sides : [...sides].reverse());

// ---------------------------------------------------------------------------------------------

async function throughput(options: Options, fakes: FakeInstall) {
  const loadStart = loadNow();
  const samples = new Map<string, ThroughputSample[]>(options.sides.map((side) => [side.id, []]));
  for (let rep = 0; rep < options.warmup + options.reps; rep++) {
    for (const side of orderFor(options.sides, rep)) {
      gc();
      const sample = await throughputOnce(side, fakes, options.n);
      if (rep >= options.warmup) samples.get(side.id)!.push(sample);
    }
  }
  const loadEnd = loadNow();
  const eps = (ms: number) => (options.n / ms) * 1000;
  const figures = new Map(
    options.sides.map((side) => {
      const list = samples.get(side.id)!;
      const cpuUsPerEvent = (median(list.map((s) => s.cpuMs)) * 1000) / options.n;
      return [side.id, { side, eps: eps(median(list.map((s) => s.ms))), steadyEps: eps(median(list.map((s) => s.steadyMs))), cpuUsPerEvent, ms: list.map((s) => s.ms) }];
    }),
  );
  const rawOf = (side: Side) => figures.get(side.wire === "stream-json" ? "claude-raw" : side.wire === "app-server" ? "codex-raw-app-server" : "codex-raw-exec");
  const sdkOf = (side: Side) => figures.get(side.protocol === "claude" ? "claude-sdk" : "codex-sdk");
  const ratio = (a: number, b: number | undefined) => (b === undefined ? null : round(a / b, 2));
  const rows = [...figures.values()].map(({ side, eps: e, steadyEps, cpuUsPerEvent, ms }) => ({
    side: side.id,
    events_per_s: Math.round(e),
    steady_events_per_s: Math.round(steadyEps),
    vs_raw: ratio(e, rawOf(side)?.eps),
    vs_sdk: ratio(e, sdkOf(side)?.eps),
    cpu_us_per_event: round(cpuUsPerEvent, 2),
    range_ms: [round(Math.min(...ms)), round(Math.max(...ms))],
  }));
  console.log(`\nthroughput: ${int(options.n)} deltas per run, ${options.warmup} warm-up + ${options.reps} alternating repetitions, load ${formatLoad(loadStart)} → ${formatLoad(loadEnd)}`);
  printTable(
    ["side", "events/s", "first→last/s", "vs raw (same wire)", "vs SDK", "consumer CPU µs/event", "range ms"],
    rows.map((r) => [`${figures.get(r.side)!.side.label} [${r.side}]`, int(r.events_per_s), int(r.steady_events_per_s), String(r.vs_raw ?? "–"), String(r.vs_sdk ?? "–"), r.cpu_us_per_event.toFixed(2), `${r.range_ms[0]}–${r.range_ms[1]}`]),
  );
  return { n: options.n, reps: options.reps, warmup: options.warmup, loadavg_start: loadStart, loadavg_end: loadEnd, rows };
}

// ---------------------------------------------------------------------------------------------

const EVERY = 1_000;
const PAUSE_MS = 1;

function memoryInChild(side: Side, n: number): MemorySample {
  const child = spawnSync(process.execPath, ["--expose-gc", process.argv[1]!, "--memory-child", side.id, "--memory-n", String(n)], { encoding: "utf8", maxBuffer: 16 * 2 ** 20 });
  const last = child.stdout.trim().split("\n").at(-1) ?? "";
  if (child.status !== 0) throw new Error(`memory run of ${side.id} failed: ${child.stderr.trim().split("\n").slice(-5).join(" | ")}`);
  return JSON.parse(last) as MemorySample;
}

function memory(options: Options) {
  const loadStart = loadNow();
  const samples = new Map<string, MemorySample[]>(options.sides.map((side) => [side.id, []]));
  for (let rep = 0; rep < options.memoryReps; rep++) {
    for (const side of orderFor(options.sides, rep)) samples.get(side.id)!.push(memoryInChild(side, options.memoryN));
  }
  const loadEnd = loadNow();
  const rows = options.sides.map((side) => {
    const list = samples.get(side.id)!;
    const med = (pick: (s: MemorySample) => number) => round(median(list.map(pick)));
    return { side: side.id, peak_rss_mib: med((s) => s.peakRssMiB), rss_growth_mib: med((s) => s.peakRssMiB - s.baseRssMiB), peak_heap_mib: med((s) => s.peakHeapMiB), peak_external_mib: med((s) => s.peakExternalMiB), ms: Math.round(median(list.map((s) => s.ms))) };
  });
  console.log(`\nslow consumer: ${int(options.memoryN)} deltas, a ${PAUSE_MS} ms pause every ${int(EVERY)}, a fresh process per run, ${options.memoryReps} repetition(s), load ${formatLoad(loadStart)} → ${formatLoad(loadEnd)}`);
  printTable(
    ["side", "peak RSS MiB", "RSS growth MiB", "peak heap MiB", "peak external MiB", "run ms"],
    rows.map((r) => [r.side, String(r.peak_rss_mib), String(r.rss_growth_mib), String(r.peak_heap_mib), String(r.peak_external_mib), int(r.ms)]),
  );
  return { n: options.memoryN, pause_every: EVERY, pause_ms: PAUSE_MS, reps: options.memoryReps, loadavg_start: loadStart, loadavg_end: loadEnd, rows };
}

// ---------------------------------------------------------------------------------------------

async function stop(options: Options, fakes: FakeInstall) {
  const loadStart = loadNow();
  const cases: { mode: ProviderMode; how: StopHow }[] = [
    { mode: "cooperative", how: "break" },
    { mode: "cooperative", how: "abort" },
    { mode: "stubborn", how: "break" },
    { mode: "stubborn", how: "abort" },
  ];
  const samples = new Map<string, StopSample[]>();
  const key = (side: Side, mode: ProviderMode, how: StopHow) => `${side.id}|${mode}|${how}`;
  const repsOf = (mode: ProviderMode) => (mode === "stubborn" ? options.stubbornReps : options.stopReps);
  for (let rep = 0; rep < Math.max(options.stopReps, options.stubbornReps); rep++) {
    for (const { mode, how } of cases.filter((c) => rep < repsOf(c.mode))) {
      for (const side of orderFor(options.sides, rep)) {
        gc();
        const sample = await stopOnce(side, fakes, mode, how, options.stopAfter, options.stopCapMs);
        const list = samples.get(key(side, mode, how)) ?? [];
        list.push(sample);
        samples.set(key(side, mode, how), list);
      }
    }
  }
  const loadEnd = loadNow();
  const rows = cases.flatMap(({ mode, how }) =>
    options.sides.map((side) => {
      const list = samples.get(key(side, mode, how))!;
      const gone = list.map((s) => s.goneMs ?? Number.POSITIVE_INFINITY);
      const loop = list.map((s) => s.loopMs);
      const after = list.map((s) => s.deltasAfter);
      const finite = (v: number) => (Number.isFinite(v) ? round(v) : null);
      return {
        side: side.id,
        provider: mode,
        stop: how,
        loop_ms: { p50: round(percentile(loop, 50)), p95: round(percentile(loop, 95)) },
        gone_ms: { p50: finite(percentile(gone, 50)), p95: finite(percentile(gone, 95)) },
        outlived_cap: list.filter((s) => s.goneMs === undefined).length,
        loop_capped: list.filter((s) => s.loopCapped).length,
        deltas_after: { median: median(after), max: Math.max(...after) },
      };
    }),
  );
  const ms = (v: number | null) => (v === null ? `>${int(options.stopCapMs)}` : v.toFixed(1));
  console.log(`\nstop: after ${int(options.stopAfter)} deltas, ${options.stopReps} repetitions (stubborn provider: ${options.stubbornReps}), cap ${int(options.stopCapMs)} ms, load ${formatLoad(loadStart)} → ${formatLoad(loadEnd)}`);
  printTable(
    ["side", "provider", "stop", "→ loop end p50/p95 ms", "→ pid gone p50/p95 ms", "outlived cap", "deltas after stop med/max"],
    rows.map((r) => [r.side, r.provider, r.stop, `${r.loop_ms.p50.toFixed(1)} / ${r.loop_ms.p95.toFixed(1)}`, `${ms(r.gone_ms.p50)} / ${ms(r.gone_ms.p95)}`, `${r.outlived_cap}/${repsOf(r.provider)}`, `${int(r.deltas_after.median)} / ${int(r.deltas_after.max)}`]),
  );
  return { stop_after: options.stopAfter, reps: options.stopReps, stubborn_reps: options.stubbornReps, cap_ms: options.stopCapMs, loadavg_start: loadStart, loadavg_end: loadEnd, rows };
}

// ---------------------------------------------------------------------------------------------

async function memoryChildMain(options: Options): Promise<void> {
  const side = SIDES.find((s) => s.id === options.memoryChild) ?? fail(`unknown side ${options.memoryChild}`);
  const fakes = installFakes();
  try {
    console.log(JSON.stringify(await memoryOnce(side, fakes, options.memoryN, EVERY, PAUSE_MS)));
  } finally {
    fakes.remove();
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.memoryChild !== undefined) return memoryChildMain(options);
  const loadStart = loadNow();
  console.log(
    `sdk: node ${process.version}, ${availableParallelism()} CPUs, load average ${formatLoad(loadStart)} (1/5/15 min); ` +
      `sides: ${options.sides.map((s) => s.id).join(", ")}`,
  );
  const fakes = installFakes();
  const result: Record<string, unknown> = { bench: "sdk", node: process.version, cpus: availableParallelism(), loadavg_start: loadStart };
  try {
    if (options.only.has("throughput")) result.throughput = await throughput(options, fakes);
    if (options.only.has("memory")) result.memory = memory(options);
    if (options.only.has("stop")) result.stop = await stop(options, fakes);
  } finally {
    fakes.remove();
  }
  result.loadavg_end = loadNow();
  console.log(`\nload average at the end ${formatLoad(loadavg())} (1/5/15 min)`);
  console.log(JSON.stringify(result));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
