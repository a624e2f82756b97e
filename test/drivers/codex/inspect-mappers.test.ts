/**
 * The Codex inspection mappers over malformed answers: what is well-formed is kept, a mistyped
 * field is dropped, nothing throws. (The lens they read through is tested in test/driver/lens.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { mapAuth, mapConfiguration, mapModel, mapQuota, mapSkills } from "../../../src/drivers/codex/inspect.js";

describe("codex inspection mappers over malformed answers", () => {
  it("keep what is well-formed and drop mistyped fields instead of throwing", () => {
    expect(mapModel({ model: "gpt-x", displayName: 7, supportedReasoningEfforts: [{ reasoningEffort: "low" }, null, "high"], inputModalities: ["text", 3] })).toEqual({
      id: "gpt-x",
      efforts: [{ id: "low" }],
      inputModalities: ["text"],
    });
    expect(mapModel({ model: 42 })).toBeUndefined();
    expect(mapQuota({ rateLimitsByLimitId: { codex: { primary: { usedPercent: "12" }, secondary: { usedPercent: 40, windowDurationMins: 300 } }, broken: 5 } })).toEqual({
      windows: [{ name: "codex primary" }, { name: "codex secondary", usedPercent: 40, windowMinutes: 300 }],
    });
    expect(mapQuota({ rateLimits: { limitId: "solo", primary: { usedPercent: 5 } }, rateLimitsByLimitId: null })).toEqual({ windows: [{ name: "solo primary", usedPercent: 5 }] });
    expect(mapAuth({ account: { type: "chatgpt", email: 9, planType: "plus" } })).toMatchObject({ status: "observed", value: { signedIn: true, method: "chatgpt", plan: "plus" } });
    expect(mapAuth({ account: "apiKey", requiresOpenaiAuth: true })).toEqual({ signedIn: false, required: true });
    expect(mapSkills({ data: [{ skills: [{ name: "lint", scope: "repo", enabled: "yes" }, { scope: "user" }] }, 3] })).toEqual({ skills: [{ name: "lint", source: "repo" }] });
    expect(mapConfiguration({ config: { model: "m", profile: "fast", profiles: { fast: { model: "f", features: { web: true, bad: "on" } } } } })).toEqual({
      configuration: { model: "m" },
      profile: { name: "fast", model: "f", features: { web: true } },
    });
  });
});
