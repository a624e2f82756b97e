/** `threadWriterIdleMs` is checked at construction: a bad value fails typed and early, naming the option. */
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { fakeDriver } from "../../src/testing/fake-driver/driver.js";

describe("threadWriterIdleMs", () => {
  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "60000"])("refuses %s with config_invalid naming the option", (value) => {
    expect(() => createAgent(fakeDriver(), { threadWriterIdleMs: value as number })).toThrow(
      expect.objectContaining({ code: "config_invalid", message: expect.stringContaining("threadWriterIdleMs") }),
    );
  });

  it("accepts 0 (keep no writer) and a positive integer", () => {
    expect(() => createAgent(fakeDriver(), { threadWriterIdleMs: 0 })).not.toThrow();
    expect(() => createAgent(fakeDriver(), { threadWriterIdleMs: 60_000 })).not.toThrow();
  });

  it("is construction-only: a call that passes it is refused as option_scope", async () => {
    const agent = createAgent(fakeDriver());
    try {
      await expect(agent.run("hi", { threadWriterIdleMs: 0 } as never)).rejects.toMatchObject({ code: "option_scope" });
    } finally {
      await agent.close();
    }
  });
});
