/**
 * One measurement of one side: a throughput run, a stop run, a slow-consumer memory run. The
 * harness (bench/sdk.ts) decides the order and repetitions.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

import type { FakeInstall } from "./fakes.js";
import { BREAK, type ProviderMode, type Side, type Step } from "./sides.js";

export interface ThroughputSample {
  /** Opening the side to the end of the consumer's loop (spawn, handshake, turn, exit). */
  ms: number;
  /** First delta received to the last. */
  steadyMs: number;
  /**
   * CPU time (user + system) this process spent over `ms`: the consumer's own cost, the
   * provider's excluded. Less sensitive to a shared machine's load than the wall time.
   */
  cpuMs: number;
}

export async function throughputOnce(side: Side, fakes: FakeInstall, n: number): Promise<ThroughputSample> {
  let count = 0;
  let first = 0;
  let last = 0;
  const onDelta = (): Step => {
    if (++count === 1) first = performance.now();
    else if (count === n) last = performance.now();
    return undefined;
  };
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const session = side.open(fakes, { n, mode: "cooperative", pidFile: fakes.pidFile(), signal: new AbortController().signal, onDelta });
  let end: number;
  let cpu: NodeJS.CpuUsage;
  try {
    await session.consume();
    end = performance.now();
    cpu = process.cpuUsage(cpuStart);
  } finally {
    await session.close();
  }
  if (count !== n) throw new Error(`${side.id}: ${count} of ${n} deltas reached the consumer`);
  return { ms: end - start, steadyMs: n === 1 ? 0 : last - first, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** Whether a process has exited: no /proc entry, or a zombie waiting to be reaped. */
export function isGone(pid: number): boolean {
  if (process.platform === "linux") {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return state === "Z" || state === "X";
    } catch {
      return true;
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Polls every millisecond until the process is gone or `deadline` (performance.now()) passes. */
async function goneBy(pid: number, deadline: number): Promise<number | undefined> {
  for (;;) {
    if (isGone(pid)) return performance.now();
    if (performance.now() >= deadline) return undefined;
    await sleep(1);
  }
}

export type StopHow = "break" | "abort";

export interface StopSample {
  /** Stop (break or abort) → the consumer's loop has ended. */
  loopMs: number;
  /** Stop → the provider's pid is gone; undefined when it outlived the cap. */
  goneMs: number | undefined;
  /** Deltas delivered to the consumer after it stopped. */
  deltasAfter: number;
  /** The loop had not ended by the cap. */
  loopCapped: boolean;
}

/** Deltas the provider emits in a stop run: far more than reach the stop point. */
const STOP_RUN_DELTAS = 50_000_000;

export async function stopOnce(side: Side, fakes: FakeInstall, mode: ProviderMode, how: StopHow, stopAfter: number, capMs: number): Promise<StopSample> {
  const controller = new AbortController();
  const pidFile = fakes.pidFile();
  let count = 0;
  let stoppedAt = 0;
  let deltasAfter = 0;
  const onDelta = (): Step => {
    if (stoppedAt !== 0) {
      deltasAfter++;
      return undefined;
    }
    if (++count < stopAfter) return undefined;
    stoppedAt = performance.now();
    if (how === "break") return BREAK;
    controller.abort();
    return undefined;
  };
  const session = side.open(fakes, { n: STOP_RUN_DELTAS, mode, pidFile, signal: controller.signal, onDelta });
  let loopEnd = 0;
  const consumed = session.consume().then(() => void (loopEnd = performance.now()));
  try {
    // Wait for the stop point, then for the loop to end, within the cap.
    while (stoppedAt === 0) {
      const outcome = await Promise.race([consumed.then(() => "ended" as const), sleep(5).then(() => "waiting" as const)]);
      if (outcome === "ended" && stoppedAt === 0) throw new Error(`${side.id}: the turn ended before the stop point`);
    }
    const pid = Number(readFileSync(pidFile, "utf8"));
    const capAt = stoppedAt + capMs;
    const capped = await Promise.race([consumed.then(() => false), sleep(Math.max(0, capAt - performance.now())).then(() => true)]);
    const goneAt = await goneBy(pid, capAt);
    if (goneAt === undefined) {
      // Outlived the cap: end it so the next sample starts clean.
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
      await goneBy(pid, performance.now() + 5_000);
    }
    await consumed;
    return { loopMs: (capped ? capAt : loopEnd) - stoppedAt, goneMs: goneAt === undefined ? undefined : goneAt - stoppedAt, deltasAfter, loopCapped: capped };
  } finally {
    await consumed.catch(() => undefined);
    await session.close();
  }
}

export interface MemorySample {
  /** The process's peak resident set (kernel high-water mark), MiB. */
  peakRssMiB: number;
  /** Resident set before the run, MiB. */
  baseRssMiB: number;
  /** Largest JavaScript heap in use seen (sampled at every pause), MiB. */
  peakHeapMiB: number;
  /** Largest external + array-buffer memory seen (buffered pipe data lives here), MiB. */
  peakExternalMiB: number;
  ms: number;
}

const MiB = 2 ** 20;

/** A slow consumer: pauses `pauseMs` every `every` deltas. Run it in a fresh process. */
export async function memoryOnce(side: Side, fakes: FakeInstall, n: number, every: number, pauseMs: number): Promise<MemorySample> {
  (globalThis as { gc?: () => void }).gc?.();
  const baseRss = process.memoryUsage.rss();
  let peakHeap = 0;
  let peakExternal = 0;
  let count = 0;
  const onDelta = (): Step => {
    if (++count % every !== 0) return undefined;
    const usage = process.memoryUsage();
    if (usage.heapUsed > peakHeap) peakHeap = usage.heapUsed;
    if (usage.external > peakExternal) peakExternal = usage.external;
    return sleep(pauseMs);
  };
  const start = performance.now();
  const session = side.open(fakes, { n, mode: "cooperative", pidFile: fakes.pidFile(), signal: new AbortController().signal, onDelta });
  try {
    await session.consume();
  } finally {
    await session.close();
  }
  const ms = performance.now() - start;
  if (count !== n) throw new Error(`${side.id}: ${count} of ${n} deltas reached the slow consumer`);
  return {
    peakRssMiB: (process.resourceUsage().maxRSS * 1024) / MiB,
    baseRssMiB: baseRss / MiB,
    peakHeapMiB: peakHeap / MiB,
    peakExternalMiB: peakExternal / MiB,
    ms,
  };
}
