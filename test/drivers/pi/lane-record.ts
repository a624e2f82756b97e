/**
 * What the Pi real-CLI lane proved, written down by the lane itself so the capability table of
 * docs/drivers/pi.md is generated from a run rather than typed by hand (scripts/pi-capabilities.mjs
 * renders it). Each lane test records its capability only after its assertions passed; a failed
 * or skipped test leaves its row unproven.
 *
 * Recording is opt-in (`PI_LANE_RECORD=1`) so an ordinary or filtered test run never rewrites the
 * checked-in results with a partial set.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

/** Every capability the lane is expected to prove, in table order. */
export const PI_LANE_CAPABILITIES = [
  "inspect",
  "prepare",
  "streaming",
  "usage",
  "tools",
  "cancel",
  "steer",
  "follow-up",
  "resume",
  "resume in a second OS process",
  "fork",
  "inputs",
  "model check",
  "instructions",
  "skills",
  "host tools",
  "MCP servers",
] as const;

export type PiLaneCapability = (typeof PI_LANE_CAPABILITIES)[number];

export interface PiLaneRow {
  capability: PiLaneCapability;
  /** How the driver provides it. */
  support: string;
  /** What the lane observed (captured requests, events, processes). */
  evidence: string;
  /** The lane test that proved it. */
  test: string;
}

export interface PiLaneResults {
  pi: string;
  node: string;
  platform: string;
  date: string;
  rows: PiLaneRow[];
}

export const LANE_RESULTS_PATH = fileURLToPath(new URL("./lane-results.json", import.meta.url));

/**
 * Records one lane file's capabilities. Several files record into the one results file: each
 * replaces the rows of the capabilities it covers (a covered one it did not prove is dropped) and
 * keeps the others' (run the files one after another: `--no-file-parallelism`).
 */
export class PiLaneRecorder {
  readonly #rows = new Map<PiLaneCapability, PiLaneRow>();
  readonly #covers: ReadonlySet<PiLaneCapability> | undefined;
  #version = "";

  /** `covers`: the capabilities this file proves (default: all of them). */
  constructor(covers?: readonly PiLaneCapability[]) {
    this.#covers = covers === undefined ? undefined : new Set(covers);
  }

  /** The Pi version the lane ran (what its version command printed). */
  version(version: string): void {
    this.#version = version.trim();
  }

  /** Records a capability as proved by the running test; call it after the test's assertions. */
  proved(capability: PiLaneCapability, support: string, evidence: string): void {
    this.#rows.set(capability, { capability, support, evidence, test: expect.getState().currentTestName ?? "" });
  }

  /** This file's rows over `earlier` (the results file as it was): rows of capabilities it does not cover are kept. */
  results(earlier?: PiLaneResults): PiLaneResults {
    const kept = new Map((earlier?.rows ?? []).filter((row) => this.#covers !== undefined && !this.#covers.has(row.capability)).map((row) => [row.capability, row]));
    return {
      pi: this.#version || (earlier?.pi ?? ""),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      date: new Date().toISOString().slice(0, 10),
      rows: PI_LANE_CAPABILITIES.flatMap((c) => {
        const row = this.#rows.get(c) ?? kept.get(c);
        return row === undefined ? [] : [row];
      }),
    };
  }

  /** Writes the results when recording was asked for and the lane ran at all. */
  writeIfRequested(): void {
    if (process.env.PI_LANE_RECORD !== "1" || this.#rows.size === 0) return;
    const earlier = existsSync(LANE_RESULTS_PATH) ? (JSON.parse(readFileSync(LANE_RESULTS_PATH, "utf8")) as PiLaneResults) : undefined;
    writeFileSync(LANE_RESULTS_PATH, `${JSON.stringify(this.results(earlier), null, 2)}\n`);
  }
}
