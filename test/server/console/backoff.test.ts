import { describe, expect, it } from "vitest";
import { backoffDelay } from "../../../console/src/backoff.js";

describe("console reconnect backoff", () => {
  const at = (random: number) => (attempt: number) => backoffDelay(attempt, { baseMs: 500, maxMs: 15_000, random: () => random });

  it("doubles from the base and stops at the cap", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map(at(0.999999))).toEqual([500, 1000, 2000, 4000, 8000, 15000, 15000, 15000]);
  });

  it("jitters within the upper half of each step", () => {
    expect([0, 1, 5].map(at(0))).toEqual([250, 500, 7500]);
    for (let attempt = 0; attempt < 10; attempt++) {
      const low = at(0)(attempt);
      const high = at(0.999999)(attempt);
      const mid = at(0.5)(attempt);
      expect(mid).toBeGreaterThanOrEqual(low);
      expect(mid).toBeLessThanOrEqual(high);
    }
  });
});
