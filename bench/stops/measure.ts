/**
 * One stop sample on a real CLI: a run through `createAgent().stream()` stopped at its first
 * text delta (by `break` or by aborting its signal), timed from the stop to the consumer's loop
 * ending and to the provider's process being gone; and the raw baseline, the same CLI brought
 * to its first delta by hand and sent SIGTERM on its process group.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

import { createAgent } from "../../src/agent/agent.js";
import type { Driver } from "../../src/driver/types.js";

/** A driver that reports the pids it owns (every process-backed driver here does). */
export type PidDriver = Driver & { processes(): { live: number[] } };

export type StopHow = "break" | "abort";

export interface StopSample {
  /** Stop → the consumer's loop has ended. */
  loopMs: number;
  /** Stop → the provider's pid is gone; undefined when it outlived the cap. */
  goneMs: number | undefined;
  /** Deltas delivered to the consumer after the stop. */
  deltasAfter: number;
}

/** The prompt the scripted server answers with a slow, long stream. */
export const LONG_PROMPT = "Tell me a long story";

/** How long a process may take to go before the sample reports it as outliving the stop. */
const GONE_CAP_MS = 3_000;

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "EPERM";
  }
}

/** Polls every millisecond until `pid` is gone or `deadline` (performance.now()) passes. */
export async function goneBy(pid: number, deadline: number): Promise<number | undefined> {
  for (;;) {
    if (isGone(pid)) return performance.now();
    if (performance.now() >= deadline) return undefined;
    await sleep(1);
  }
}

/** A pid that outlived the cap is killed so the next sample starts clean. */
async function reapStraggler(pid: number): Promise<void> {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
  await goneBy(pid, performance.now() + 5_000);
}

/** Runs `LONG_PROMPT`, stops at the first delta and times the stop. */
export async function stopOnce(driver: PidDriver, workspace: string, how: StopHow): Promise<StopSample> {
  const agent = createAgent(driver, { workspace });
  const controller = new AbortController();
  let stoppedAt = 0;
  let pid: number | undefined;
  let deltasAfter = 0;
  try {
    const stream = agent.stream(LONG_PROMPT, { signal: controller.signal });
    for await (const event of stream) {
      if (event.type !== "message.delta") continue;
      if (stoppedAt !== 0) {
        deltasAfter++;
        continue;
      }
      const live = driver.processes().live;
      if (live.length !== 1) throw new Error(`expected one live provider process at the first delta, found ${live.length}`);
      pid = live[0];
      stoppedAt = performance.now();
      if (how === "break") break;
      controller.abort();
    }
    const loopEnd = performance.now();
    await stream.result.catch(() => undefined);
    if (pid === undefined) throw new Error("the run ended before its first delta");
    const goneAt = await goneBy(pid, stoppedAt + GONE_CAP_MS);
    if (goneAt === undefined) await reapStraggler(pid);
    return { loopMs: loopEnd - stoppedAt, goneMs: goneAt === undefined ? undefined : goneAt - stoppedAt, deltasAfter };
  } finally {
    await agent.close();
  }
}

/** A CLI brought to its first delta by hand: its pid and how to let go of it afterwards. */
export interface RawTurnInFlight {
  pid: number;
  close(): Promise<void>;
}

/** SIGTERM to the group of a CLI in the middle of a turn, timed to its pid being gone. */
export async function rawSigtermOnce(start: () => Promise<RawTurnInFlight>): Promise<number | undefined> {
  const turn = await start();
  try {
    const sentAt = performance.now();
    process.kill(-turn.pid, "SIGTERM");
    const goneAt = await goneBy(turn.pid, sentAt + GONE_CAP_MS);
    if (goneAt === undefined) await reapStraggler(turn.pid);
    return goneAt === undefined ? undefined : goneAt - sentAt;
  } finally {
    await turn.close();
  }
}
