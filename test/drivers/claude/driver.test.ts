/**
 * The Claude driver against the fake `claude` executable: inspection panels and their failure
 * fixtures (empty command list, missing login, missing executable, exit before initialize), the
 * event mapping of a turn, failure fixtures of a run (malformed line, exit before init, exit
 * mid-turn, error results), approvals, questions, plans, cancellation, inputs, resume and fork,
 * the standby, and the child environment.
 */
import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { claude, type ClaudeConfig } from "../../../src/drivers/claude/index.js";
import { AdaptorError, AuthRequiredError, RunFailedError } from "../../../src/errors/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { installFakeCli, type FakeCli } from "../fake-cli/install.js";
import { collect, ofType, runDirect, types } from "../helpers.js";
import { PNG_1X1 } from "../real-lane.js";

const KEY = "sk-fake-claude-key-0123456789";
let fake: FakeCli;
beforeAll(async () => {
  fake = await installFakeCli("claude");
});
afterAll(() => fake.cleanup());

const config = (extra: ClaudeConfig = {}): ClaudeConfig => ({
  executable: fake.executable,
  configDir: fake.configDir,
  ...extra,
  env: { FAKE_CLI_LOG: fake.logFile, ANTHROPIC_API_KEY: KEY, ...extra.env },
});
const agentFor = (extra: ClaudeConfig = {}, options: Parameters<typeof createAgent>[1] = {}) => {
  const driver = claude(config(extra));
  return { driver, agent: createAgent(driver, { workspace: fake.workspace, ...options }) };
};

describe("claude inspect()", () => {
  it("observes commands, models, account, MCP and configuration through initialize, with evidence", async () => {
    const { driver, agent } = agentFor();
    const before = (await fake.spawns()).length;
    const inspection = await agent.inspect();
    await agent.close();

    expect(inspection.driver).toEqual({ id: "claude", name: "Claude Code", transport: "claude stream-json" });
    expect(inspection.commands.status).toBe("observed");
    expect(inspection.commands.value).toEqual([
      { name: "review", description: "Review a pull request", argumentHint: "<pr>" },
      { name: "compact", description: "Compact the conversation" },
    ]);
    expect(inspection.commands.evidence[0]).toMatchObject({ transport: "claude stream-json", method: "initialize", providerVersion: "9.9.9-fake", scope: "process" });
    expect(inspection.models.value).toEqual([
      { id: "default", displayName: "Default (recommended)", description: "The default model", isDefault: true, efforts: [{ id: "low" }, { id: "medium" }, { id: "high" }] },
      { id: "fake-sonnet", displayName: "Fake Sonnet", description: "A fake model" },
    ]);
    expect(inspection.models.value![0]!.contextWindow).toBeUndefined();
    expect(inspection.auth).toMatchObject({ status: "observed", value: { signedIn: true, method: "ANTHROPIC_API_KEY" } });
    expect(inspection.mcp).toMatchObject({ status: "observed", value: { servers: [{ name: "docs", status: "connected", tools: ["search"] }] } });
    expect(inspection.mcp.evidence.map((e) => e.method)).toEqual(["mcp_status"]);
    expect(inspection.configuration.value).toMatchObject({ model: "fake-opus", effort: "medium", outputStyle: "default", permissionMode: "default" });
    expect(inspection.configuration.evidence.map((e) => e.method)).toEqual(["initialize", "get_settings"]);
    expect(inspection.environment.value).toMatchObject({ executablePath: fake.executable, version: "9.9.9-fake" });
    // The agent's skills are those the CLI lists under the driver's plugin: none here.
    expect(inspection.skills).toMatchObject({ status: "observed", value: { skills: [] } });
    for (const panel of ["quota", "profile"] as const) expect(inspection[panel].status).toBe("unsupported");

    // One transient process, no user message, nothing kept, no conversation on disk.
    const log = await fake.log();
    const spawns = log.filter((e) => e.event === "spawn").slice(before);
    expect(spawns).toHaveLength(1);
    expect(log.some((e) => e.event === "user" && e.pid === spawns[0]!.pid)).toBe(false);
    expect(driver.livePids()).toEqual([]);
    expect(JSON.stringify(inspection)).not.toContain(KEY);
  });

  it("reports an observed empty command list as observed, not unsupported", async () => {
    const { agent } = agentFor({ env: { FAKE_CLI_SCENARIO: "empty-commands" } });
    const inspection = await agent.inspect();
    await agent.close();
    expect(inspection.commands).toMatchObject({ status: "observed", value: [] });
    expect(inspection.commands.evidence).toHaveLength(1);
  });

  it("reports models and account unavailable (auth_required) without a login, never a static list", async () => {
    const { agent } = agentFor({ env: { FAKE_CLI_SCENARIO: "auth-missing", ANTHROPIC_API_KEY: undefined } });
    const inspection = await agent.inspect();
    await agent.close();
    expect(inspection.auth).toMatchObject({ status: "unavailable", reason: { code: "auth_required" } });
    expect(inspection.models).toMatchObject({ status: "unavailable", reason: { code: "auth_required" } });
    expect(inspection.models.value).toBeUndefined();
    expect(inspection.commands.status).toBe("observed");
  });

  it("answers every panel unavailable (executable_not_found) for a missing executable, without throwing", async () => {
    const agent = createAgent(claude({ executable: join(fake.root, "no-such-claude") }), { workspace: fake.workspace });
    const inspection = await agent.inspect();
    await agent.close();
    for (const panel of ["environment", "models", "commands", "skills", "mcp", "quota", "profile", "configuration", "auth"] as const) {
      expect(inspection[panel]).toMatchObject({ status: "unavailable", reason: { code: "executable_not_found" } });
    }
    expect(JSON.stringify(inspection)).not.toContain(fake.root);
  });

  it("answers every panel unavailable when the CLI exits before initialize", async () => {
    const { agent } = agentFor({ env: { FAKE_CLI_SCENARIO: "exit-before-init" } });
    const inspection = await agent.inspect();
    await agent.close();
    expect(inspection.models).toMatchObject({ status: "unavailable", reason: { code: "provider_error" } });
    expect(inspection.models.reason!.message).toMatch(/exited with code 3 before answering initialize/);
  });
});

describe("claude run(): event mapping", () => {
  it("maps a text turn: thread.bound, deltas, completion, per-turn and cumulative usage, cost", async () => {
    const { agent } = agentFor();
    const stream = agent.stream("hello");
    const events = await collect(stream);
    const result = await stream.result;
    await agent.close();

    expect(types(events)).toEqual(["run.started", "thread.bound", "message.delta", "message.delta", "message.delta", "message.delta", "message.completed", "usage.observed", "run.completed"]);
    const deltas = ofType(events, "message.delta");
    const completed = ofType(events, "message.completed")[0]!;
    expect(deltas.map((d) => d.text).join("")).toBe("Hello from the fake CLI.");
    expect(new Set(deltas.map((d) => d.itemId))).toEqual(new Set([completed.itemId]));
    expect(completed.provenance).toMatchObject({ provider: "claude" });
    expect(result.text).toBe("Hello from the fake CLI.");
    expect(result.usage).toEqual({
      input_tokens: 84,
      output_tokens: 34,
      cached_input_tokens: 7,
      cache_creation_input_tokens: 3,
      cumulative_input_tokens: 184,
      cumulative_output_tokens: 64,
      cumulative_cached_input_tokens: 7,
      cumulative_cache_creation_input_tokens: 3,
      context_size: 200000,
      cumulative_cost_usd: 0.0012,
    });
    expect(result.usage!.total_tokens).toBeUndefined();
    expect(result.providerSessionId).toBe(ofType(events, "thread.bound")[0]!.providerSessionId);
  });

  it("maps thinking to reasoning events", async () => {
    const { agent } = agentFor();
    const events = await collect(agent.stream("[[think]] then answer"));
    await agent.close();
    const reasoning = ofType(events, "reasoning.completed");
    expect(reasoning).toHaveLength(1);
    expect(reasoning[0]!.text).toBe("Let me think about it.");
    expect(ofType(events, "reasoning.delta").map((d) => d.text).join("")).toBe("Let me think about it.");
  });

  it("maps TodoWrite to plan.updated and reports no tool events for it", async () => {
    const { agent } = agentFor();
    const events = await collect(agent.stream("[[todo]]"));
    await agent.close();
    expect(ofType(events, "plan.updated")[0]!.entries).toEqual([
      { text: "Read the code", status: "completed" },
      { text: "Fix the bug", status: "in_progress" },
      { text: "Run the tests", status: "pending" },
    ]);
    expect(ofType(events, "tool.started")).toEqual([]);
    expect(ofType(events, "tool.completed")).toEqual([]);
  });

  it("maps MCP tools to kind mcp and Task to kind subagent, keeping the subagent's own messages out", async () => {
    const { agent } = agentFor();
    const mcp = await collect(agent.stream("[[mcp]]"));
    const task = await collect(agent.stream("[[task]]"));
    await agent.close();
    expect(ofType(mcp, "tool.started")[0]).toMatchObject({ kind: "mcp", title: "docs: search" });
    expect(ofType(mcp, "tool.completed")[0]).toMatchObject({ status: "completed", output: "found 3 documents" });
    expect(ofType(task, "tool.started").map((e) => e.kind)).toEqual(["subagent"]);
    expect(ofType(task, "tool.completed")[0]).toMatchObject({ status: "completed", output: "The repo has two packages." });
    expect(ofType(task, "message.completed").map((e) => e.text)).toEqual(["Done."]);
  });
});

describe("claude run(): failure fixtures", () => {
  it("reports a malformed stdout line as a notice and finishes the turn", async () => {
    const { agent } = agentFor();
    const events = await collect(agent.stream("[[malformed]]"));
    await agent.close();
    expect(ofType(events, "notice")).toMatchObject([{ level: "warning", code: "invalid_json" }]);
    expect(events.at(-1)!.type).toBe("run.completed");
  });

  it("fails before delivery when the CLI exits before initialize", async () => {
    const { agent } = agentFor({ env: { FAKE_CLI_SCENARIO: "exit-before-init" } });
    const error = await agent.run("hello").catch((e: unknown) => e);
    await agent.close();
    expect(error).toBeInstanceOf(RunFailedError);
    expect(error).toMatchObject({ code: "provider_exited", phase: "before_delivery" });
  });

  it("fails after delivery when the CLI exits mid-turn, with the stderr hint", async () => {
    const { agent, driver } = agentFor();
    const stream = agent.stream("[[exit-mid-turn]]");
    const events = await collect(stream);
    await agent.close();
    const failed = ofType(events, "run.failed")[0]!;
    expect(failed.error).toMatchObject({ code: "provider_exited", phase: "after_delivery", retryable: false });
    expect(failed.error.message).toMatch(/exited with code 2 before the turn finished \(fatal: the fake CLI crashed mid-turn\)/);
    expect(ofType(events, "message.delta").length).toBeGreaterThan(0);
    expect(driver.livePids()).toEqual([]);
  });

  it("turns an is_error result (subtype success, HTTP 529) into run.failed with the reported message", async () => {
    const { agent } = agentFor();
    const events = await collect(agent.stream("[[error]]"));
    await agent.close();
    expect(ofType(events, "notice")).toMatchObject([{ level: "info", code: "api_retry" }]);
    expect(ofType(events, "run.failed")[0]!.error).toEqual({
      code: "provider_overloaded",
      message: "API Error: Repeated 529 Overloaded errors",
      phase: "after_delivery",
      retryable: true,
    });
  });

  it("refuses a run before delivery when initialize reports no credential, naming the login", async () => {
    const { agent } = agentFor({ env: { ANTHROPIC_API_KEY: undefined } });
    const error = await agent.run("[[auth]]").catch((e: unknown) => e);
    await agent.close();
    expect(error).toBeInstanceOf(AuthRequiredError);
    expect(error).toMatchObject({
      code: "auth_required",
      phase: "before_delivery",
      message: "Claude Code is not signed in and has no API key; run `claude` and sign in with /login, or set ANTHROPIC_API_KEY",
    });
  });

  it("fails fast for a missing executable", async () => {
    const agent = createAgent(claude({ executable: join(fake.root, "missing") }), { workspace: fake.workspace });
    const error = await agent.run("hello").catch((e: unknown) => e);
    await agent.close();
    expect(error).toMatchObject({ code: "executable_not_found", phase: "before_delivery" });
  });
});

describe("claude run(): permissions and questions", () => {
  it("asks the host through approval events and answers allow in Claude's shape", async () => {
    const asked: unknown[] = [];
    const { agent } = agentFor({}, { defaults: { onApproval: async (request) => (asked.push(request), { decision: "allow" }) } });
    const events = await collect(agent.stream("[[write]]"));
    await agent.close();
    const order = types(events).filter((t) => t.startsWith("tool.") || t.startsWith("approval."));
    expect(order).toEqual(["tool.started", "approval.requested", "approval.resolved", "tool.completed"]);
    const started = ofType(events, "tool.started")[0]!;
    expect(started).toMatchObject({ kind: "file_change", title: `Write: ${join(fake.workspace, "fake.txt")}` });
    expect(ofType(events, "approval.requested")[0]).toMatchObject({ kind: "file_change", callId: started.callId, summary: `Write: ${join(fake.workspace, "fake.txt")} (Write wants to run)` });
    expect(asked[0]).toMatchObject({ input: { file_path: join(fake.workspace, "fake.txt") } });
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ callId: started.callId, status: "completed" });
    expect(await readFile(join(fake.workspace, "fake.txt"), "utf8")).toBe("written by the fake CLI\n");
    expect((await fake.log()).filter((e) => e.event === "permission").at(-1)).toMatchObject({ ok: true });
  });

  it("passes an updated input back with the allow", async () => {
    const { agent } = agentFor({}, {
      defaults: {
        onApproval: async (request) => ({ decision: "allow", updatedInput: { ...(request.input as object), content: "rewritten by the host\n" } }),
      },
    });
    await agent.run("[[write]]");
    await agent.close();
    expect(await readFile(join(fake.workspace, "fake.txt"), "utf8")).toBe("rewritten by the host\n");
  });

  it("denies with the host's message: declined tool, Claude-shaped deny", async () => {
    const { agent } = agentFor({}, { defaults: { onApproval: async () => ({ decision: "deny", message: "not today" }) } });
    const events = await collect(agent.stream("[[bash]]"));
    await agent.close();
    expect(ofType(events, "tool.started")[0]).toMatchObject({ kind: "command", title: "Bash: echo hi" });
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ status: "declined", output: "not today" });
    expect((await fake.log()).filter((e) => e.event === "permission").at(-1)).toMatchObject({ ok: false, shape: "claude" });
  });

  it("denies when no approval handler is configured, never allows", async () => {
    const { agent } = agentFor();
    const events = await collect(agent.stream("[[bash]]"));
    await agent.close();
    expect(ofType(events, "approval.resolved")[0]).toMatchObject({ decision: { decision: "deny" }, by: "policy" });
    expect((await fake.log()).filter((e) => e.event === "permission").at(-1)).toMatchObject({ ok: false, shape: "claude" });
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ status: "declined" });
  });

  it("asks each AskUserQuestion question separately and answers the batch once all answers are in", async () => {
    const seen: unknown[] = [];
    const { agent } = agentFor({}, {
      defaults: {
        onUserInput: async (request) => {
          seen.push(request);
          const question = request.questions[0]!;
          return { answers: { [question.id]: question.multiSelect ? ["Auth", "Search"] : "SQLite" } };
        },
      },
    });
    const stream = agent.stream("[[ask]]");
    const events = await collect(stream);
    const result = await stream.result;
    await agent.close();
    const requested = ofType(events, "question.requested");
    expect(requested).toHaveLength(2);
    expect(requested[0]!.questions).toEqual([
      { id: "q1", question: "Which database?", header: "Database", options: [{ label: "Postgres", description: "SQL" }, { label: "SQLite", description: "Embedded" }], multiSelect: false, allowOther: true },
    ]);
    expect(requested[1]!.questions[0]).toMatchObject({ id: "q2", multiSelect: true });
    expect(ofType(events, "question.resolved").map((e) => e.answered)).toEqual([true, true]);
    expect(result.text).toBe('answers: {"Which database?":"SQLite","Which features?":"Auth, Search"}');
    expect(ofType(events, "tool.started")).toEqual([]);
  });

  it("declines the whole batch when one question is declined", async () => {
    const { agent } = agentFor({}, {
      defaults: { onUserInput: async (request) => (request.questions[0]!.id === "q1" ? { declined: true } : { answers: { q2: ["Auth"] } }) },
    });
    const result = await agent.run("[[ask]]");
    await agent.close();
    expect(result.text).toBe("no answers");
  });
});

describe("claude run(): cancellation", () => {
  it("interrupts a streaming turn, ends with exactly one run.cancelled and reaps the process", async () => {
    const { agent, driver } = agentFor();
    const stream = agent.stream("[[slow]]");
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "message.delta" && ofType(events, "message.delta").length === 3) stream.cancel("enough");
    }
    await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
    await agent.close();
    expect(types(events).filter((t) => t.startsWith("run."))).toEqual(["run.started", "run.cancelled"]);
    expect(events.at(-1)).toMatchObject({ type: "run.cancelled", reason: "enough" });
    const interrupts = (await fake.log()).filter((e) => e.event === "interrupt");
    expect(interrupts.at(-1)).toMatchObject({ session: expect.any(String) });
    expect(driver.livePids()).toEqual([]);
  });
});

describe("claude run(): inputs, resume and fork", () => {
  it("sends images and PDFs as native content blocks", async () => {
    const driver = claude(config());
    const image = join(fake.root, "in.png");
    const pdf = join(fake.root, "in.pdf");
    await writeFile(image, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]));
    await writeFile(pdf, Buffer.from("%PDF-1.4 fake"));
    const run = await runDirect(driver, {
      prompt: "[[blocks]]",
      workspace: fake.workspace,
      inputs: [
        { id: "i1", kind: "image", name: "in.png", mediaType: "image/png", localPath: image, size: 8, sha256: "x", deliveryMode: "native" },
        { id: "i2", kind: "file", name: "in.pdf", mediaType: "application/pdf", localPath: pdf, size: 13, sha256: "y", deliveryMode: "native" },
      ],
    });
    await driver.close();
    expect(run.response?.text).toBe("blocks: text,image:image/png:8,document:application/pdf:13");
    expect(driver.descriptor().inputs).toEqual({
      image: { modes: ["native"], mediaTypes: ["image/png", "image/jpeg", "image/gif", "image/webp"] },
      file: { modes: ["native"], mediaTypes: ["application/pdf"] },
      audio: { modes: [] },
    });
  });

  it("refuses audio before delivery", async () => {
    const driver = claude(config());
    const run = await runDirect(driver, {
      prompt: "hi",
      workspace: fake.workspace,
      inputs: [{ id: "a", kind: "audio", name: "a.wav", mediaType: "audio/wav", localPath: "/nonexistent", size: 1, sha256: "z", deliveryMode: "native" }],
    });
    await driver.close();
    expect(run.error).toMatchObject({ code: "input_mode_unsupported", phase: "before_delivery" });
    expect(run.delivered).toBe(false);
  });

  it("resumes a session by id in a new process, and forks it into a new session", async () => {
    const first = claude(config());
    const one = await runDirect(first, { prompt: "remember the word walnut", workspace: fake.workspace });
    await first.close();
    const sessionId = one.response!.providerSessionId!;
    expect(one.events.find((e) => e.type === "thread.bound")).toMatchObject({ providerSessionId: sessionId });

    const second = claude(config());
    const two = await runDirect(second, { prompt: "[[history]]", workspace: fake.workspace, thread: { id: "t1", providerSessionId: sessionId } });
    expect(two.response?.text).toBe("history: 1 earlier prompts: remember the word walnut");
    expect(two.response?.providerSessionId).toBe(sessionId);

    const forked = await runDirect(second, { prompt: "[[history]]", workspace: fake.workspace, thread: { id: "t2", providerSessionId: sessionId, fork: true } });
    await second.close();
    expect(forked.response?.text).toBe("history: 2 earlier prompts: remember the word walnut | [[history]]");
    expect(forked.response?.providerSessionId).not.toBe(sessionId);

    const spawns = (await fake.spawns()).slice(-3);
    expect(new Set(spawns.map((s) => s.pid)).size).toBe(3);
    expect(spawns[1]!.argv).toEqual(expect.arrayContaining(["--resume", sessionId]));
    expect(spawns[2]!.argv).toEqual(expect.arrayContaining(["--resume", sessionId, "--fork-session"]));
  });

  it("refuses to resume a session from another workspace, before launching", async () => {
    const driver = claude(config());
    const one = await runDirect(driver, { prompt: "hello", workspace: fake.workspace });
    const elsewhere = join(fake.root, "elsewhere");
    await mkdir(elsewhere, { recursive: true });
    const spawnsBefore = (await fake.spawns()).length;
    const two = await runDirect(driver, { prompt: "hello again", workspace: elsewhere, thread: { id: "t", providerSessionId: one.response!.providerSessionId! } });
    await driver.close();
    expect(two.error).toMatchObject({ code: "session_workspace_mismatch", phase: "before_delivery" });
    expect((await fake.spawns()).length).toBe(spawnsBefore);
  });
});

describe("claude prepare() and the standby", () => {
  it("keeps an initialized, unbound standby that creates no session until the first run claims it", async () => {
    const configDir = join(fake.root, "standby-config");
    const { agent, driver } = agentFor({ configDir });
    const spawnsBefore = (await fake.spawns()).length;
    const report = await agent.prepare();
    expect(report.process).toBe("ready");
    expect(report.inspection.commands.status).toBe("observed");
    expect(existsSync(join(configDir, "projects"))).toBe(false);
    expect(driver.livePids()).toHaveLength(1);
    const standbyPid = driver.livePids()[0];

    const result = await agent.run("hello");
    expect(result.text).toBe("Hello from the fake CLI.");
    const spawns = (await fake.spawns()).slice(spawnsBefore);
    expect(spawns.map((s) => s.pid)).toEqual([standbyPid]);
    const log = await fake.log();
    expect(log.filter((e) => e.pid === standbyPid && e.event === "initialize")).toHaveLength(1);
    expect(log.filter((e) => e.pid === standbyPid && e.event === "user")).toHaveLength(1);
    expect(readdirSync(join(configDir, "projects")).length).toBe(1);

    // The standby served one run; the next run starts its own process.
    await agent.run("hello");
    expect((await fake.spawns()).length - spawnsBefore).toBe(2);
    await agent.close();
    expect(driver.livePids()).toEqual([]);
  });

  it("reports transient when the executable is missing", async () => {
    const agent = createAgent(claude({ executable: join(fake.root, "missing") }), { workspace: fake.workspace });
    const report = await agent.prepare();
    await agent.close();
    expect(report.process).toBe("transient");
    expect(report.inspection.environment.reason?.code).toBe("executable_not_found");
  });

  it("bypasses the standby with spawn: true", async () => {
    const { agent, driver } = agentFor({ configDir: join(fake.root, "bypass-config") });
    await agent.prepare();
    const standbyPid = driver.livePids()[0];
    const spawnsBefore = (await fake.spawns()).length;
    await agent.run("hello", { spawn: true });
    const spawns = (await fake.spawns()).slice(spawnsBefore);
    expect(spawns).toHaveLength(1);
    expect(spawns[0]!.pid).not.toBe(standbyPid);
    await agent.close();
  });
});

describe("claude config and environment", () => {
  it("passes the provider base URL and key through the child's environment only", async () => {
    process.env.FAKE_PROVIDER_KEY = "sk-provider-key-abcdef123456";
    process.env.FAKE_HOST_SECRET = "host-secret-value";
    process.env.ANTHROPIC_AUTH_TOKEN = "host-token-that-must-not-pass";
    try {
      const driver = claude({
        executable: fake.executable,
        configDir: fake.configDir,
        provider: { baseUrl: "http://127.0.0.1:9/anthropic", apiKeyEnv: "FAKE_PROVIDER_KEY" },
        env: { FAKE_CLI_LOG: fake.logFile },
      });
      const run = await runDirect(driver, { prompt: "hello", workspace: fake.workspace, policy: { approval: "never" } });
      await driver.close();
      expect(run.response?.text).toBe("Hello from the fake CLI.");
      const spawn = (await fake.spawns()).at(-1)!;
      expect(spawn.env).toEqual({ hasKey: true, baseUrl: "http://127.0.0.1:9/anthropic", authToken: null, autoupdater: "1", leaked: null });
      expect(JSON.stringify(spawn.argv)).not.toContain("sk-provider-key");
      expect(spawn.argv).toEqual(expect.arrayContaining(["--permission-prompt-tool", "stdio", "--permission-mode", "dontAsk", "--include-partial-messages"]));
    } finally {
      delete process.env.FAKE_PROVIDER_KEY;
      delete process.env.FAKE_HOST_SECRET;
      delete process.env.ANTHROPIC_AUTH_TOKEN;
    }
  });

  it("passes model, effort, setting sources and extra args on the command line", async () => {
    const driver = claude(config({ model: "fake-sonnet", effort: "high", settingSources: [], args: ["--max-turns", "3"] }));
    await runDirect(driver, { prompt: "hello", workspace: fake.workspace, model: "per-call-model" });
    await driver.close();
    const argv = (await fake.spawns()).at(-1)!.argv as string[];
    expect(argv).toEqual(expect.arrayContaining(["--model", "per-call-model", "--effort", "high", "--setting-sources", "", "--max-turns", "3"]));
    expect(argv.slice(0, 5)).toEqual(["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]);
  });

  it("validates its config", () => {
    const bad: ClaudeConfig[] = [
      { executable: "" },
      { configDir: "relative/dir" },
      { provider: { baseUrl: "not a url", apiKeyEnv: "X" } },
      { provider: { baseUrl: "http://127.0.0.1:1", apiKeyEnv: "has space" } },
      { args: ["ok", 3 as unknown as string] },
      { settingSources: ["everything" as "user"] },
    ];
    for (const config of bad) {
      expect(() => claude(config).validateConfig(), JSON.stringify(config)).toThrow(expect.objectContaining({ code: "config_invalid" }));
    }
    expect(() => claude({ model: "sonnet", settingSources: ["user", "project"] }).validateConfig()).not.toThrow();
    expect(AdaptorError.is(new RunFailedError({ code: "provider_error", message: "y", phase: "after_delivery", retryable: false }, { runId: "r", text: "" }))).toBe(true);
  });

  it("has a stable fingerprint that changes with the config but never holds env values", () => {
    const a = claude({ executable: "/x/claude", env: { SECRET_THING: "s3cr3t-value" } }).fingerprint!();
    expect(a).toBe(claude({ executable: "/x/claude", env: { SECRET_THING: "s3cr3t-value" } }).fingerprint!());
    expect(a).not.toContain("s3cr3t-value");
    expect(claude({ executable: "/x/claude", model: "other" }).fingerprint!()).not.toBe(a);
  });
});

describe("claude through the public API: threads and per-run inputs", () => {
  it("continues a thread by resuming its session in a new process, and forks it natively", async () => {
    // No warm writer: each turn starts its own process, so the second one must resume.
    const { agent } = agentFor({}, { threadWriterIdleMs: 0 });
    try {
      const thread = await agent.startThread();
      const first = await thread.run("remember the word hazel");
      const second = await thread.run("[[history]]");
      expect(second.text).toBe("history: 1 earlier prompts: remember the word hazel");
      expect(second.providerSessionId).toBe(first.providerSessionId);
      const fork = await thread.fork();
      const forked = await fork.run("[[history]]");
      expect(forked.text).toBe("history: 2 earlier prompts: remember the word hazel | [[history]]");
      expect(forked.providerSessionId).not.toBe(first.providerSessionId);
      const spawns = (await fake.spawns()).slice(-3);
      expect(spawns[1]!.argv).toEqual(expect.arrayContaining(["--resume", first.providerSessionId!]));
      expect(spawns[2]!.argv).toEqual(expect.arrayContaining(["--resume", first.providerSessionId!, "--fork-session"]));
    } finally {
      await agent.close();
    }
  });

  it("delivers inputs given to run() as native blocks", async () => {
    const { input } = await import("../../../src/index.js");
    const image = join(fake.root, "api.png");
    await writeFile(image, PNG_1X1);
    const { agent } = agentFor();
    try {
      const result = await agent.run("[[blocks]]", { inputs: [input.fromPath("image", image, { mediaType: "image/png" })] });
      expect(result.text).toBe(`blocks: text,image:image/png:${PNG_1X1.length}`);
    } finally {
      await agent.close();
    }
  });
});
