/**
 * Append + fan-out throughput of a session's event log on SQLite, against the plain run stream of
 * the same events (issue #18: at least 0.8× of it).
 *
 *   node scripts/bench.mjs session-log [--n 200000] [--reps 5] [--warmup 1] [--subscribers 3] [--delivery batch|event]
 *
 * Plain: `for await (const e of agent.stream(...))` over the fake driver writing N message
 * deltas (its real child process, as bench/events.ts).
 * Logged: the same stream, every event appended to an event log over a SQLite session store (a
 * file in the temp directory) and read by `--subscribers` live subscribers; timed until every
 * subscriber has every event and `flush()` has made them durable. Subscribers read in bursts
 * (`subscribe({ batch: true })`, as the attach server's event stream does) or, with
 * `--delivery event`, one event per step.
 *
 * Both sides are repeated alternately so drifting load hits them alike; medians are reported.
 * Beside wall time, each side's CPU time per event: of the main thread (the event loop; read from
 * /proc on Linux) and of the whole process (with the SQLite writer thread). On a shared machine
 * wall time swings with other work; CPU time is what the log costs. The last line printed is one
 * JSON object with the figures.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import { createAgent } from "../src/index.js";
import { openEventLog } from "../src/session/event-log.js";
import { sqliteSessionStore } from "../src/session/stores/sqlite.js";
import type { SessionStore } from "../src/session/types.js";
import { fakeDriver } from "../src/testing/index.js";
import { formatLoad, int, median } from "./stats.js";

interface Options {
  n: number;
  reps: number;
  warmup: number;
  subscribers: number;
  delivery: "batch" | "event";
}

function parseArgs(argv: string[]): Options {
  const options: Options = { n: 200_000, reps: 5, warmup: 1, subscribers: 3, delivery: "batch" };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const key = flag.replace(/^--/, "");
    const raw = inline ?? argv[++i] ?? "";
    if (key === "delivery") {
      if (raw !== "batch" && raw !== "event") throw new Error("--delivery is batch or event");
      options.delivery = raw;
      continue;
    }
    if (!(key in options)) throw new Error(`unknown option ${flag} (use --n, --reps, --warmup, --subscribers, --delivery)`);
    const value = Number(raw.replaceAll("_", ""));
    if (!Number.isInteger(value) || value < (key === "warmup" ? 0 : 1)) throw new Error(`${flag} needs a positive integer`);
    (options as unknown as Record<string, number>)[key] = value;
  }
  return options;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** CPU ms of the main thread (Linux: its /proc stat, 10 ms ticks), else undefined. */
function mainThreadCpuMs(): number | undefined {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

interface Sample {
  ms: number;
  /** Main thread CPU ms, when readable. */
  mainCpuMs: number | undefined;
  /** Whole-process CPU ms (every thread of this process; not the fake driver's child). */
  cpuMs: number;
}

/** Times `body`: wall, main-thread CPU and process CPU. */
async function measure(body: () => Promise<void>): Promise<Sample> {
  const main = mainThreadCpuMs();
  const cpu = process.cpuUsage();
  const start = performance.now();
  await body();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const mainAfter = mainThreadCpuMs();
  return { ms, mainCpuMs: main === undefined || mainAfter === undefined ? undefined : mainAfter - main, cpuMs: (used.user + used.system) / 1000 };
}

function agentFor(n: number) {
  return createAgent(fakeDriver({ process: true, script: { steps: [{ deltas: { count: n, itemId: "m1", text: "x" } }] } }));
}

/** The plain run stream. */
async function plainOnce(n: number): Promise<Sample> {
  const agent = agentFor(n);
  try {
    let deltas = 0;
    const sample = await measure(async () => {
      for await (const event of agent.stream("bench")) if (event.type === "message.delta") deltas++;
    });
    if (deltas !== n) throw new Error(`plain: ${deltas} of ${n} deltas`);
    return sample;
  } finally {
    await agent.close();
  }
}

let sessions = 0;
/** The same stream through an event log on `store` with `subscribers` live readers. */
async function loggedOnce(n: number, store: SessionStore, subscribers: number, delivery: Options["delivery"]): Promise<Sample> {
  const id = `bench-${++sessions}`;
  await store.create({
    id,
    threadId: id,
    driver: "fake",
    workspace: "/w",
    state: "idle",
    gate: { open: true },
    guardrails: { spentUsd: 0, spentTokens: 0, budget: {} },
    queue: [],
    settings: { idleSleepMs: 0, inboxCap: 100 },
    metadata: {},
  });
  await store.acquireOwner(id, "bench", 600_000);
  const agent = agentFor(n);
  const log = await openEventLog({ store, sessionId: id, owner: "bench" });
  try {
    let counts: number[] = [];
    const sample = await measure(async () => {
      const readers = Array.from({ length: subscribers }, async () => {
        let deltas = 0;
        if (delivery === "batch") {
          for await (const batch of log.subscribe({ batch: true })) {
            for (const entry of batch) if (entry.event.type === "message.delta" && ++deltas === n) return deltas;
          }
          return deltas;
        }
        for await (const entry of log.subscribe()) {
          if (entry.event.type === "message.delta" && ++deltas === n) return deltas;
        }
        return deltas;
      });
      for await (const event of agent.stream("bench")) log.append(event);
      counts = await Promise.all(readers);
      await log.flush();
    });
    if (counts.some((count) => count !== n)) throw new Error(`logged: subscribers got ${counts.join(", ")} of ${n} deltas`);
    return sample;
  } finally {
    await log.close();
    await agent.close();
    await store.delete(id);
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), "aa-bench-session-log-"));
  const store = sqliteSessionStore({ path: join(dir, "sessions.db") });
  const loadBefore = loadavg();
  console.log(
    `session-log: n=${int(options.n)} events, ${options.subscribers} subscribers (${options.delivery} delivery), reps=${options.reps} (+${options.warmup} warmup), ` +
      `${availableParallelism()} CPUs, load average ${formatLoad(loadBefore)} (1/5/15 min)`,
  );
  const plain: Sample[] = [];
  const logged: Sample[] = [];
  try {
    for (let rep = 0; rep < options.warmup + options.reps; rep++) {
      // Alternate which side goes first.
      const order = rep % 2 === 0 ? (["plain", "logged"] as const) : (["logged", "plain"] as const);
      for (const side of order) {
        gc();
        const sample = side === "plain" ? await plainOnce(options.n) : await loggedOnce(options.n, store, options.subscribers, options.delivery);
        if (rep >= options.warmup) (side === "plain" ? plain : logged).push(sample);
      }
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const plainRate = options.n / (median(plain.map((s) => s.ms)) / 1000);
  const loggedRate = options.n / (median(logged.map((s) => s.ms)) / 1000);
  const ratio = loggedRate / plainRate;
  /** Median CPU µs per event of `pick`, 2 decimals (undefined when unreadable). */
  const perEvent = (samples: Sample[], pick: (s: Sample) => number | undefined): number | undefined => {
    const values = samples.map(pick);
    if (values.some((v) => v === undefined)) return undefined;
    return Math.round((median(values as number[]) * 1000 * 100) / options.n) / 100;
  };
  const cpu = {
    plainMainUs: perEvent(plain, (s) => s.mainCpuMs),
    loggedMainUs: perEvent(logged, (s) => s.mainCpuMs),
    plainProcessUs: perEvent(plain, (s) => s.cpuMs),
    loggedProcessUs: perEvent(logged, (s) => s.cpuMs),
  };
  const mainRatio = cpu.plainMainUs !== undefined && cpu.loggedMainUs !== undefined ? cpu.plainMainUs / cpu.loggedMainUs : undefined;
  console.log(`plain run stream:              ${int(plainRate)} events/s (median of ${plain.length})`);
  console.log(`event log on SQLite + fan-out: ${int(loggedRate)} events/s (median of ${logged.length})`);
  console.log(`ratio logged / plain:          ${ratio.toFixed(3)} (target ≥ 0.8)`);
  console.log(
    `CPU µs per event, main thread: plain ${cpu.plainMainUs ?? "?"}, logged ${cpu.loggedMainUs ?? "?"} (plain / logged ${mainRatio?.toFixed(3) ?? "?"}); ` +
      `whole process: plain ${cpu.plainProcessUs}, logged ${cpu.loggedProcessUs}`,
  );
  console.log(`load average after: ${formatLoad(loadavg())}`);
  console.log(JSON.stringify({ n: options.n, subscribers: options.subscribers, delivery: options.delivery, plainRate, loggedRate, ratio, cpuUsPerEvent: cpu, mainCpuRatio: mainRatio, loadBefore, loadAfter: loadavg() }));
}

await main();
