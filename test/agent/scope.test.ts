import { describe, expect, it } from "vitest";
import { createAgent, type CallOptions } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

describe("option scopes", () => {
  it.each(["workspace", "skills", "mcp", "tools", "instructions", "threadStore", "events", "inputLimits", "onInputDiagnostic", "defaults"])(
    "a construction-only option %s passed per call is ConfigError option_scope before anything starts",
    async (key) => {
      const driver = fakeDriver();
      const agent = createAgent(driver);
      const options = { [key]: undefined } as unknown as CallOptions;
      await expect(agent.run("x", options)).rejects.toMatchObject({ code: "option_scope", name: "ConfigError" });
      expect(() => agent.stream("x", options)).toThrow(expect.objectContaining({ code: "option_scope" }));
      expect(driver.probe.calls.run).toBe(0);
      await agent.close();
    },
  );

  it("rejects a timeout call option and points at AbortSignal.timeout", async () => {
    const agent = createAgent(fakeDriver());
    await expect(agent.run("x", { timeout: 5 } as unknown as CallOptions)).rejects.toThrow(/AbortSignal\.timeout/);
    await agent.close();
  });

  it("rejects unknown call options", async () => {
    const agent = createAgent(fakeDriver());
    await expect(agent.run("x", { modle: "typo" } as unknown as CallOptions)).rejects.toMatchObject({ code: "config_invalid" });
    await agent.close();
  });

  it("rejects call options at construction, and inputs as a default", () => {
    expect(() => createAgent(fakeDriver(), { model: "x" } as never)).toThrow(expect.objectContaining({ code: "option_scope" }));
    expect(() => createAgent(fakeDriver(), { defaults: { inputs: [] } } as never)).toThrow(expect.objectContaining({ code: "option_scope" }));
    expect(() => createAgent(fakeDriver(), { defaults: { services: [] } } as never)).toThrow(expect.objectContaining({ code: "option_scope", message: expect.stringContaining("services") }));
    expect(() => createAgent(fakeDriver(), { defaults: { workspace: "/x" } } as never)).toThrow(expect.objectContaining({ code: "option_scope" }));
  });

  it("validates construction options", () => {
    expect(() => createAgent(fakeDriver(), { workspace: "relative/path" })).toThrow(expect.objectContaining({ code: "config_invalid" }));
    expect(() => createAgent(fakeDriver(), { events: { bufferSize: 0 } })).toThrow(expect.objectContaining({ code: "config_invalid" }));
    expect(() => createAgent({} as never)).toThrow(expect.objectContaining({ code: "config_invalid" }));
  });

  it("the types reject construction-only options per call, and so does a run at runtime", async () => {
    // @ts-expect-error workspace is construction-only
    const options: CallOptions = { workspace: "/repo" };
    const agent = createAgent(fakeDriver());
    expect(() => agent.stream("x", options)).toThrow(expect.objectContaining({ code: "option_scope", message: expect.stringContaining("workspace") }));
    await agent.close();
  });
});
