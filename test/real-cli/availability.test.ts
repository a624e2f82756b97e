import { describe, expect, it } from "vitest";
import { realCliAvailability } from "../../src/testing/real-cli/availability.js";
import { REAL_CLI_NAMES, isRealCliName, realCliSpec } from "../../src/testing/real-cli/registry.js";

describe("real-CLI registry", () => {
  it("knows every name it lists", () => {
    for (const name of REAL_CLI_NAMES) {
      expect(isRealCliName(name)).toBe(true);
      expect(realCliSpec(name).name).toBe(name);
    }
    expect(isRealCliName("nope")).toBe(false);
  });

  it("reports each CLI as available with a version, or unavailable with a reason", () => {
    for (const name of REAL_CLI_NAMES) {
      const a = realCliAvailability(name);
      console.info(`[real-cli] ${name}: ${a.available ? `available, ${a.version} (${a.executable})` : `unavailable — ${a.reason}`}`);
      if (a.available) expect(a.version).not.toBe("");
      else expect(a.reason).not.toBe("");
    }
  });
});
