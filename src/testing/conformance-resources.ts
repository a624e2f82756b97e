/**
 * The conformance kit's resource checks: a driver's `descriptor().resources` is well formed;
 * every kind it does not deliver is refused with `FeatureUnsupportedError` before the driver is
 * called (so no process starts); and, with the `resources` fixture, every kind it does deliver
 * reaches the model (its marker is in what the model received).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createAgent } from "../agent/agent.js";
import type { AgentOptions } from "../agent/options.js";
import type { Driver, ResourceSupport } from "../driver/types.js";
import type { HostTool } from "../driver/vocabulary.js";
import { FeatureUnsupportedError, type UnsupportedResourceKind } from "../errors/index.js";
import { countingDriver } from "./conformance-probes.js";

/** What the resource checks need of the suite's fixtures. */
export interface ResourceCheckFixtures {
  runner: { it(name: string, body: () => Promise<void>, timeoutMs?: number): unknown };
  agentOptions?: AgentOptions;
  textRun: { prompt: string };
  livePids?: (driver: Driver) => number[];
  resources?: { received: () => Promise<string> | string };
}

/** One resource of each kind, and whether a declaration delivers it. */
interface ResourceProbe {
  kind: UnsupportedResourceKind;
  label: string;
  delivered(support: ResourceSupport): boolean;
  add(options: AgentOptions): AgentOptions;
}

const probeTool = (description = "Answers ok."): HostTool => ({
  name: "conformance_tool",
  description,
  inputSchema: { type: "object", properties: {} },
  handler: () => "ok",
});

const RESOURCE_PROBES: readonly ResourceProbe[] = [
  { kind: "instructions", label: "instructions", delivered: (s) => s.instructions, add: (o) => ({ ...o, instructions: "Be brief." }) },
  { kind: "tool", label: "a host tool", delivered: (s) => s.hostTools, add: (o) => ({ ...o, tools: [...(o.tools ?? []), probeTool()] }) },
  {
    kind: "skill",
    label: "a skill",
    delivered: (s) => s.skills,
    add: (o) => ({ ...o, skills: [...(o.skills ?? []), { name: "conformance-skill", description: "Says ok.", files: { "SKILL.md": "Say ok." } }] }),
  },
  {
    kind: "mcp",
    label: "a stdio MCP server",
    delivered: (s) => s.mcp.stdio,
    add: (o) => ({ ...o, mcp: [...(o.mcp ?? []), { name: "conformance-stdio", command: process.execPath, args: ["-e", ""] }] }),
  },
  {
    kind: "mcp",
    label: "an HTTP MCP server",
    delivered: (s) => s.mcp.http !== false,
    add: (o) => ({ ...o, mcp: [...(o.mcp ?? []), { name: "conformance-http", url: "http://127.0.0.1:9/mcp" }] }),
  },
];

/** Asserts `resources` has the declared shape. */
export function assertResourceSupport(resources: unknown): asserts resources is ResourceSupport {
  const r = resources as Partial<ResourceSupport> | undefined;
  assert.ok(typeof r === "object" && r !== null, "descriptor.resources is an object");
  for (const kind of ["instructions", "hostTools", "skills"] as const) assert.equal(typeof r[kind], "boolean", `descriptor.resources.${kind}`);
  assert.equal(typeof r.mcp?.stdio, "boolean", "descriptor.resources.mcp.stdio");
  assert.ok(typeof r.mcp?.http === "boolean" || r.mcp?.http === "advertised", 'descriptor.resources.mcp.http is a boolean or "advertised"');
}

async function declaredSupport(makeDriver: () => Driver): Promise<ResourceSupport> {
  const driver = makeDriver();
  try {
    const resources = driver.descriptor().resources;
    assertResourceSupport(resources);
    return resources;
  } finally {
    await driver.close();
  }
}

const refusedAs = (kind: UnsupportedResourceKind) => (error: unknown) => error instanceof FeatureUnsupportedError && error.resource?.kind === kind;

/** A refusal of `options` at createAgent, with no call reaching the driver. */
async function assertRefusedAtCreate(makeDriver: () => Driver, fixtures: ResourceCheckFixtures, probe: ResourceProbe): Promise<void> {
  const inner = makeDriver();
  const { driver, calls } = countingDriver(inner);
  try {
    assert.throws(() => createAgent(driver, probe.add(fixtures.agentOptions ?? {})), refusedAs(probe.kind), `${probe.label} is refused with FeatureUnsupportedError`);
    assert.deepEqual(calls, { inspect: 0, prepare: 0, run: 0 }, `refusing ${probe.label} called the driver`);
    if (fixtures.livePids) assert.deepEqual(fixtures.livePids(inner), [], `refusing ${probe.label} started a process`);
  } finally {
    await inner.close();
  }
}

/** A run adding services on a driver without host tools is refused before the driver runs it. */
async function assertServicesRefused(makeDriver: () => Driver, fixtures: ResourceCheckFixtures): Promise<void> {
  const inner = makeDriver();
  const { driver, calls } = countingDriver(inner);
  const agent = createAgent(driver, fixtures.agentOptions ?? {});
  try {
    await assert.rejects(agent.run(fixtures.textRun.prompt, { services: [probeTool()] }), refusedAs("service"), "a run's services are refused");
    assert.equal(calls.run, 0, "a refused run reached the driver");
  } finally {
    await agent.close();
    await inner.close();
  }
}

/** Registers the resource checks of the conformance suite. */
export function registerResourceChecks(makeDriver: () => Driver, fixtures: ResourceCheckFixtures, timeout: number): void {
  const { it } = fixtures.runner;
  it("declares its resources and refuses each kind it does not deliver before calling the driver", async () => {
    const support = await declaredSupport(makeDriver);
    for (const probe of RESOURCE_PROBES) if (!probe.delivered(support)) await assertRefusedAtCreate(makeDriver, fixtures, probe);
    if (!support.hostTools) await assertServicesRefused(makeDriver, fixtures);
  }, timeout);

  const { resources } = fixtures;
  if (resources) {
    it("delivers each resource kind it declares: instructions, host tools and skills reach the model", async () => {
      const support = await declaredSupport(makeDriver);
      const marker = (kind: string) => `conformance-${kind}-${randomUUID().slice(0, 8)}`;
      const markers: Record<string, string> = {};
      let options: AgentOptions = { ...fixtures.agentOptions };
      if (support.instructions) options = { ...options, instructions: `The project word is ${(markers.instructions = marker("instructions"))}.` };
      if (support.hostTools) options = { ...options, tools: [...(options.tools ?? []), probeTool(`Returns ${(markers["host tool"] = marker("tool"))}.`)] };
      if (support.skills) {
        const description = `Use for ${(markers.skill = marker("skill"))}.`;
        options = { ...options, skills: [...(options.skills ?? []), { name: "conformance-skill", description, files: { "SKILL.md": "Say ok." } }] };
      }
      const agent = createAgent(makeDriver(), options);
      try {
        await agent.run(fixtures.textRun.prompt);
      } finally {
        await agent.close();
      }
      const received = await resources.received();
      for (const [kind, value] of Object.entries(markers)) assert.ok(received.includes(value), `the model did not receive the agent's ${kind}`);
    }, timeout);
  }
}
