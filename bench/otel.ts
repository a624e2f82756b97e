/**
 * What OpenTelemetry costs on the events path when no SDK is registered: the same run through
 * an agent without observers and through one with `openTelemetry()` (the API present, its no-op
 * tracer and meter), in rotating order; the median of each repetition's ratio to its own run
 * without observers (DESIGN §14.5: within ±3 %). A second run without observers gives the noise
 * floor (A/A); a side with an SDK (in-memory exporter) is printed for information.
 *
 *   node scripts/bench.mjs otel [--n 100000] [--tools 1000] [--reps 21] [--warmup 3]
 *
 * The run (in-process fake driver, so no child process adds noise): `tools` tool calls (started
 * and completed) and `n` message deltas, consumed with `for await`.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { openTelemetry } from "../src/bridges/otel/index.js";
import { createAgent, type AgentObserver } from "../src/index.js";
import { fakeDriver, type FakeStep } from "../src/testing/index.js";
import { median } from "./stats.js";

interface Options {
  n: number;
  tools: number;
  reps: number;
  warmup: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { n: 100_000, tools: 1_000, reps: 21, warmup: 3 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const key = flag.replace(/^--/, "");
    if (!(key in options)) throw new Error(`unknown option ${flag} (use --n, --tools, --reps, --warmup)`);
    const value = Number((inline ?? argv[++i] ?? "").replaceAll("_", ""));
    if (!Number.isInteger(value) || value < 0) throw new Error(`${flag} needs a non-negative integer`);
    options[key as keyof Options] = value;
  }
  return options;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

function script(options: Options): FakeStep[] {
  const steps: FakeStep[] = [{ markDelivered: true }];
  for (let i = 0; i < options.tools; i++) {
    steps.push({ emit: { type: "tool.started", callId: `c${i}`, kind: "command", name: "shell", title: `ls ${i}`, command: `ls ${i}` } });
    steps.push({ emit: { type: "tool.completed", callId: `c${i}`, status: "completed", exitCode: 0 } });
  }
  steps.push({ deltas: { count: options.n, itemId: "m1", text: "x" } });
  return steps;
}

async function once(steps: FakeStep[], observers: AgentObserver[] | undefined): Promise<number> {
  const agent = createAgent(fakeDriver({ script: { steps } }), observers ? { observers } : {});
  try {
    gc();
    // CPU time of this process (user + system): the driver is in-process, so this is the whole
    // pipeline, and other processes' load on a shared machine counts far less than in wall time.
    const start = process.cpuUsage();
    let events = 0;
    for await (const _event of agent.stream("bench")) events++;
    const used = process.cpuUsage(start);
    const ms = (used.user + used.system) / 1000;
    if (events < steps.length) throw new Error(`only ${events} events`);
    return ms;
  } finally {
    await agent.close();
  }
}

type Side = "without" | "control" | "noSdk" | "sdk";

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const steps = script(options);
  const noSdk = [await openTelemetry()];
  const exporter = new InMemorySpanExporter();
  const withSdk = [await openTelemetry({ tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) })];
  const observersOf: Record<Side, AgentObserver[] | undefined> = { without: undefined, control: undefined, noSdk, sdk: withSdk };
  const sides: Record<Side, number[]> = { without: [], control: [], noSdk: [], sdk: [] };
  const sequence: Side[] = ["without", "noSdk", "control", "sdk"];
  for (let rep = 0; rep < options.warmup + options.reps; rep++) {
    // Rotate the order so drifting load hits every side alike.
    const order = sequence.map((_, i) => sequence[(i + rep) % sequence.length]!);
    for (const side of order) {
      const ms = await once(steps, observersOf[side]);
      exporter.reset();
      if (rep >= options.warmup) sides[side].push(ms);
    }
  }
  // Each repetition's ratio to its own "without" run, then the median: load drifts between repetitions.
  const ratio = (side: Side) => median(sides[side].map((ms, i) => ms / sides.without[i]!));
  const events = options.n + 2 * options.tools + 3;
  console.log(`events per run: ${events} (${options.n} deltas, ${options.tools} tool calls); ${options.reps} repetitions`);
  console.log(`no observer:                   median ${median(sides.without).toFixed(1)} ms CPU`);
  console.log(`no observer again (A/A noise): median ratio ${ratio("control").toFixed(3)}`);
  console.log(`openTelemetry(), no SDK:       median ratio ${ratio("noSdk").toFixed(3)}`);
  console.log(`openTelemetry(), SDK (info):   median ratio ${ratio("sdk").toFixed(3)}`);
  console.log(JSON.stringify({ events, reps: options.reps, withoutMs: median(sides.without), controlRatio: ratio("control"), noSdkRatio: ratio("noSdk"), sdkRatio: ratio("sdk") }));
}

await main();
