import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, createAgent, input, type AgentOptions, type CallOptions, type Driver, type Policy, type RunRequest } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";

const NOT_YET = ["identity", "profile", "profileResources", "hooks", "subagents", "configPatches", "workspaceSpec", "workspaceManager", "skillProviders"];

function configError(pattern: RegExp) {
  return expect.objectContaining({ name: "ConfigError", code: "config_invalid", message: expect.stringMatching(pattern) });
}

/** A fake driver that records every run request. */
function recordingDriver(validatePolicy?: (policy: Policy) => void) {
  const base = fakeDriver({ inputs: { image: { modes: ["native"], mediaTypes: ["image/*"] }, file: { modes: [] }, audio: { modes: [] } } });
  const requests: RunRequest[] = [];
  const driver: Driver = {
    ...base,
    run(request, sink, signal) {
      requests.push(structuredClone({ ...request, approve: undefined, ask: undefined, markDelivered: undefined, registerSecret: undefined, standby: undefined }) as unknown as RunRequest);
      return base.run(request, sink, signal);
    },
    ...(validatePolicy ? { validatePolicy } : {}),
  };
  return { driver, requests, probe: base.probe };
}

let dir: string;
let imagePath: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "aa-options-"));
  imagePath = join(dir, "a.png");
  await writeFile(imagePath, Buffer.from("89504e470d0a1a0a00", "hex"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("options that do not exist yet are refused, never dropped", () => {
  it.each(NOT_YET)("createAgent refuses %s with a ConfigError naming it", (key) => {
    expect(() => createAgent(fakeDriver(), { [key]: {} } as unknown as AgentOptions)).toThrow(configError(new RegExp(`"${key}" is not supported yet`)));
  });

  it.each(NOT_YET)("a call refuses %s with a ConfigError naming it, before the driver runs", async (key) => {
    const driver = fakeDriver();
    const agent = createAgent(driver);
    expect(() => agent.stream("x", { [key]: {} } as unknown as CallOptions)).toThrow(configError(new RegExp(`"${key}"`)));
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });
});

describe("an unknown policy value is a ConfigError before anything launches", () => {
  it("refuses a misspelt sandbox in defaults at createAgent, naming the field and the accepted values", () => {
    expect(() => createAgent(fakeDriver(), { defaults: { policy: { sandbox: "readonly" } } } as unknown as AgentOptions)).toThrow(
      configError(/^defaults\.policy\.sandbox: expected one of "read-only" \| "workspace-write" \| "full-access", got "readonly"$/),
    );
  });

  it("refuses a misspelt approval per call before run.started, without calling the driver", async () => {
    const driver = fakeDriver();
    const agent = createAgent(driver);
    expect(() => agent.stream("x", { policy: { approval: "nevr" } } as unknown as CallOptions)).toThrow(configError(/^policy\.approval: expected one of .*"never"/));
    await expect(agent.run("x", { policy: { network: "no" } } as unknown as CallOptions)).rejects.toThrow(configError(/^policy\.network: /));
    await expect(agent.run("x", { policy: { sandbox: "read-only", mode: "x" } } as unknown as CallOptions)).rejects.toThrow(configError(/^policy\.mode: unknown key$/));
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });
});

describe("a policy the driver cannot honour is refused before anything launches", () => {
  const refuseReadOnly = (policy: Policy) => {
    if (policy.sandbox === "read-only") throw new ConfigError("test: read-only cannot be honoured");
  };

  it("is refused at createAgent when it is a default", () => {
    const { driver } = recordingDriver(refuseReadOnly);
    expect(() => createAgent(driver, { defaults: { policy: { sandbox: "read-only" } } })).toThrow(configError(/cannot be honoured/));
  });

  it("is refused per call, on the effective policy, without calling the driver", async () => {
    const { driver, probe } = recordingDriver(refuseReadOnly);
    const agent = createAgent(driver, { defaults: { policy: { approval: "never" } } });
    await expect(agent.run("x", { policy: { sandbox: "read-only" } })).rejects.toThrow(configError(/cannot be honoured/));
    expect(probe.calls.run).toBe(0);
    await agent.close();
  });
});

describe("call option values are validated per call", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["model must be a non-empty string", { model: "" }, /^model: /],
    ["effort must be a string", { effort: 5 }, /^effort: /],
    ["metadata values must be strings", { metadata: { tenant: 42 } }, /^metadata\.tenant: /],
    ["outputSchema must be a JSON object", { outputSchema: [] }, /^outputSchema: expected a JSON object$/],
    ["outputSchema may hold only JSON", { outputSchema: { type: "object", default: () => 1 } }, /^outputSchema: expected a JSON object$/],
    ["onApproval must be a function", { onApproval: "allow" }, /^onApproval: expected a function$/],
    ["onUserInput must be a function", { onUserInput: {} }, /^onUserInput: expected a function$/],
    ["spawn must be a boolean", { spawn: "yes" }, /^spawn: /],
  ];
  it.each(cases)("%s", async (_rule, options, message) => {
    const driver = fakeDriver();
    const agent = createAgent(driver);
    await expect(agent.run("x", options as CallOptions)).rejects.toThrow(configError(message));
    expect(() => createAgent(fakeDriver(), { defaults: options as CallOptions })).toThrow(configError(new RegExp(message.source.replace("^", "^defaults\\."))));
    expect(driver.probe.calls.run).toBe(0);
    await agent.close();
  });
});

describe("construction option values are validated at createAgent", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["an mcp server needs a name", { mcp: [{}] }, /^mcp\[0\]\.name: required$/],
    ["an mcp server needs a command or a url", { mcp: [{ name: "a" }] }, /^mcp\[0\]: expected exactly one of command and url$/],
    ["an mcp server cannot have both a command and a url", { mcp: [{ name: "a", command: "x", url: "http://127.0.0.1/" }] }, /^mcp\[0\]: expected exactly one/],
    ["mcp server names are unique", { mcp: [{ name: "a", command: "x" }, { name: "a", url: "http://127.0.0.1/" }] }, /^mcp\[1\]\.name: duplicate name$/],
    ["an mcp url is http(s)", { mcp: [{ name: "a", url: "file:///etc/passwd" }] }, /^mcp\[0\]\.url: expected an http\(s\) URL$/],
    ["an mcp server has no unknown keys", { mcp: [{ name: "a", command: "x", cwd: "/" }] }, /^mcp\[0\]\.cwd: unknown key$/],
    ["tools need a name", { tools: [{ name: "" }] }, /^tools\[0\]\.name: expected 1 to 64 letters, digits/],
    ["tools need an input schema", { tools: [{ name: "t", handler: () => 1 }] }, /^tools\[0\] \("t"\)\.inputSchema: expected a JSON Schema object or a Standard Schema/],
    ["tool names are unique", { tools: [{ name: "t", inputSchema: { type: "object" }, handler: () => 1 }, { name: "t", inputSchema: { type: "object" }, handler: () => 1 }] }, /^tools\[1\] \("t"\): duplicate name$/],
    ["skills need a name and a path", { skills: [{ name: "s" }] }, /^skills\[0\]\.path: /],
    ["instructions are a string or bundles", { instructions: 5 }, /^instructions: /],
    ["instruction bundles need text", { instructions: [{ name: "a" }] }, /^instructions\[0\]\.text: required$/],
    ["events.bufferSize is a positive integer", { events: { bufferSize: 1.5 } }, /^events\.bufferSize: /],
    ["events.overflow is block or drop-deltas", { events: { overflow: "drop" } }, /^events\.overflow: expected one of "block" \| "drop-deltas", got "drop"$/],
    ["onInputDiagnostic must be a function", { onInputDiagnostic: 1 }, /^onInputDiagnostic: expected a function$/],
    ["a thread store implements ThreadStore", { threadStore: {} }, /^threadStore: expected a ThreadStore$/],
  ];
  it.each(cases)("%s", (_rule, options, message) => {
    expect(() => createAgent(fakeDriver(), options as AgentOptions)).toThrow(configError(message));
  });

  it("never puts an MCP server's env or header values in the error", () => {
    const secret = "sk-secret-value-1234";
    const errors = [
      { mcp: [{ name: "a", command: "x", headers: { Authorization: secret } }] },
      { mcp: [{ name: "a", url: "http://127.0.0.1/", env: { TOKEN: secret } }] },
      { mcp: [{ name: "a", command: "x", env: { TOKEN: [secret] } }] },
      { mcp: [{ name: "a", url: secret }] },
    ].map((options) => {
      try {
        createAgent(fakeDriver(), options as AgentOptions);
      } catch (error) {
        return error as Error;
      }
      throw new Error("expected a ConfigError");
    });
    for (const error of errors) {
      expect(error).toBeInstanceOf(ConfigError);
      expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(secret);
    }
  });
});

describe("call options are copied when the run starts", () => {
  it("pushing to the caller's inputs, or changing its policy and metadata afterwards, changes nothing", async () => {
    const { driver, requests } = recordingDriver();
    const agent = createAgent(driver);
    const inputs = [input.fromPath("image", imagePath, { mediaType: "image/png" })];
    const policy: Policy = { sandbox: "read-only" };
    const metadata: Record<string, string> = { tenant: "a" };
    const stream = agent.stream("x", { inputs, policy, metadata });
    inputs.push(input.fromPath("image", imagePath, { mediaType: "image/png" }));
    policy.sandbox = "full-access";
    metadata.tenant = "b";
    await stream.result;
    expect(requests).toHaveLength(1);
    expect(requests[0]!.inputs).toHaveLength(1);
    expect(requests[0]!.policy).toEqual({ sandbox: "read-only" });
    expect(requests[0]!.metadata).toEqual({ tenant: "a" });
    await agent.close();
  });
});
