/**
 * No key in any event: a key given to a driver — in its `env` under a secret-looking name, or
 * through `provider.apiKeyEnv` under any name — is redacted from every event, error, inspection
 * and `Result.raw()`, even when the provider echoes it back (a Codex warning, an ACP tool title,
 * stderr, an error message). Each driver family runs against its fake provider.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { afterAll, describe, expect, it } from "vitest";

import { createAgent, type AgentEvent, type Driver } from "../../src/index.js";
import { acp } from "../../src/drivers/acp/index.js";
import { codexAcp, gemini } from "../../src/drivers/acp/presets.js";
import { claude } from "../../src/drivers/claude/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { fakeDriver } from "../../src/testing/index.js";
import { writeFakeCodex } from "../drivers/codex/harness.js";
import { installFakeCli, type FakeCli } from "../drivers/fake-cli/install.js";

const CANARY = "canary-9f27c1d4e8b3a6";
const root = mkdtempSync(join(tmpdir(), "aa-driver-secrets-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fakeCodex = writeFakeCodex(root);
const fakeAgent = join(root, "fake-acp-agent");
writeFileSync(fakeAgent, `#!${process.execPath}\nimport(${JSON.stringify(fileURLToPath(new URL("../drivers/acp/fixtures/fake-agent.mjs", import.meta.url)))});\n`);
chmodSync(fakeAgent, 0o755);
let n = 0;
const workspace = (): string => {
  const dir = join(root, `ws-${++n}`);
  mkdirSync(dir);
  return dir;
};

/**
 * Everything the host can see of one run and, on a second agent, one inspection, as text. The run
 * comes first on an agent of its own: an inspection must not be what teaches the redactor the key.
 */
async function observe(makeDriver: () => Driver, prompt: string): Promise<{ seen: string; events: AgentEvent[]; failed: boolean }> {
  const parts: unknown[] = [];
  const events: AgentEvent[] = [];
  let failed = false;
  const inspector = createAgent(makeDriver(), { workspace: workspace() });
  try {
    parts.push(await inspector.inspect());
  } finally {
    await inspector.close();
  }
  const agent = createAgent(makeDriver(), { workspace: workspace() });
  try {
    const stream = agent.stream(prompt);
    for await (const event of stream) events.push(event);
    try {
      const result = await stream.result;
      parts.push(result.raw(), result.transcript(), result.text);
    } catch (error) {
      failed = true;
      parts.push((error as Error).message, error, (error as { partial?: unknown }).partial);
    }
  } finally {
    await agent.close();
  }
  parts.push(events);
  return { seen: JSON.stringify(parts, (_k, v: unknown) => (v instanceof Error ? { ...v, message: v.message } : v)), events, failed };
}

describe("no key in any event: Codex", () => {
  it("a key in the driver's env echoed in a codex_warning notice and on stderr is redacted", async () => {
    const driver = () => codex({ executable: fakeCodex, home: workspace(), env: { OPENAI_API_KEY: CANARY, FAKE_CODEX_ECHO_ENV: "OPENAI_API_KEY" } });
    const { seen, events } = await observe(driver, "ECHO_KEY");
    expect(events.some((e) => e.type === "notice" && e.code === "codex_warning" && e.message.includes("[REDACTED]"))).toBe(true);
    expect(seen).not.toContain(CANARY);
  });

  it("a key named by provider.apiKeyEnv under a name that does not look secret is redacted", async () => {
    const driver = () => codex({
      executable: fakeCodex,
      home: workspace(),
      env: { MY_LLM: CANARY, FAKE_CODEX_ECHO_ENV: "MY_LLM" },
      provider: { id: "local", baseUrl: "http://127.0.0.1:9/v1", wireApi: "responses", apiKeyEnv: "MY_LLM" },
    });
    const { seen, events } = await observe(driver, "ECHO_KEY");
    expect(events.some((e) => e.type === "notice" && e.code === "codex_warning")).toBe(true);
    expect(seen).not.toContain(CANARY);
  });
});

describe("no key in any event: ACP", () => {
  const echoed = (events: AgentEvent[]) => events.find((e) => e.type === "tool.started");

  it("a key in the driver's env echoed in tool.started.title is redacted", async () => {
    const driver = () => acp({ command: fakeAgent, env: { SOME_SERVICE_TOKEN: CANARY, FAKE_ACP_ECHO_ENV: "SOME_SERVICE_TOKEN" } });
    const { seen, events } = await observe(driver, "ECHO_KEY");
    expect(echoed(events)).toMatchObject({ title: expect.stringContaining("[REDACTED]") });
    expect(seen).not.toContain(CANARY);
  });

  it("gemini: the provider key echoed in tool.started.title is redacted", async () => {
    const driver = () => gemini({
      executable: fakeAgent,
      env: { MY_LLM: CANARY, FAKE_ACP_ECHO_ENV: "GEMINI_API_KEY" },
      provider: { baseUrl: "http://127.0.0.1:9", apiKeyEnv: "MY_LLM" },
    });
    const { seen, events } = await observe(driver, "ECHO_KEY");
    expect(echoed(events)).toMatchObject({ title: expect.stringContaining("[REDACTED]") });
    expect(seen).not.toContain(CANARY);
  });

  it("codexAcp: a provider key under a name that does not look secret, echoed in tool.started.title, is redacted", async () => {
    const driver = () => codexAcp({
      executable: fakeAgent,
      env: { MY_LLM: CANARY, FAKE_ACP_ECHO_ENV: "AGENT_ADAPTOR_PROVIDER_API_KEY" },
      provider: { baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "MY_LLM" },
    });
    const { seen, events } = await observe(driver, "ECHO_KEY");
    expect(echoed(events)).toMatchObject({ title: expect.stringContaining("[REDACTED]") });
    expect(seen).not.toContain(CANARY);
  });
});

describe("no key in any event: stream-json", () => {
  let cli: FakeCli | undefined;
  afterAll(() => cli?.cleanup());

  it("claude: a key in the driver's env echoed on stderr and in the error is redacted from the error, events and inspection", async () => {
    const fake = (cli = await installFakeCli("claude"));
    const driver = () => claude({ executable: fake.executable, configDir: fake.configDir, env: { ANTHROPIC_API_KEY: CANARY } });
    const { seen, failed } = await observe(driver, "[[leak]]");
    expect(failed).toBe(true);
    expect(seen).not.toContain(CANARY);
  });
});

describe("no key in any event: MCP servers", () => {
  it("an MCP server's secret env value and credential header echoed by the provider are redacted", async () => {
    const header = "hdr-canary-5b1e7a";
    const driver = fakeDriver({
      script: {
        steps: [{ emit: { type: "notice", level: "warning", code: "fake_notice", message: `mcp start failed: ${CANARY} / ${header}` } }],
        text: "ok",
      },
    });
    const agent = createAgent(driver, {
      mcp: [
        { name: "gh", command: "gh-mcp", env: { GITHUB_TOKEN: CANARY } },
        { name: "remote", url: "http://127.0.0.1:9/mcp", headers: { Authorization: header, Accept: "application/json" } },
      ],
    });
    try {
      const events: AgentEvent[] = [];
      const stream = agent.stream("go");
      for await (const event of stream) events.push(event);
      await stream.result;
      const seen = JSON.stringify(events);
      expect(seen).not.toContain(CANARY);
      expect(seen).not.toContain(header);
      expect(seen).toContain("mcp start failed");
    } finally {
      await agent.close();
    }
  });
});
