/**
 * The thread fingerprint per dimension: readable, redacted, bounded values; credentials,
 * endpoints and paths that only locate the provider never in it (every built-in driver); real
 * differences named with both values; records of the previous version (every part a digest, the
 * driver config's digest over keys and endpoints) still checked where their digests can tell.
 */
import { describe, expect, it } from "vitest";

import type { Driver, ModelDefaults, ResolvedResources } from "../../src/driver/types.js";
import { signatureOf } from "../../src/driver/signature.js";
import { codex } from "../../src/drivers/codex/index.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codebuddy } from "../../src/drivers/codebuddy/index.js";
import { acp, claudeAcp, codexAcp, copilot, gemini, qwen } from "../../src/drivers/acp/index.js";
import { pi } from "../../src/drivers/pi/index.js";
import { createRedactor } from "../../src/redact/redact.js";
import { ThreadIncompatibleError } from "../../src/errors/index.js";
import { fingerprintMismatches, LEGACY_DIGEST, threadFingerprint, type ThreadFingerprint } from "../../src/thread/fingerprint.js";
import { compatibleEnv } from "../../src/driver/kit/compatibility.js";

const KEY_1 = "canary-key-one-7f3a9c";
const KEY_2 = "canary-key-two-51be04";
const HEADER_1 = "canary-header-one-a81d";
const HEADER_2 = "canary-header-two-c44e";
const CANARIES = [KEY_1, KEY_2, HEADER_1, HEADER_2];

const NO_RESOURCES: ResolvedResources = { tools: [], skills: [], mcp: [] };

function fingerprintOf(driver: Driver, options: { workspace?: string; resources?: ResolvedResources } = {}): ThreadFingerprint {
  const redactor = createRedactor({ secrets: driver.secrets?.() ?? [] });
  return threadFingerprint(driver, driver.descriptor().id, options.workspace ?? "/repo", options.resources ?? NO_RESOURCES, driver.defaults?.() ?? {}, redactor);
}

/** What the previous version recorded: a digest per dimension, `driver.config` over the driver's whole `fingerprint()`. */
function legacyRecord(driver: Driver, workspace: string, resources: ResolvedResources, defaults: ModelDefaults = {}) {
  const parts: Record<string, string> = {
    driver: signatureOf(driver.descriptor().id),
    "driver.config": signatureOf(driver.fingerprint?.() ?? null),
    workspace: signatureOf(workspace),
    instructions: signatureOf(resources.instructions ?? null),
    tools: signatureOf(resources.tools),
    skills: signatureOf(resources.skills),
    mcp: signatureOf(resources.mcp),
  };
  if (defaults.model !== undefined) parts.model = signatureOf(defaults.model);
  if (defaults.effort !== undefined) parts.effort = signatureOf(defaults.effort);
  return { fingerprint: signatureOf(parts), fingerprintParts: parts };
}

function expectNoCanary(fp: ThreadFingerprint): void {
  const text = JSON.stringify(fp);
  for (const canary of CANARIES) expect(text).not.toContain(canary);
}

/**
 * Each case builds a driver from (key, header, port, path): two builds that differ in all four
 * must fingerprint alike, and carry no canary.
 */
const operationalCases: { name: string; make: (key: string, header: string, port: number, path: string) => Driver }[] = [
  {
    name: "codex",
    make: (key, header, port, path) =>
      codex({
        executable: `${path}/codex`,
        home: `${path}/codex-home`,
        env: { MY_PROVIDER_KEY: key, OPENAI_API_KEY: key, OPENAI_BASE_URL: `http://127.0.0.1:${port}`, HTTPS_PROXY: `http://127.0.0.1:${port}`, CODEX_HOME: `${path}/h`, PATH: path },
        provider: {
          id: "gateway",
          baseUrl: `http://127.0.0.1:${port}/v1`,
          wireApi: "responses",
          apiKeyEnv: "MY_PROVIDER_KEY",
          headers: { "x-gateway-token": header, "x-tenant": header },
          name: `Gateway ${port}`,
          requestMaxRetries: port % 3,
          streamIdleTimeoutMs: port,
        },
        args: ["-c", `model_providers.gateway.base_url="http://127.0.0.1:${port}/v1"`],
      }),
  },
  {
    name: "claude",
    make: (key, _header, port, path) =>
      claude({
        executable: `${path}/claude`,
        configDir: `${path}/claude-config`,
        provider: { baseUrl: `http://127.0.0.1:${port}`, apiKeyEnv: "HOST_KEY" },
        env: { HOST_KEY: key, ANTHROPIC_AUTH_TOKEN: key, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, CLAUDE_CONFIG_DIR: path, TMPDIR: path },
      }),
  },
  {
    name: "codebuddy",
    make: (key, _header, port, path) =>
      codebuddy({ executable: `${path}/codebuddy`, provider: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKeyEnv: "HOST_KEY" }, env: { HOST_KEY: key } }),
  },
  {
    name: "codex-acp",
    make: (key, _header, port, path) =>
      codexAcp({ executable: `${path}/codex-acp`, provider: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKeyEnv: "PLAIN_NAME", model: "m1" }, env: { PLAIN_NAME: key }, cwd: path }),
  },
  {
    name: "gemini",
    make: (key, _header, port, path) =>
      gemini({ executable: `${path}/gemini`, provider: { baseUrl: `http://127.0.0.1:${port}`, apiKeyEnv: "PLAIN_NAME", model: "m1" }, env: { PLAIN_NAME: key }, auth: { methodId: "gemini-api-key", meta: { key } } }),
  },
  {
    name: "qwen",
    make: (key, _header, port, path) => qwen({ executable: `${path}/qwen`, provider: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKeyEnv: "PLAIN_NAME", model: "m1" }, env: { PLAIN_NAME: key } }),
  },
  {
    name: "copilot",
    make: (key, _header, port, path) => copilot({ executable: `${path}/copilot`, provider: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKeyEnv: "PLAIN_NAME", model: "m1" }, env: { PLAIN_NAME: key } }),
  },
  {
    name: "claude-acp",
    make: (key, _header, port, path) => claudeAcp({ executable: `${path}/claude-acp`, provider: { baseUrl: `http://127.0.0.1:${port}`, apiKeyEnv: "PLAIN_NAME", model: "m1" }, env: { PLAIN_NAME: key } }),
  },
  {
    name: "acp (generic, Node-run agent)",
    make: (key, _header, port, path) =>
      acp({ command: process.execPath, args: [`${path}/agents/my-agent.js`, "--endpoint", `http://127.0.0.1:${port}`], env: { AGENT_TOKEN: key }, inheritEnv: [`KEY_${port}`] }),
  },
  {
    name: "pi",
    make: (key, _header, port, path) =>
      pi({
        executable: process.execPath,
        args: [`${path}/pi/cli.js`],
        sessionDir: `${path}/sessions`,
        provider: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKeyEnv: "PLAIN_NAME", model: "m1", contextWindow: port },
        env: { PLAIN_NAME: key, HOME: path },
      }),
  },
];

describe("thread fingerprint: what operations may change", () => {
  for (const c of operationalCases) {
    it(`${c.name}: rotating keys and header tokens, moving the server and reinstalling leave it unchanged, with no secret in it`, () => {
      const before = fingerprintOf(c.make(KEY_1, HEADER_1, 4001, "/opt/one"));
      const after = fingerprintOf(c.make(KEY_2, HEADER_2, 5002, "/srv/two"));
      expectNoCanary(before);
      expectNoCanary(after);
      expect(after.parts).toEqual(before.parts);
      expect(after.value).toBe(before.value);
      expect(fingerprintMismatches({ fingerprint: before.value, fingerprintParts: before.parts }, after)).toEqual([]);
      for (const value of Object.values(after.parts)) {
        expect(value).not.toMatch(/(?:4001|5002)/);
        expect(value).not.toMatch(/\/opt\/one|\/srv\/two/);
      }
    });
  }

  it("a secret that reached a kept value (instructions, an argument) is redacted, and rotating it changes nothing", () => {
    const make = (key: string) => codex({ env: { MY_KEY: key }, provider: { id: "p", baseUrl: "http://127.0.0.1:1/v1", wireApi: "responses", apiKeyEnv: "MY_KEY" }, args: ["--flag", key] });
    const resources = (key: string): ResolvedResources => ({ ...NO_RESOURCES, instructions: `Use the key ${key} carefully.` });
    const one = fingerprintOf(make(KEY_1), { resources: resources(KEY_1) });
    const two = fingerprintOf(make(KEY_2), { resources: resources(KEY_2) });
    expectNoCanary(one);
    expect(one.parts.instructions).toContain("[REDACTED]");
    expect(one.parts["driver.args"]).toContain("[REDACTED]");
    expect(two.value).toBe(one.value);
  });

  it("a variable holding the provider's key is left out whatever its name; credentials, endpoints and locations too", () => {
    const env = { PLAIN: KEY_1, OPENAI_API_KEY: KEY_1, SOME_TOKEN: KEY_1, FOO_BASE_URL: "http://x", HTTP_PROXY: "http://p", CODEX_HOME: "/h", XDG_CONFIG_HOME: "/x", MODEL_NAME: "m", FEATURE: undefined };
    expect(compatibleEnv(env, [], [KEY_1])).toEqual({ "env.MODEL_NAME": "m", "env.FEATURE": "(removed)" });
  });
});

describe("thread fingerprint: real incompatibilities", () => {
  const base = () => codex({ model: "gpt-a", effort: "low", provider: { id: "gateway", baseUrl: "http://127.0.0.1:1/v1", wireApi: "responses" }, args: ["--disable", "plugins"], env: { CODEX_FEATURE: "on" } });

  it("names the dimension, the setting and both readable values", () => {
    const recorded = fingerprintOf(base());
    const changed = fingerprintOf(
      codex({ model: "gpt-b", effort: "low", provider: { id: "other", baseUrl: "http://127.0.0.1:1/v1", wireApi: "responses" }, args: ["--disable", "web"], env: { CODEX_FEATURE: "off" } }),
      { workspace: "/elsewhere", resources: { ...NO_RESOURCES, instructions: "Be terse.", tools: [{ name: "lookup", inputSchema: { type: "object" } }] } },
    );
    const mismatches = fingerprintMismatches({ fingerprint: recorded.value, fingerprintParts: recorded.parts }, changed);
    expect(mismatches).toEqual([
      { dimension: "driver.args", setting: "codex driver config args", recorded: "--disable plugins", current: "--disable web" },
      { dimension: "driver.env.CODEX_FEATURE", setting: "codex driver config env.CODEX_FEATURE", recorded: "on", current: "off" },
      { dimension: "driver.provider.id", setting: "codex driver config provider.id", recorded: "gateway", current: "other" },
      { dimension: "instructions", setting: "createAgent option instructions", recorded: "(not set)", current: '"Be terse."' },
      { dimension: "model", setting: "the codex driver config's default model", recorded: "gpt-a", current: "gpt-b" },
      { dimension: "tools", setting: "createAgent option tools", recorded: "(none)", current: expect.stringMatching(/^lookup \(sha256 [0-9a-f]{12}\)$/) as string },
      { dimension: "workspace", setting: "createAgent option workspace", recorded: "/repo", current: "/elsewhere" },
    ]);
    const error = new ThreadIncompatibleError(mismatches);
    expect(error.dimensions).toEqual(mismatches.map((m) => m.dimension));
    expect(error.message).toContain('model differs (the codex driver config\'s default model: recorded "gpt-a", now "gpt-b")');
    expect(error.message).toContain('workspace differs (createAgent option workspace: recorded "/repo", now "/elsewhere")');
  });

  it("settings files, Pi's tools and wire API, and an ACP agent's file-system capabilities count", () => {
    const c1 = fingerprintOf(claude({ settingSources: ["project"] }));
    const c2 = fingerprintOf(claude({ settingSources: [] }));
    expect(fingerprintMismatches({ fingerprint: c1.value, fingerprintParts: c1.parts }, c2)).toMatchObject([{ dimension: "driver.settingSources", recorded: "project", current: "(none)" }]);
    const p1 = fingerprintOf(pi({ provider: { baseUrl: "http://127.0.0.1:1/v1", model: "m" }, tools: ["read"] }));
    const p2 = fingerprintOf(pi({ provider: { baseUrl: "http://127.0.0.1:1/v1", model: "m", api: "openai-responses" }, tools: ["read", "bash"] }));
    expect(fingerprintMismatches({ fingerprint: p1.value, fingerprintParts: p1.parts }, p2)).toMatchObject([
      { dimension: "driver.provider.api", recorded: "openai-completions", current: "openai-responses" },
      { dimension: "driver.tools", recorded: "read", current: "read, bash" },
    ]);
    const a1 = fingerprintOf(codexAcp({ provider: { baseUrl: "http://127.0.0.1:1/v1", model: "m1" } }));
    const a2 = fingerprintOf(codexAcp({ provider: { baseUrl: "http://127.0.0.1:1/v1", model: "m2" }, clientCapabilities: { fs: { readTextFile: true } } }));
    expect(fingerprintMismatches({ fingerprint: a1.value, fingerprintParts: a1.parts }, a2)).toMatchObject([
      { dimension: "driver.args", current: expect.stringMatching(/ -c model="m2" \(\d+ chars, sha256 [0-9a-f]{12}\)$/) as string },
      { dimension: "driver.clientCapabilities.fs", recorded: "(not set)", current: "readTextFile" },
    ]);
    const g1 = fingerprintOf(acp({ command: "/usr/bin/agent-one" }));
    const g2 = fingerprintOf(acp({ command: "/usr/local/bin/agent-two" }));
    expect(fingerprintMismatches({ fingerprint: g1.value, fingerprintParts: g1.parts }, g2)).toMatchObject([{ dimension: "driver.agent", recorded: "agent-one", current: "agent-two" }]);
  });

  it("values are bounded: a long one keeps its head, its length and a digest of the whole", () => {
    const head = "x".repeat(5000);
    const one = fingerprintOf(codex(), { resources: { ...NO_RESOURCES, instructions: `${head} one` } });
    const two = fingerprintOf(codex(), { resources: { ...NO_RESOURCES, instructions: `${head} two` } });
    expect(one.parts.instructions!.length).toBeLessThanOrEqual(160);
    expect(one.parts.instructions).toMatch(/^"x+ … x+ one" \(5006 chars, sha256 [0-9a-f]{12}\)$/);
    expect(two.parts.instructions).not.toBe(one.parts.instructions);
    expect(fingerprintMismatches({ fingerprint: one.value, fingerprintParts: one.parts }, two).map((m) => m.dimension)).toEqual(["instructions"]);
  });

  it("a record whose parts agree but whose digest does not was altered: it is refused", () => {
    const fp = fingerprintOf(codex());
    expect(fingerprintMismatches({ fingerprint: "v2:0000", fingerprintParts: fp.parts }, fp)).toMatchObject([{ dimension: "fingerprint" }]);
  });
});

describe("thread fingerprint: records of the previous version", () => {
  const resources: ResolvedResources = { ...NO_RESOURCES, instructions: "Be brief.", skills: [{ name: "review", path: "/skills/review" }] };
  const make = (key: string, port: number) =>
    codex({ model: "gpt-a", env: { MY_KEY: key }, provider: { id: "gateway", baseUrl: `http://127.0.0.1:${port}/v1`, wireApi: "responses", apiKeyEnv: "MY_KEY", headers: { "x-token": key } } });

  it("open with the same settings", () => {
    const driver = make(KEY_1, 4001);
    const record = legacyRecord(driver, "/repo", resources, driver.defaults!());
    expect(fingerprintMismatches(record, fingerprintOf(driver, { resources }))).toEqual([]);
  });

  it("stay usable after a key rotation or a server move, which changed their driver-config digest", () => {
    const record = legacyRecord(make(KEY_1, 4001), "/repo", resources, { model: "gpt-a" });
    const rotated = make(KEY_2, 5002);
    expect(signatureOf(rotated.fingerprint())).not.toBe(record.fingerprintParts["driver.config"]);
    expect(fingerprintMismatches(record, fingerprintOf(rotated, { resources }))).toEqual([]);
  });

  it("still refuse a changed workspace, instructions or model, naming the current value", () => {
    const record = legacyRecord(make(KEY_1, 4001), "/repo", resources, { model: "gpt-a" });
    const changed = codex({ model: "gpt-b", provider: { id: "gateway", baseUrl: "http://127.0.0.1:4001/v1", wireApi: "responses" } });
    const mismatches = fingerprintMismatches(record, fingerprintOf(changed, { workspace: "/elsewhere", resources: { ...resources, instructions: "Be long." } }));
    expect(mismatches).toEqual([
      { dimension: "workspace", setting: "createAgent option workspace", recorded: LEGACY_DIGEST, current: "/elsewhere" },
      { dimension: "instructions", setting: "createAgent option instructions", recorded: LEGACY_DIGEST, current: '"Be long."' },
      { dimension: "model", setting: "the codex driver config's default model", recorded: LEGACY_DIGEST, current: "gpt-b" },
    ]);
  });
});
