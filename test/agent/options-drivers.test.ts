import { describe, expect, it } from "vitest";
import { ConfigError, createAgent, type CallOptions, type Policy } from "../../src/index.js";
import { acp, claudeAcp, codexAcp, copilot, cursor, gemini, qwen, type AcpDriver } from "../../src/drivers/acp/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { codex } from "../../src/drivers/codex/index.js";

/** Never started: every refusal below must come before a launch. */
const MISSING = "/nonexistent/agent-adaptor-options-test/cli";

function configError(pattern: RegExp) {
  return expect.objectContaining({ name: "ConfigError", code: "config_invalid", message: expect.stringMatching(pattern) });
}

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

describe("a policy a driver cannot honour is refused before anything launches, never widened", () => {
  it("codex refuses approval on-failure and a withheld network under full access, at createAgent and per call", async () => {
    const driver = codex({ executable: MISSING });
    expect(() => createAgent(driver, { defaults: { policy: { sandbox: "full-access", network: false } } })).toThrow(configError(/^codex: policy\.network false/));
    const agent = createAgent(driver);
    expect(() => agent.stream("x", { policy: { approval: "on-failure" } })).toThrow(configError(/^codex: policy\.approval "on-failure"/));
    expect(driver.processes().started).toBe(0);
    await agent.close();
  });

  it.each([
    ["claude", () => claude({ executable: MISSING })],
    ["codebuddy", () => codebuddy({ executable: MISSING })],
  ])("%s refuses a withheld network (the CLI has no switch for it), at createAgent and per call", async (id, make) => {
    expect(() => createAgent(make(), { defaults: { policy: { network: false } } })).toThrow(configError(new RegExp(`^${id}: policy\\.network false`)));
    const driver = make();
    const agent = createAgent(driver);
    expect(() => agent.stream("x", { policy: { sandbox: "read-only", network: false } })).toThrow(configError(/policy\.network false/));
    expect(driver.livePids()).toEqual([]);
    await agent.close();
  });

  const acpRefused: Policy[] = [{ sandbox: "read-only" }, { sandbox: "workspace-write" }, { network: false }, { approval: "untrusted" }, { approval: "on-failure" }];
  it.each(acpRefused.map((policy) => [JSON.stringify(policy), policy] as const))("acp refuses %s: it cannot confine an ACP agent", async (_name, policy) => {
    const driver = acp({ command: MISSING });
    expect(() => createAgent(driver, { defaults: { policy } })).toThrow(configError(/^acp: policy\.\w+ .* cannot be honoured/));
    const agent = createAgent(driver);
    expect(() => agent.stream("x", { policy } as CallOptions)).toThrow(configError(/cannot be honoured/));
    expect(driver.processes().started).toBe(0);
    await agent.close();
  });

  it("the presets refuse what the generic ACP driver refuses, naming the preset", () => {
    const presets: [string, AcpDriver][] = [
      ["gemini", gemini({ executable: MISSING })],
      ["qwen", qwen({ executable: MISSING })],
      ["copilot", copilot({ executable: MISSING })],
      ["codex-acp", codexAcp({ executable: MISSING })],
      ["claude-acp", claudeAcp({ executable: MISSING })],
      ["cursor", cursor({ executable: MISSING })],
    ];
    for (const [id, driver] of presets) {
      expect(() => createAgent(driver, { defaults: { policy: { sandbox: "read-only" } } }), id).toThrow(configError(new RegExp(`^${id}: policy\\.sandbox`)));
    }
  });

  it("each driver accepts the policies it honours", () => {
    const honoured: [string, { validatePolicy?(policy: Policy): void }, Policy[]][] = [
      ["codex", codex({ executable: MISSING }), [{ sandbox: "read-only", approval: "never", network: false }, { sandbox: "workspace-write", approval: "untrusted", network: true }, { sandbox: "full-access", approval: "on-request" }]],
      ["claude", claude({ executable: MISSING }), [{ sandbox: "read-only", approval: "on-failure" }, { sandbox: "full-access", approval: "untrusted", network: true }]],
      ["acp", acp({ command: MISSING }), [{}, { sandbox: "full-access", approval: "on-request", network: true }, { approval: "never" }]],
    ];
    for (const [id, driver, policies] of honoured) {
      for (const policy of policies) expect(() => driver.validatePolicy!(policy), `${id} ${JSON.stringify(policy)}`).not.toThrow();
    }
  });
});

describe("driver configs are validated at the factory: an unknown key or a wrong type is a ConfigError naming the field", () => {
  it.each([
    ["codex: an unknown key", () => codex({ modle: "x" } as never), /^codex: modle: unknown key$/],
    ["codex: a provider header of the wrong type", () => codex({ provider: { id: "p", baseUrl: "http://127.0.0.1:1/v1", wireApi: "responses", headers: { Authorization: 5 } } } as never), /^codex: provider\.headers\.Authorization: expected string/],
    ["claude: an unknown key", () => claude({ modle: "x" } as never), /^claude: modle: unknown key$/],
    ["claude: an unknown provider key", () => claude({ provider: { baseUrl: "http://127.0.0.1:1", apiKeyEnv: "K", apiKey: "x" } } as never), /^claude: provider\.apiKey: unknown key$/],
    ["codebuddy: env values are strings", () => codebuddy({ env: { A: 1 } } as never), /^codebuddy: env\.A: expected string/],
    ["acp: a watchdog of the wrong type", () => acp({ command: "x", watchdogs: { idleMs: "5" } } as never), /^acp: watchdogs\.idleMs: expected number/],
    ["acp: an unknown auth key", () => acp({ command: "x", auth: { methodId: "m", token: "x" } } as never), /^acp: auth\.token: unknown key$/],
    ["acp: a client capability of the wrong type", () => acp({ command: "x", clientCapabilities: { fs: { readTextFile: "yes" } } } as never), /^acp: clientCapabilities\.fs\.readTextFile: expected boolean/],
    ["gemini: an unknown key", () => gemini({ modle: "x" } as never), /^gemini: modle: unknown key$/],
    ["qwen: an unknown provider key", () => qwen({ provider: { baseUrl: "http://127.0.0.1:1/v1", key: "x" } } as never), /^qwen: provider\.key: unknown key$/],
    ["cursor: an unknown key", () => cursor({ workspace: "/x" } as never), /^cursor: workspace: unknown key$/],
  ])("%s", (_rule, make, message) => {
    expect(make).toThrow(configError(message));
  });

  it("never puts a config value in the error", () => {
    const secret = "sk-config-secret-5678";
    const errors = [
      thrown(() => claude({ provider: { baseUrl: "http://127.0.0.1:1", apiKeyEnv: "K", apiKey: secret } } as never)),
      thrown(() => codex({ provider: { id: "p", baseUrl: secret, wireApi: "responses" } })),
      thrown(() => gemini({ provider: { baseUrl: "http://127.0.0.1:1", apiKeyEnv: secret } })),
      thrown(() => acp({ command: "x", env: { TOKEN: [secret] } } as never)),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).not.toContain(secret);
    }
  });

  it.each([
    ["codex", () => codex({ executable: MISSING }), ["executable", "model", "effort", "home", "provider", "experimental", "env", "args", "initializeTimeoutMs"]],
    ["claude", () => claude({ executable: MISSING }), ["executable", "model", "effort", "configDir", "provider", "env", "args", "settingSources", "userMcpServers", "initializeTimeoutMs"]],
    ["acp", () => acp({ command: MISSING }), ["command", "args", "env", "inheritEnv", "cwd", "auth", "clientCapabilities", "watchdogs", "initializeTimeoutMs", "preset"]],
  ])("%s declares the config it validates in descriptor().configSchema", (_id, make, keys) => {
    const schema = make().descriptor().configSchema as { properties: object; additionalProperties: unknown };
    expect(Object.keys(schema.properties).sort()).toEqual([...keys].sort());
    expect(schema.additionalProperties).toBe(false);
  });
});
