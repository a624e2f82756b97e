/**
 * Shared by the chaos suite: the budget of this run (a bounded part in the default test run, the
 * full run under `CHAOS_FULL=1`), the seed, and the results file each part writes so that
 * `scripts/chaos-report.mjs` can render docs/reliability.md from what the suite measured.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** `npm run test:chaos` sets it; the default run keeps to the bounded CI part. */
export const FULL = process.env.CHAOS_FULL === "1";

/** Fixed unless CHAOS_SEED is given, so a failure replays; fast-check prints it with the counterexample. */
export const SEED = process.env.CHAOS_SEED !== undefined ? Number(process.env.CHAOS_SEED) : 0x5eed_c4a0;

/** Where each part of the suite writes its results (one JSON file per part). */
export const RESULTS_DIR = fileURLToPath(new URL("../../temp/chaos/", import.meta.url));

export interface ResultRow {
  /** What was exercised, e.g. `codex TurnMapper` or `fake child × break × after_first_delta`. */
  subject: string;
  /** How many frames, lifecycles or cases. */
  count: number;
  /** What held, e.g. `no throw, no terminal, heap +3 MiB`. */
  outcome: string;
  /** Wall time of the part, in ms. */
  ms?: number;
}

export interface PartResults {
  part: string;
  mode: "ci" | "full";
  seed: number;
  finishedAt: string;
  rows: ResultRow[];
}

/** Writes one part's results (replacing the previous ones of that part). */
export function writeResults(part: string, rows: ResultRow[]): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const results: PartResults = { part, mode: FULL ? "full" : "ci", seed: SEED, finishedAt: new Date().toISOString(), rows };
  writeFileSync(join(RESULTS_DIR, `${part}.json`), `${JSON.stringify(results, null, 2)}\n`);
}

/** Heap in use after a full collection (vitest runs with --expose-gc), in MiB. */
export function heapMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}
