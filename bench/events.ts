/**
 * Normalized events per second through the full pipeline, against raw `JSON.parse` of the same
 * bytes in the same run (DESIGN §14.5).
 *
 *   npm run bench -- events [--n 500000] [--reps 5] [--warmup 1]
 *
 * Pipeline: the fake driver's real child process writes N NDJSON lines
 * `{"event":{"type":"message.delta","itemId":"m1","text":"x"}}` (1024 lines per write); the
 * parent frames them, parses them, checks and stamps each as an event, and a host consumes them
 * with `for await (const e of agent.stream(...))`. Timed from `stream()` to the end of the loop,
 * so it includes starting and reaping the child; the "first → last delta" row leaves those out.
 *
 * Raw: the same bytes, already in memory, split on newlines and `JSON.parse`d line by line.
 * Several ways are timed and the fastest is the baseline.
 *
 * Repetitions alternate between the sides so drifting machine load hits both alike; medians are
 * reported. The last line printed is one JSON object with the figures.
 */
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";

import { createAgent } from "../src/index.js";
import { fakeDriver } from "../src/testing/index.js";
import { formatLoad, int, median } from "./stats.js";

interface Options {
  n: number;
  reps: number;
  warmup: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { n: 500_000, reps: 5, warmup: 1 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const key = flag.replace(/^--/, "");
    if (!(key in options)) throw new Error(`unknown option ${flag} (use --n, --reps, --warmup)`);
    const value = Number((inline ?? argv[++i] ?? "").replaceAll("_", ""));
    if (!Number.isInteger(value) || value < (key === "warmup" ? 0 : 1)) throw new Error(`${flag} needs a positive integer`);
    options[key as keyof Options] = value;
  }
  return options;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

// ---------------------------------------------------------------------------------------------
// Pipeline side: public API only.

interface PipelineSample {
  /** `stream()` to the end of the loop. */
  ms: number;
  /** First delta received to last delta received. */
  steadyMs: number;
}

async function pipelineOnce(n: number): Promise<PipelineSample> {
  const driver = fakeDriver({ process: true, script: { steps: [{ deltas: { count: n, itemId: "m1", text: "x" } }] } });
  const agent = createAgent(driver);
  try {
    let deltas = 0;
    let first = 0;
    let last = 0;
    const start = performance.now();
    for await (const event of agent.stream("bench")) {
      if (event.type === "message.delta") {
        if (++deltas === 1) first = performance.now();
        else if (deltas === n) last = performance.now();
      }
    }
    const end = performance.now();
    if (deltas !== n) throw new Error(`the pipeline delivered ${deltas} of ${n} deltas`);
    return { ms: end - start, steadyMs: n === 1 ? 0 : last - first };
  } finally {
    await agent.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Raw side: the same bytes, in process.

const LINE = `${JSON.stringify({ event: { type: "message.delta", itemId: "m1", text: "x" } })}\n`;

type Parsed = { event?: { type?: string } };

const RAW_METHODS: Record<string, (bytes: Buffer) => number> = {
  "decode once + split + JSON.parse": (bytes) => {
    let count = 0;
    for (const line of bytes.toString("utf8").split("\n")) {
      if (line.length === 0) continue;
      if ((JSON.parse(line) as Parsed).event?.type === "message.delta") count++;
    }
    return count;
  },
  "decode once + indexOf + JSON.parse": (bytes) => {
    const text = bytes.toString("utf8");
    let count = 0;
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; start = nl + 1, nl = text.indexOf("\n", start)) {
      if (nl === start) continue;
      if ((JSON.parse(text.slice(start, nl)) as Parsed).event?.type === "message.delta") count++;
    }
    return count;
  },
  "Buffer indexOf + decode line + JSON.parse": (bytes) => {
    let count = 0;
    let start = 0;
    for (let nl = bytes.indexOf(10); nl >= 0; start = nl + 1, nl = bytes.indexOf(10, start)) {
      if (nl === start) continue;
      if ((JSON.parse(bytes.toString("utf8", start, nl)) as Parsed).event?.type === "message.delta") count++;
    }
    return count;
  },
};

function rawOnce(method: (bytes: Buffer) => number, bytes: Buffer, n: number): number {
  const start = performance.now();
  const count = method(bytes);
  const ms = performance.now() - start;
  if (count !== n) throw new Error(`the raw parse counted ${count} of ${n} deltas`);
  return ms;
}

// ---------------------------------------------------------------------------------------------



async function main(): Promise<void> {
  const { n, reps, warmup } = parseArgs(process.argv.slice(2));
  const bytes = Buffer.from(LINE.repeat(n));
  const loadBefore = loadavg();
  console.log(
    `events: N = ${int(n)} message.delta lines (${(bytes.length / 2 ** 20).toFixed(1)} MiB), ` +
      `${warmup} warm-up + ${reps} alternating repetitions, node ${process.version}, ` +
      `${availableParallelism()} CPUs, load average ${formatLoad(loadBefore)} (1/5/15 min)`,
  );

  const pipeline: PipelineSample[] = [];
  const raw = new Map<string, number[]>(Object.keys(RAW_METHODS).map((name) => [name, []]));
  for (let rep = 0; rep < warmup + reps; rep++) {
    const measured = rep >= warmup;
    gc();
    const sample = await pipelineOnce(n);
    if (measured) pipeline.push(sample);
    for (const [name, method] of Object.entries(RAW_METHODS)) {
      gc();
      const ms = rawOnce(method, bytes, n);
      if (measured) raw.get(name)!.push(ms);
    }
  }
  const loadAfter = loadavg();

  const rows: { name: string; ms: number[] }[] = [
    { name: "pipeline, stream() → loop end", ms: pipeline.map((s) => s.ms) },
    { name: "pipeline, first → last delta", ms: pipeline.map((s) => s.steadyMs) },
    ...[...raw].map(([name, ms]) => ({ name: `raw: ${name}`, ms })),
  ];
  const eps = (ms: number) => (n / ms) * 1000;
  const table = rows.map((row) => {
    const med = median(row.ms);
    return [row.name, int(n), med.toFixed(1), int(eps(med)), `${Math.min(...row.ms).toFixed(1)}–${Math.max(...row.ms).toFixed(1)}`];
  });
  const header = ["", "events", "median ms", "events/s", "range ms"];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log();
  console.log(format(header));
  console.log(widths.map((w) => "─".repeat(w)).join("  "));
  for (const row of table) console.log(format(row));

  const [rawName, rawMs] = [...raw].map(([name, ms]) => [name, median(ms)] as const).sort((a, b) => a[1] - b[1])[0]!;
  const pipelineEps = eps(median(pipeline.map((s) => s.ms)));
  const steadyEps = eps(median(pipeline.map((s) => s.steadyMs)));
  const rawEps = eps(rawMs);
  const ratio = pipelineEps / rawEps;
  console.log();
  console.log(`baseline: raw "${rawName}" (the fastest raw method)`);
  console.log(`ratio pipeline ÷ raw = ${ratio.toFixed(3)} end to end, ${(steadyEps / rawEps).toFixed(3)} first → last delta (target ≥ 0.40)`);
  console.log(`load average at the end ${formatLoad(loadAfter)} (1/5/15 min)`);
  console.log(
    JSON.stringify({
      bench: "events",
      n,
      pipeline_eps: Math.round(pipelineEps),
      raw_eps: Math.round(rawEps),
      ratio: Number(ratio.toFixed(3)),
      node: process.version,
      pipeline_steady_eps: Math.round(steadyEps),
      steady_ratio: Number((steadyEps / rawEps).toFixed(3)),
      raw_method: rawName,
      reps,
      cpus: availableParallelism(),
      loadavg_start: loadBefore.map((v) => Number(v.toFixed(2))),
      loadavg_end: loadAfter.map((v) => Number(v.toFixed(2))),
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
