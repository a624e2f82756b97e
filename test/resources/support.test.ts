/**
 * Refusal before launch: a resource the driver's descriptor does not deliver fails createAgent with
 * FeatureUnsupportedError naming its kind, its name and the driver; no process starts and the
 * driver is never called.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, FeatureUnsupportedError, hostTool, type AgentOptions, type ResourceSupport } from "../../src/index.js";
import { fakeDriver, type FakeDriver } from "../../src/testing/index.js";

const ALL: ResourceSupport = { instructions: true, hostTools: true, skills: true, mcp: { stdio: true, http: true } };
const NONE: ResourceSupport = { instructions: false, hostTools: false, skills: false, mcp: { stdio: false, http: false } };

/** A process-backed fake driver whose descriptor declares `resources` (undefined: no declaration at all). */
function declaring(resources: ResourceSupport | undefined): FakeDriver {
  if (resources) return fakeDriver({ process: true, prepare: "ready", resources });
  const inner = fakeDriver({ process: true, prepare: "ready" });
  return {
    ...inner,
    descriptor: () => {
      const { resources: _declared, ...rest } = inner.descriptor();
      return rest as ReturnType<FakeDriver["descriptor"]>;
    },
  };
}

const drivers: FakeDriver[] = [];
afterEach(async () => {
  for (const driver of drivers.splice(0)) {
    expect(driver.probe.startedPids()).toEqual([]);
    await driver.close();
  }
});

function refused(resources: ResourceSupport | undefined, options: AgentOptions): FeatureUnsupportedError {
  const driver = declaring(resources);
  drivers.push(driver);
  try {
    createAgent(driver, options);
  } catch (error) {
    expect(driver.probe.calls).toEqual({ inspect: 0, prepare: 0, run: 0, close: 0 });
    expect(error).toBeInstanceOf(FeatureUnsupportedError);
    return error as FeatureUnsupportedError;
  }
  throw new Error("createAgent accepted a resource the driver does not deliver");
}

const skill = { name: "greeter", description: "Greets.", files: { "SKILL.md": "Say hello." } };
const lookup = hostTool({ name: "lookup", inputSchema: { type: "object" }, handler: () => "found" });
const stdio = { name: "local", command: process.execPath, args: ["-e", ""] };
const http = { name: "remote", url: "https://example.test/mcp" };

describe("resources the driver does not deliver are refused at createAgent", () => {
  it.each([
    ["instructions", { instructions: "Be brief." }, { ...ALL, instructions: false }, "instructions", { kind: "instructions" }, "driver fake does not support instructions"],
    ["instruction bundles", { instructions: [{ name: "a", text: "Be brief." }] }, { ...ALL, instructions: false }, "instructions", { kind: "instructions" }, "driver fake does not support instructions"],
    ["a host tool", { tools: [lookup] }, { ...ALL, hostTools: false }, "host tools", { kind: "tool", name: "lookup" }, 'driver fake does not support host tools (tool "lookup")'],
    ["a skill", { skills: [skill] }, { ...ALL, skills: false }, "skills", { kind: "skill", name: "greeter" }, 'driver fake does not support skills (skill "greeter")'],
    ["a stdio MCP server", { mcp: [http, stdio] }, { ...ALL, mcp: { stdio: false, http: true } }, "MCP servers over stdio", { kind: "mcp", name: "local" }, 'driver fake does not support MCP servers over stdio (mcp "local")'],
    ["an HTTP MCP server", { mcp: [stdio, http] }, { ...ALL, mcp: { stdio: true, http: false } }, "MCP servers over HTTP", { kind: "mcp", name: "remote" }, 'driver fake does not support MCP servers over HTTP (mcp "remote")'],
    ["anything, by a driver declaring no resources", { skills: [skill] }, undefined, "skills", { kind: "skill", name: "greeter" }, 'driver fake does not support skills (skill "greeter")'],
  ] as const)("%s", (_what, options, support, feature, resource, message) => {
    const error = refused(support, options as AgentOptions);
    expect(error.code).toBe("feature_unsupported");
    expect(error.feature).toBe(feature);
    expect(error.driver).toBe("fake");
    expect(error.resource).toEqual(resource);
    expect(error.message).toBe(message);
  });

  it("refuses a run adding services when the driver cannot offer host tools; the agent stays usable", async () => {
    const driver = declaring({ ...ALL, hostTools: false });
    drivers.push(driver);
    const agent = createAgent(driver);
    try {
      const error = await agent.run("x", { services: [lookup] }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(FeatureUnsupportedError);
      expect(error).toMatchObject({ feature: "run-scoped services (host tools)", driver: "fake", resource: { kind: "service", name: "lookup" } });
      expect(driver.probe.calls.run).toBe(0);
      expect((await agent.run("x", { services: [] })).text).toBe("ok");
    } finally {
      await agent.close();
    }
    drivers.pop();
    await driver.close();
  });

  it("names the first kind missing when several are", () => {
    const error = refused(NONE, { instructions: "x", skills: [skill], mcp: [stdio] });
    expect(error.resource).toEqual({ kind: "instructions" });
  });

  it("accepts what the driver delivers, an HTTP server where the provider must advertise it, and no resources anywhere", async () => {
    for (const [support, options] of [
      [ALL, { instructions: "x", skills: [skill], mcp: [stdio, http] }],
      [{ ...NONE, mcp: { stdio: false, http: "advertised" } }, { mcp: [http] }],
      [NONE, { instructions: "" }],
      [undefined, {}],
    ] as [ResourceSupport | undefined, AgentOptions][]) {
      const driver = declaring(support);
      const agent = createAgent(driver, options);
      await agent.close();
      await driver.close();
    }
  });
});
