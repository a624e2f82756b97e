/**
 * The CodeBuddy driver against the fake `codebuddy` entry (a Node script speaking CodeBuddy Code's
 * wire shapes): what differs from Claude Code — the `allowed` permission answer, `can_use_tool`
 * before the tool call, control requests refused before a session, a success result after an
 * interrupt, the echoed API key — plus the shared fixtures (empty command list, missing login,
 * exit before init, exit mid-turn, malformed line).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { codebuddy, type CodebuddyConfig } from "../../../src/drivers/codebuddy/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { installFakeCli, type FakeCli } from "../fake-cli/install.js";
import { collect, ofType, runDirect, types } from "../helpers.js";

const KEY = "cb-fake-secret-key-98765";
let fake: FakeCli;
beforeAll(async () => {
  fake = await installFakeCli("codebuddy");
});
afterAll(() => fake.cleanup());

const config = (extra: CodebuddyConfig = {}): CodebuddyConfig => ({
  executable: fake.executable,
  configDir: fake.configDir,
  ...extra,
  env: { FAKE_CLI_LOG: fake.logFile, CODEBUDDY_API_KEY: KEY, ...extra.env },
});
const agentFor = (extra: CodebuddyConfig = {}, options: Parameters<typeof createAgent>[1] = {}) => {
  const driver = codebuddy(config(extra));
  return { driver, agent: createAgent(driver, { workspace: fake.workspace, ...options }) };
};

describe("codebuddy inspect()", () => {
  it("observes commands and models, reports MCP unsupported, and never reveals the echoed key", async () => {
    const { agent, driver } = agentFor();
    const inspection = await agent.inspect();
    await agent.close();
    expect(inspection.driver).toEqual({ id: "codebuddy", name: "CodeBuddy Code", transport: "codebuddy stream-json" });
    expect(inspection.commands.value).toEqual([
      { name: "help", description: "Show help" },
      { name: "review", description: "Review code" },
    ]);
    expect(inspection.commands.evidence[0]).toMatchObject({ transport: "codebuddy stream-json", method: "initialize", scope: "process" });
    expect(inspection.models.value).toEqual([
      { id: "default-model", displayName: "Default", isDefault: true },
      { id: "fake-model", displayName: "Fake Model" },
    ]);
    expect(inspection.auth).toMatchObject({ status: "observed", value: { signedIn: true, method: "api_key" } });
    expect(inspection.auth.value!.account).toBeUndefined();
    expect(inspection.mcp).toMatchObject({ status: "unsupported", reason: { code: "method_unsupported" } });
    expect(inspection.mcp.evidence.map((e) => e.method)).toEqual(["mcp_status"]);
    expect(inspection.configuration.value).toMatchObject({ model: "default-model", outputStyle: "default" });
    const text = JSON.stringify(inspection);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(KEY.slice(-8));
    expect(driver.livePids()).toEqual([]);
  });

  it("registers the echoed key with the driver response's secrets", async () => {
    const driver = codebuddy(config());
    const response = await driver.inspect({ workspace: fake.workspace, resources: { tools: [], skills: [], mcp: [] } }, new AbortController().signal);
    await driver.close();
    expect(response.secrets).toEqual(expect.arrayContaining([KEY, `anonymous_${KEY.slice(-8)}`]));
  });

  it("reports an observed empty command list, and a null account in the auth panel only: models stay observed", async () => {
    const empty = agentFor({ env: { FAKE_CLI_SCENARIO: "empty-commands" } });
    const noAuth = agentFor({ env: { FAKE_CLI_SCENARIO: "auth-missing", CODEBUDDY_API_KEY: undefined } });
    const [a, b] = await Promise.all([empty.agent.inspect(), noAuth.agent.inspect()]);
    await Promise.all([empty.agent.close(), noAuth.agent.close()]);
    expect(a.commands).toMatchObject({ status: "observed", value: [] });
    expect(b.auth).toMatchObject({ status: "unavailable", reason: { code: "auth_required" } });
    expect(b.models.status).toBe("observed");
    expect(b.models.value!.length).toBeGreaterThan(0);
  });

  it("answers every panel unavailable when the CLI exits before initialize", async () => {
    const { agent } = agentFor({ env: { FAKE_CLI_SCENARIO: "exit-before-init" } });
    const inspection = await agent.inspect();
    await agent.close();
    expect(inspection.commands).toMatchObject({ status: "unavailable", reason: { code: "provider_error" } });
  });
});

describe("codebuddy run()", () => {
  it("maps a text turn; a zero cost for a custom model is not reported as a cost", async () => {
    const { agent } = agentFor();
    const stream = agent.stream("hello");
    const events = await collect(stream);
    const result = await stream.result;
    await agent.close();
    expect(result.text).toBe("Hello from the fake CLI.");
    expect(ofType(events, "thread.bound")).toHaveLength(1);
    expect(result.usage).toEqual({ input_tokens: 84, output_tokens: 34, cached_input_tokens: 7, cache_creation_input_tokens: 3 });
    // The entry is a .mjs file, run with this Node.
    expect((await fake.spawns()).at(-1)!.argv).toEqual(expect.arrayContaining(["--input-format=stream-json", "--output-format=stream-json", "--permission-mode", "default"]));
    expect((await fake.spawns()).at(-1)!.argv).not.toContain("--permission-prompt-tool");
  });

  it("starts the tool from the permission request that precedes it, once, and answers {allowed: true}", async () => {
    const { agent } = agentFor({}, { defaults: { onApproval: async () => ({ decision: "allow" }) } });
    const events = await collect(agent.stream("[[write]]"));
    await agent.close();
    const order = types(events).filter((t) => t.startsWith("tool.") || t.startsWith("approval."));
    expect(order).toEqual(["tool.started", "approval.requested", "approval.resolved", "tool.completed"]);
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ status: "completed" });
    expect(await readFile(join(fake.workspace, "fake.txt"), "utf8")).toBe("written by the fake CLI\n");
    expect((await fake.log()).filter((e) => e.event === "permission").at(-1)).toMatchObject({ ok: true });
  });

  it("denies in CodeBuddy's shape {allowed: false, reason}", async () => {
    const { agent } = agentFor({}, { defaults: { onApproval: async () => ({ decision: "deny", message: "no writes" }) } });
    const events = await collect(agent.stream("[[write]]"));
    await agent.close();
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ status: "declined" });
    // The answer waited for the tool call to be out (an early answer can wedge the real CLI).
    expect((await fake.log()).filter((e) => e.event === "permission").at(-1)).toMatchObject({ ok: false, shape: "codebuddy", early: false });
  });

  it("ends an interrupted turn (which CodeBuddy reports as a success) with exactly one run.cancelled", async () => {
    const { agent, driver } = agentFor();
    const stream = agent.stream("[[slow]]");
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "message.delta" && ofType(events, "message.delta").length === 3) stream.cancel("stop");
    }
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    await agent.close();
    expect(types(events).filter((t) => t.startsWith("run."))).toEqual(["run.started", "run.cancelled"]);
    expect((await fake.log()).filter((e) => e.event === "interrupt").at(-1)).toMatchObject({ session: expect.any(String) });
    expect(driver.livePids()).toEqual([]);
  });

  it("reports error results with their message, and a missing login as auth_required", async () => {
    const { agent } = agentFor();
    const failed = await collect(agent.stream("[[error]]"));
    const auth = await agent.run("[[auth]]").catch((e: unknown) => e);
    await agent.close();
    expect(ofType(failed, "run.failed")[0]!.error).toMatchObject({ code: "provider_error", message: "500 fake internal error", phase: "after_delivery" });
    expect(auth).toMatchObject({ code: "auth_required" });
  });

  it("reports exit before init, exit mid-turn and a malformed line", async () => {
    const early = agentFor({ env: { FAKE_CLI_SCENARIO: "exit-before-init" } });
    const before = await early.agent.run("hello").catch((e: unknown) => e);
    await early.agent.close();
    expect(before).toMatchObject({ code: "provider_exited", phase: "before_delivery" });

    const { agent } = agentFor();
    const mid = await agent.run("[[exit-mid-turn]]").catch((e: unknown) => e);
    const malformed = await collect(agent.stream("[[malformed]]"));
    await agent.close();
    expect(mid).toMatchObject({ code: "provider_exited", phase: "after_delivery" });
    expect(ofType(malformed, "notice")).toMatchObject([{ code: "invalid_json" }]);
    expect(malformed.at(-1)!.type).toBe("run.completed");
  });

  it("resumes a session by id in a new process", async () => {
    const driver = codebuddy(config());
    const one = await runDirect(driver, { prompt: "remember pecan", workspace: fake.workspace });
    const two = await runDirect(driver, { prompt: "[[history]]", workspace: fake.workspace, thread: { id: "t", providerSessionId: one.response!.providerSessionId! } });
    await driver.close();
    expect(two.response?.text).toBe("history: 1 earlier prompts: remember pecan");
  });

  it("keeps an unbound standby until the first run", async () => {
    const { agent, driver } = agentFor({ configDir: join(fake.root, "standby") });
    const report = await agent.prepare();
    expect(report.process).toBe("ready");
    const pid = driver.livePids()[0];
    const spawns = (await fake.spawns()).length;
    await agent.run("hello");
    expect((await fake.spawns()).length).toBe(spawns);
    expect((await fake.log()).filter((e) => e.pid === pid && e.event === "user")).toHaveLength(1);
    await agent.close();
  });

  it("passes the provider through CODEBUDDY_BASE_URL and CODEBUDDY_API_KEY, never the command line", async () => {
    process.env.FAKE_CB_KEY = "cb-provider-key-55555555";
    try {
      const driver = codebuddy({ executable: fake.executable, configDir: fake.configDir, provider: { baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "FAKE_CB_KEY" }, env: { FAKE_CLI_LOG: fake.logFile } });
      const inspection = await driver.inspect({ workspace: fake.workspace, resources: { tools: [], skills: [], mcp: [] } }, new AbortController().signal);
      await driver.close();
      const spawn = (await fake.spawns()).at(-1)!;
      expect(spawn.env).toMatchObject({ hasKey: true, baseUrl: "http://127.0.0.1:9/v1" });
      expect(JSON.stringify(spawn.argv)).not.toContain("cb-provider-key");
      expect(inspection.secrets).toContain("cb-provider-key-55555555");
    } finally {
      delete process.env.FAKE_CB_KEY;
    }
  });
});
