/** The kit's evidence builder: one clock, one rounding (0.01 ms), `process` scope by default. */
import { describe, expect, it } from "vitest";

import { evidence, evidenceClock } from "../../../src/driver/kit/evidence.js";

describe("evidence", () => {
  it("rounds a given duration to 0.01 ms and never reports a negative one", () => {
    expect(evidence({ transport: "t", method: "m", durationMs: 12.3456 }).durationMs).toBe(12.35);
    expect(evidence({ transport: "t", method: "m", durationMs: -3 }).durationMs).toBe(0);
  });

  it("measures from a reading of the evidence clock", () => {
    const startedAt = evidenceClock();
    const record = evidence({ transport: "t", method: "m", startedAt });
    expect(record.durationMs).toBeGreaterThanOrEqual(0);
    expect(Math.round(record.durationMs * 100)).toBe(record.durationMs * 100);
  });

  it("defaults the scope to process and names the provider version only when known", () => {
    const plain = evidence({ transport: "t", method: "m", durationMs: 1 });
    expect(plain).toMatchObject({ transport: "t", method: "m", scope: "process", durationMs: 1 });
    expect(plain).not.toHaveProperty("providerVersion");
    expect(Number.isNaN(Date.parse(plain.observedAt))).toBe(false);
    expect(evidence({ transport: "t", method: "m", durationMs: 1, scope: "account", providerVersion: "1.2.3" })).toMatchObject({ scope: "account", providerVersion: "1.2.3" });
  });
});
