/**
 * The capability table of docs/drivers/pi.md is what the recorded Pi lane run proved: the doc's
 * block must be the rendering of test/drivers/pi/lane-results.json, every recorded row must be a
 * capability the lane knows, and a capability the run did not prove is shown as not proven.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

import { LANE_RESULTS_PATH, PI_LANE_CAPABILITIES, type PiLaneResults } from "./lane-record.js";

const script = fileURLToPath(new URL("../../../scripts/pi-capabilities.mjs", import.meta.url));
const { render } = (await import(script)) as { render(results: PiLaneResults): string };
const recorded = JSON.parse(readFileSync(LANE_RESULTS_PATH, "utf8")) as PiLaneResults;

describe("pi capability table", () => {
  it("docs/drivers/pi.md holds the table the recorded lane run renders (--check passes)", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [script, "--check"]);
    expect(stdout).toContain("matches the recorded lane results");
  });

  it("the recorded run proved every capability the lane checks", () => {
    expect(recorded.rows.map((r) => r.capability)).toEqual([...PI_LANE_CAPABILITIES]);
    for (const row of recorded.rows) expect(row.evidence).not.toBe("");
  });

  it("shows a capability the run did not prove as not proven, never as supported", () => {
    const partial: PiLaneResults = { ...recorded, rows: recorded.rows.filter((r) => r.capability !== "fork") };
    const forkLine = render(partial).split("\n").find((line) => line.startsWith("| fork |"));
    expect(forkLine).toBe("| fork | **not proven** in the recorded lane run | — |");
  });

  it("refuses a row for a capability the table does not know", () => {
    const odd = { ...recorded, rows: [...recorded.rows, { ...recorded.rows[0]!, capability: "teleport" }] } as unknown as PiLaneResults;
    expect(() => render(odd)).toThrow(/teleport/);
  });
});
