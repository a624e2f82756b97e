/**
 * The Codex driver against a fake `codex app-server` executable that speaks the real protocol
 * shapes (no "jsonrpc" field, `emittedAtMs`, server→client requests with their own ids): the
 * failure fixtures and the event mapping (the conformance kit runs in conformance.test.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import { codex, isCodexStandby, type CodexConfig, type CodexDriver, type CodexStandby } from "../../../src/drivers/codex/index.js";
import { resolveExecutable } from "../../../src/drivers/codex/executable.js";
import { AdaptorError, AuthRequiredError, ConfigError, RunFailedError } from "../../../src/errors/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { readFakeLog, runDirect, writeFakeCodex } from "./harness.js";

const root = mkdtempSync(join(tmpdir(), "codex-fake-"));
const executable = writeFakeCodex(root);
let n = 0;

afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Fixture {
  driver: CodexDriver;
  workspace: string;
  home: string;
  log: string;
}

/** A driver on the fake executable with its own home, workspace and request log. */
function fake(mode = "", extra: CodexConfig = {}): Fixture {
  const dir = join(root, `case-${++n}`);
  const workspace = join(dir, "workspace");
  const home = join(dir, "home");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true });
  const log = join(dir, "log.jsonl");
  const driver = codex({ executable, home, env: { FAKE_CODEX_MODE: mode, FAKE_CODEX_LOG: log }, ...extra });
  return { driver, workspace, home, log };
}

const requests = (log: string, method: string) => readFakeLog(log).filter((e) => e.event === "request" && e.method === method);
const spawns = (log: string) => readFakeLog(log).filter((e) => e.event === "spawn");

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("codex driver on a fake app-server", () => {
  describe("inspect", () => {
    it("maps every panel with evidence naming the transport, method and provider version", async () => {
      const { driver, workspace } = fake();
      const agent = createAgent(driver, { workspace });
      try {
        const inspection = await agent.inspect();
        expect(inspection.driver).toEqual({ id: "codex", name: "OpenAI Codex", transport: "codex app-server" });
        expect(inspection.environment.status).toBe("observed");
        expect(inspection.environment.value).toMatchObject({ version: "9.9.9-fake", platform: "unix/linux", executablePath: executable });
        expect(inspection.environment.evidence[0]).toMatchObject({ transport: "codex app-server", method: "initialize", providerVersion: "9.9.9-fake" });

        // Two pages of model/list: two evidence records, hidden model kept, unknown numbers undefined.
        expect(inspection.models.status).toBe("observed");
        expect(inspection.models.evidence.map((e) => e.method)).toEqual(["model/list", "model/list"]);
        expect(inspection.models.value).toEqual([
          {
            id: "fake-model",
            displayName: "FAKE-MODEL",
            description: "The fake-model model",
            hidden: false,
            isDefault: true,
            inputModalities: ["text", "image"],
            efforts: [
              { id: "low", description: "Fast" },
              { id: "high", description: "Deep" },
            ],
            defaultEffort: "low",
          },
          expect.objectContaining({ id: "fake-hidden", hidden: true, isDefault: false }),
        ]);
        expect(inspection.models.value![1]!.defaultEffort).toBeUndefined();
        expect(inspection.models.value![0]!.contextWindow).toBeUndefined();

        expect(inspection.commands).toMatchObject({ status: "unsupported", reason: { code: "method_unsupported" }, evidence: [] });
        expect(inspection.skills).toMatchObject({ status: "observed", value: { skills: [{ name: "fake-skill", source: "system", enabled: true }] } });
        expect(inspection.skills.evidence[0]).toMatchObject({ method: "skills/list", scope: "workspace" });
        expect(inspection.mcp).toMatchObject({ status: "observed", value: { servers: [] } });
        expect(inspection.mcp.evidence[0]!.method).toBe("config/read");
        expect(inspection.quota).toMatchObject({ status: "unavailable", reason: { code: "auth_required" } });
        expect(inspection.quota.evidence[0]!.method).toBe("account/rateLimits/read");
        // A custom provider needs no OpenAI sign-in: observed, not signed in.
        expect(inspection.auth).toMatchObject({ status: "observed", value: { signedIn: false } });
        expect(inspection.auth.evidence[0]!.method).toBe("account/read");
        expect(inspection.configuration).toMatchObject({ status: "observed", value: { model: "fake-model", effort: "high" } });
        expect(inspection.configuration.value).toEqual({ model: "fake-model", effort: "high", modelProvider: "fake", features: { plugins: false } });
        expect(inspection.profile).toMatchObject({ status: "observed", value: {} });
        // The inspection process was stopped when inspect() returned (its reaping may still be finishing).
        expect(driver.processes().started).toBe(1);
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });

    it("reports an observed empty catalogue, distinct from unsupported", async () => {
      const { driver, workspace } = fake("empty-models");
      const agent = createAgent(driver, { workspace });
      try {
        const inspection = await agent.inspect();
        expect(inspection.models).toMatchObject({ status: "observed", value: [] });
        expect(inspection.models.evidence).toHaveLength(1);
      } finally {
        await agent.close();
      }
    });

    it("reports auth_required when the provider needs an OpenAI account nobody signed in to", async () => {
      const { driver, workspace } = fake("needs-auth");
      const agent = createAgent(driver, { workspace });
      try {
        const inspection = await agent.inspect();
        expect(inspection.auth).toMatchObject({ status: "unavailable", reason: { code: "auth_required" } });
        expect(inspection.auth.evidence[0]!.method).toBe("account/read");
      } finally {
        await agent.close();
      }
    });

    it("turns a missing executable into executable_not_found on every panel, not a throw", async () => {
      const driver = codex({ executable: join(root, "no-such-codex") });
      const agent = createAgent(driver, { workspace: root });
      try {
        const inspection = await agent.inspect();
        for (const panel of ["environment", "models", "commands", "skills", "mcp", "quota", "profile", "configuration", "auth"] as const) {
          expect(inspection[panel]).toMatchObject({ status: "unavailable", reason: { code: "executable_not_found" } });
        }
        await expect(agent.run("hello")).rejects.toMatchObject({ code: "executable_not_found", phase: "before_delivery" });
      } finally {
        await agent.close();
      }
    });

    it("reports an exit before initialize as an unavailable inspection and a provider_exited run, with a redacted stderr excerpt", async () => {
      const { driver, workspace } = fake("exit-before-init");
      const agent = createAgent(driver, { workspace });
      try {
        const inspection = await agent.inspect();
        expect(inspection.environment.status).toBe("unavailable");
        expect(inspection.environment.reason!.code).toBe("provider_error");
        expect(inspection.environment.reason!.message).toContain("exit code 1");
        expect(inspection.environment.reason!.message).toContain("is no longer supported");
        expect(inspection.environment.reason!.message).not.toContain("sk-fakesecretvalue123456");
        expect(inspection.environment.reason!.message).not.toContain("\u001b[");
        expect(inspection.models.reason!.code).toBe("provider_error");

        const error = await agent.run("hello").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RunFailedError);
        expect(error).toMatchObject({ code: "provider_exited", phase: "before_delivery" });
        expect((error as Error).message).toContain("before answering initialize");
        expect((error as Error).message).not.toContain("sk-fakesecretvalue123456");
      } finally {
        await agent.close();
      }
    });
  });

  describe("prepare", () => {
    it("keeps an initialized unbound standby that the next run claims without a second spawn", async () => {
      const { driver, workspace, log } = fake();
      const prepared = await driver.prepare(
        { workspace, resources: { tools: [], skills: [], mcp: [] }, policy: {}, signature: "sig" },
        new AbortController().signal,
      );
      try {
        expect(prepared.process).toBe("ready");
        expect(prepared.inspection.models.status).toBe("observed");
        const standby = prepared.standby as CodexStandby;
        expect(isCodexStandby(standby)).toBe(true);
        expect(standby.isAlive()).toBe(true);
        expect(await standby.threads()).toEqual({ persisted: [], loaded: [] });
        expect(requests(log, "thread/start")).toHaveLength(0);

        const outcome = await runDirect(driver, { prompt: "hi", workspace, standby });
        expect(outcome.error).toBeUndefined();
        expect(outcome.response!.text).toBe("Hello from fake codex.");
        expect(spawns(log)).toHaveLength(1);
        expect(driver.processes().started).toBe(1);
        expect(standby.isAlive()).toBe(false);
        // The finished turn's process retires in the background (issue #14 item 3).
        await expect.poll(() => driver.processes().live, { timeout: 5_000 }).toEqual([]);
      } finally {
        await prepared.standby?.close();
        await driver.close();
      }
    });

    it("lets an agent's run claim the prepared standby", async () => {
      const { driver, workspace, log } = fake();
      const agent = createAgent(driver, { workspace });
      try {
        const report = await agent.prepare();
        expect(report.process).toBe("ready");
        expect(driver.processes().live).toHaveLength(1);
        const result = await agent.run("hello");
        expect(result.text).toBe("Hello from fake codex.");
        expect(spawns(log)).toHaveLength(1);
        expect(requests(log, "thread/start")).toHaveLength(1);
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });

    it("reports transient when the provider cannot be started, keeping nothing", async () => {
      const { driver, workspace } = fake("exit-before-init");
      const agent = createAgent(driver, { workspace });
      try {
        const report = await agent.prepare();
        expect(report.process).toBe("transient");
        expect(report.inspection.environment.reason!.code).toBe("provider_error");
      } finally {
        await agent.close();
      }
    });
  });

  describe("run", () => {
    it("refuses a run before delivery when account/read says the provider needs a login, naming codex login and CODEX_API_KEY", async () => {
      const { driver, workspace } = fake("needs-auth");
      const agent = createAgent(driver, { workspace });
      try {
        const stream = agent.stream("say hello");
        const events = await collect(stream);
        const error = await stream.result.then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(AuthRequiredError);
        expect(error).toMatchObject({ code: "auth_required", runId: stream.runId, phase: "before_delivery" });
        expect((error as Error).message).toContain("run `codex login`, or set CODEX_API_KEY");
        expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "auth_required", phase: "before_delivery" } });
        expect(events.some((e) => e.type === "thread.bound")).toBe(false);
      } finally {
        await agent.close();
      }
    });

    it("maps messages, reasoning, plan, commands, file changes, usage and the thread binding", async () => {
      const { driver, workspace } = fake();
      const agent = createAgent(driver, { workspace });
      try {
        const stream = agent.stream("FULL turn please");
        const events = await collect(stream);
        const result = await stream.result;
        expect(result.text).toBe("Hello from fake codex.");
        const types = events.map((e) => e.type);
        expect(types[0]).toBe("run.started");
        expect(types.at(-1)).toBe("run.completed");

        const bound = events.find((e) => e.type === "thread.bound");
        expect(bound).toMatchObject({ providerSessionId: expect.stringMatching(/^thr_/) });
        expect(result.providerSessionId).toBe((bound as { providerSessionId: string }).providerSessionId);

        const reasoning = events.filter((e) => e.type === "reasoning.delta").map((e) => (e as { text: string }).text).join("");
        expect(reasoning).toBe("Thinking\n\nMore");
        expect(events.find((e) => e.type === "reasoning.completed")).toMatchObject({ text: "Thinking\n\nMore" });
        expect(events.find((e) => e.type === "plan.updated")).toMatchObject({
          entries: [
            { text: "look", status: "completed" },
            { text: "answer", status: "in_progress" },
          ],
        });
        expect(events.find((e) => e.type === "tool.started" && e.kind === "command")).toMatchObject({ title: "/bin/bash -lc 'echo hi'" });
        expect(events.find((e) => e.type === "tool.updated" && e.output !== undefined)).toMatchObject({ output: "hi\n" });
        expect(events.find((e) => e.type === "tool.completed" && e.exitCode !== undefined)).toMatchObject({ status: "completed", exitCode: 0, output: "hi\n" });
        expect(events.find((e) => e.type === "tool.started" && e.kind === "file_change")).toMatchObject({ title: "Edit /w/a.txt" });
        expect(events.find((e) => e.type === "tool.completed" && e.files !== undefined)).toMatchObject({
          files: [{ path: "/w/a.txt", change: "added", diff: expect.stringContaining("--- /dev/null\n+++ b/w/a.txt\n") }],
        });
        // The turn's aggregate diff (turn/diff/updated) is not glued onto a call.
        expect(events.some((e) => (e.type === "tool.updated" || e.type === "tool.completed") && Object.hasOwn(e, "diff"))).toBe(false);
        expect(events.find((e) => e.type === "notice" && e.code === "codex_warning")).toBeDefined();

        const deltas = events.filter((e) => e.type === "message.delta").map((e) => (e as { text: string }).text).join("");
        expect(deltas).toBe("Hello from fake codex.");
        const usage = events.find((e) => e.type === "usage.observed") as unknown as { usage: Record<string, number> };
        expect(usage.usage).toEqual({
          input_tokens: 10,
          output_tokens: 5,
          total_tokens: 15,
          cached_input_tokens: 2,
          cache_creation_input_tokens: 0,
          reasoning_output_tokens: 1,
          cumulative_input_tokens: 20,
          cumulative_output_tokens: 10,
          cumulative_total_tokens: 30,
          cumulative_cached_input_tokens: 4,
          cumulative_cache_creation_input_tokens: 0,
          cumulative_reasoning_output_tokens: 2,
          context_size: 1000,
        });
        expect(result.usage).toEqual(usage.usage);
        // Provenance keeps the provider's ids and method names, never payloads.
        expect(events.find((e) => e.type === "message.completed")!.provenance).toMatchObject({ provider: "codex", event: "item/completed" });
      } finally {
        await agent.close();
      }
    });

    it("surfaces an unknown notification as a notice and keeps going", async () => {
      const { driver, workspace } = fake();
      const agent = createAgent(driver, { workspace });
      try {
        const stream = agent.stream("UNKNOWN notification ahead");
        const events = await collect(stream);
        expect(events.find((e) => e.type === "notice" && e.code === "unknown_notification")).toMatchObject({
          message: expect.stringContaining("fake/brandNewNotification"),
        });
        expect((await stream.result).text).toBe("Hello from fake codex.");
      } finally {
        await agent.close();
      }
    });

    it("survives a malformed frame, reporting it as a notice", async () => {
      const { driver, workspace } = fake("malformed");
      const agent = createAgent(driver, { workspace });
      try {
        const stream = agent.stream("MALFORMED frame ahead");
        const events = await collect(stream);
        // A line that is not JSON is invalid_json on every driver.
        expect(events.find((e) => e.type === "notice" && e.code === "invalid_json")).toBeDefined();
        expect((await stream.result).text).toBe("Hello from fake codex.");
      } finally {
        await agent.close();
      }
    });

    it("fails with provider_exited after delivery when the process exits mid-turn", async () => {
      const { driver, workspace } = fake();
      const agent = createAgent(driver, { workspace });
      try {
        const stream = agent.stream("EXIT_MID_TURN now");
        const events = await collect(stream);
        const failed = events.at(-1);
        expect(failed).toMatchObject({ type: "run.failed", error: { code: "provider_exited", phase: "after_delivery", retryable: false } });
        expect((failed as { error: { message: string } }).error.message).toContain("exit code 3");
        expect((failed as { error: { message: string } }).error.message).toContain("fake crash mid-turn");
        expect(events.filter((e) => e.type === "run.failed")).toHaveLength(1);
        await expect(stream.result).rejects.toMatchObject({ code: "provider_exited", phase: "after_delivery", partial: { text: "partial" } });
        expect(driver.processes().live).toEqual([]);
      } finally {
        await agent.close();
      }
    });

    it("maps a failed turn's codexErrorInfo to a stable code and retries to notices", async () => {
      const { driver, workspace } = fake();
      const agent = createAgent(driver, { workspace });
      try {
        const stream = agent.stream("FAIL please");
        const events = await collect(stream);
        expect(events.find((e) => e.type === "notice" && e.code === "provider_retry")).toMatchObject({ message: "Reconnecting... 1/5" });
        expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "context_window_exceeded", phase: "after_delivery" } });
        await expect(stream.result).rejects.toBeInstanceOf(RunFailedError);
      } finally {
        await agent.close();
      }
    });

    it("asks the host through onApproval and answers Codex in its vocabulary", async () => {
      const { driver, workspace, log } = fake();
      const seen: unknown[] = [];
      const agent = createAgent(driver, {
        workspace,
        defaults: {
          onApproval: async (request) => {
            seen.push(request);
            return { decision: "allow" };
          },
        },
      });
      try {
        const stream = agent.stream("APPROVE this");
        const events = await collect(stream);
        expect((await stream.result).text).toBe('decision: "accept"');
        expect(events.find((e) => e.type === "approval.requested")).toMatchObject({
          kind: "command",
          callId: expect.stringMatching(/^call_/),
          summary: "Run `touch x` — wants to escape the sandbox",
          options: [
            { id: "accept", kind: "allow_once" },
            { id: "acceptWithExecpolicyAmendment", kind: "allow_always" },
            { id: "cancel", kind: "deny" },
          ],
        });
        expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: { decision: "allow" }, by: "handler" });
        expect(seen[0]).toMatchObject({ input: { command: "touch x", cwd: "/w" } });
        expect(readFakeLog(log).filter((e) => e.event === "decision").map((e) => e.decision)).toEqual(["accept"]);
      } finally {
        await agent.close();
      }
    });

    it("declines when no approval handler is installed (never a silent accept)", async () => {
      const { driver, workspace, log } = fake();
      const agent = createAgent(driver, { workspace });
      try {
        const stream = agent.stream("APPROVE this");
        const events = await collect(stream);
        expect((await stream.result).text).toBe('decision: "decline"');
        expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: { decision: "deny" }, by: "policy" });
        expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ status: "declined" });
        expect(readFakeLog(log).filter((e) => e.event === "decision").map((e) => e.decision)).toEqual(["decline"]);
      } finally {
        await agent.close();
      }
    });

    it("ends as cancelled when the host denies and stops the turn", async () => {
      const { driver, workspace, log } = fake();
      const agent = createAgent(driver, { workspace, defaults: { onApproval: async () => ({ decision: "deny", interrupt: true }) } });
      try {
        const stream = agent.stream("APPROVE this");
        const events = await collect(stream);
        expect(events.filter((e) => e.type === "run.cancelled")).toHaveLength(1);
        expect(events.at(-1)!.type).toBe("run.cancelled");
        await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
        expect(readFakeLog(log).filter((e) => e.event === "decision").map((e) => e.decision)).toEqual(["cancel"]);
      } finally {
        await agent.close();
      }
    });

    it("resolves a pending approval as cancelled when the run is cancelled, before the single terminal", async () => {
      const { driver, workspace, log } = fake();
      const agent = createAgent(driver, {
        workspace,
        defaults: {
          // A handler that honours the signal: it answers only when the run is cancelled.
          onApproval: (_request, signal) =>
            new Promise((resolve) => signal.addEventListener("abort", () => resolve({ decision: "deny", message: "cancelled" }), { once: true })),
        },
      });
      try {
        const stream = agent.stream("APPROVE this");
        const events: AgentEvent[] = [];
        for await (const event of stream) {
          events.push(event);
          if (event.type === "approval.requested") stream.cancel("operator stop");
        }
        const types = events.map((e) => e.type);
        expect(types.filter((t) => t === "run.cancelled" || t === "run.failed" || t === "run.completed")).toEqual(["run.cancelled"]);
        expect(types.at(-1)).toBe("run.cancelled");
        expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ by: "cancel", decision: { decision: "deny" } });
        expect(types.indexOf("approval.resolved")).toBeLessThan(types.indexOf("run.cancelled"));
        expect(requests(log, "turn/interrupt")).toHaveLength(1);
        expect(readFakeLog(log).filter((e) => e.event === "decision").map((e) => e.decision)).toEqual(["interrupted-before-answer"]);
        expect(driver.processes().live).toEqual([]);
      } finally {
        await agent.close();
      }
    });

    it("maps a permissions request, granting exactly what was asked for the chosen scope", async () => {
      const { driver, workspace } = fake();
      const agent = createAgent(driver, { workspace, defaults: { onApproval: async () => ({ decision: "allow", scope: "session" }) } });
      try {
        const stream = agent.stream("PERMS please");
        const events = await collect(stream);
        expect(events.find((e) => e.type === "approval.requested")).toMatchObject({
          kind: "permissions",
          callId: "perm_1",
          summary: "Grant network access and write access to /w/out — needs the network",
        });
        expect((await stream.result).text).toBe('permissions: {"permissions":{"network":{"enabled":true},"fileSystem":{"write":["/w/out"]}},"scope":"session"}');
        const denied = createAgent(driver, { workspace });
        try {
          expect((await denied.run("PERMS again")).text).toBe('permissions: {"permissions":{},"scope":"turn"}');
        } finally {
          await denied.close();
        }
      } finally {
        await agent.close();
      }
    });

    it("routes requestUserInput to onUserInput", async () => {
      const { driver, workspace } = fake();
      const agent = createAgent(driver, {
        workspace,
        defaults: { onUserInput: async (request) => ({ answers: { [request.questions[0]!.id]: "blue" } }) },
      });
      try {
        const stream = agent.stream("ASK me");
        const events = await collect(stream);
        expect(events.find((e) => e.type === "question.requested")).toMatchObject({
          questions: [{ id: "color", header: "Color", question: "Which colour?", options: [{ label: "red", description: "warm" }, { label: "blue", description: "cold" }] }],
        });
        expect(events.find((e) => e.type === "question.resolved")).toMatchObject({ answered: true });
        expect((await stream.result).text).toBe('answers: {"answers":{"color":{"answers":["blue"]}}}');
      } finally {
        await agent.close();
      }
    });

    it("steers the active turn with turn/steer", async () => {
      const { driver, workspace, log } = fake();
      const agent = createAgent(driver, { workspace });
      try {
        const stream = agent.stream("STEER me");
        let steered = false;
        for await (const event of stream) {
          if (!steered && event.type === "message.delta") {
            steered = true;
            await driver.steer(stream.runId, "go left", AbortSignal.timeout(10_000));
          }
        }
        expect((await stream.result).text).toBe("steered: go left");
        const steer = requests(log, "turn/steer")[0]!;
        expect(steer.params).toMatchObject({ input: [{ type: "text", text: "go left" }], expectedTurnId: expect.stringMatching(/^turn_/) });
        await expect(driver.steer(stream.runId, "too late", AbortSignal.timeout(1000))).rejects.toMatchObject({ code: "steer_rejected" });
        expect(driver.descriptor().features.steer).toBe("native");
      } finally {
        await agent.close();
      }
    });

    it("sends the call's policy, model, effort and the agent's instructions to thread/start and turn/start", async () => {
      const { driver, workspace, log } = fake("", { effort: "low" });
      const agent = createAgent(driver, { workspace, instructions: "Be brief." });
      try {
        await agent.run("hello", { model: "other-model", effort: "high", policy: { sandbox: "full-access", approval: "untrusted", network: true } });
        expect(requests(log, "thread/start")[0]!.params).toEqual({
          cwd: workspace,
          model: "other-model",
          sandbox: "danger-full-access",
          approvalPolicy: "untrusted",
          config: { "sandbox_workspace_write.network_access": true },
          developerInstructions: "Be brief.",
        });
        expect(requests(log, "turn/start")[0]!.params).toMatchObject({ effort: "high", input: [{ type: "text", text: "hello", text_elements: [] }] });
        // Refused before anything launches: a ConfigError of the call, not a failed run.
        await expect(agent.run("hello", { policy: { approval: "on-failure" } })).rejects.toMatchObject({ name: "ConfigError", code: "config_invalid" });
      } finally {
        await agent.close();
      }
    });

    it("resumes and forks threads by provider session id, and sends images as localImage", async () => {
      const { driver, workspace, log } = fake();
      try {
        const first = await runDirect(driver, { prompt: "first", workspace });
        const threadId = first.response!.providerSessionId!;
        const image = { id: "in_1", kind: "image" as const, name: "pixel.png", mediaType: "image/png", localPath: join(workspace, "pixel.png"), size: 67, sha256: "x", deliveryMode: "native" as const };
        const resumed = await runDirect(driver, { prompt: "second", workspace, thread: { id: "t1", providerSessionId: threadId }, inputs: [image] });
        expect(resumed.error).toBeUndefined();
        expect(resumed.events.find((e) => e.type === "thread.bound")).toMatchObject({ providerSessionId: threadId });
        expect(requests(log, "thread/resume")[0]!.params).toMatchObject({ threadId, cwd: workspace, excludeTurns: true });
        expect(requests(log, "turn/start")[1]!.params).toMatchObject({ threadId, input: [{ type: "text", text: "second" }, { type: "localImage", path: image.localPath }] });

        const forked = await runDirect(driver, { prompt: "third", workspace, thread: { id: "t2", providerSessionId: threadId, fork: true } });
        expect(requests(log, "thread/fork")[0]!.params).toMatchObject({ threadId });
        expect(forked.response!.providerSessionId).not.toBe(threadId);
        // Each run is its own process, retired afterwards (in the background: issue #14 item 3).
        expect(new Set(spawns(log).map((s) => s.pid)).size).toBe(3);
        await expect.poll(() => driver.processes().live, { timeout: 5_000 }).toEqual([]);
        expect(driver.processes().live).toEqual([]);

        const missing = await runDirect(driver, { prompt: "x", workspace, thread: { id: "t3", providerSessionId: "missing-thread" } });
        expect(missing.error).toMatchObject({ code: "provider_session_not_found", phase: "before_delivery" });
        expect(missing.delivered).toBe(false);

        const audio = await runDirect(driver, { prompt: "x", workspace, inputs: [{ ...image, kind: "audio" }] });
        expect(audio.error).toMatchObject({ code: "input_mode_unsupported", phase: "before_delivery" });
        expect(audio.delivered).toBe(false);
      } finally {
        await driver.close();
      }
    });
  });

  describe("process environment and config", () => {
    it("sets a TMPDIR inside a home that lies in the temp dir, and passes CODEX_HOME", async () => {
      const { driver, workspace, home, log } = fake();
      try {
        await runDirect(driver, { prompt: "hi", workspace });
        const spawn = spawns(log)[0]!;
        expect(spawn.codexHome).toBe(home);
        expect(spawn.tmpdir).toBe(join(home, ".tmp"));
        expect(spawn.args![0]).toBe("app-server");
      } finally {
        await driver.close();
      }
    });

    it("writes the provider, model and extra args as app-server overrides", async () => {
      const { driver, workspace, log } = fake("", {
        model: "m1",
        provider: { id: "local", baseUrl: "http://127.0.0.1:9/v1", wireApi: "responses", apiKeyEnv: "LOCAL_KEY", headers: { "x-team": "a\"b", "x-key": "header-secret-0123" }, requestMaxRetries: 0, streamMaxRetries: 0 },
        args: ["--disable", "plugins"],
      });
      try {
        await runDirect(driver, { prompt: "hi", workspace });
        expect(spawns(log)[0]!.args).toEqual([
          "app-server",
          "-c",
          'model_providers.local={ name = "local", base_url = "http://127.0.0.1:9/v1", wire_api = "responses", env_key = "LOCAL_KEY", env_http_headers = { x-key = "AGENT_ADAPTOR_CODEX_HEADER_0", x-team = "AGENT_ADAPTOR_CODEX_HEADER_1" }, request_max_retries = 0, stream_max_retries = 0 }',
          "-c",
          'model_provider="local"',
          "-c",
          'model="m1"',
          "-c",
          "features.default_mode_request_user_input=true",
          "--disable",
          "plugins",
        ]);
      } finally {
        await driver.close();
      }
    });

    it("fingerprints what changes provider behaviour", () => {
      const a = codex({ executable, home: "/h1" }).fingerprint();
      expect(codex({ executable, home: "/h1" }).fingerprint()).toBe(a);
      expect(codex({ executable, home: "/h2" }).fingerprint()).not.toBe(a);
      expect(codex({ executable: "/other/codex", home: "/h1" }).fingerprint()).not.toBe(a);
      expect(codex({ executable, home: "/h1", provider: { id: "p", baseUrl: "http://127.0.0.1:1/v1", wireApi: "responses" } }).fingerprint()).not.toBe(a);
      const withHeader = codex({ executable, home: "/h1", provider: { id: "p", baseUrl: "http://x/v1", wireApi: "responses", headers: { a: "secret-header-value" } } });
      expect(withHeader.fingerprint()).not.toContain("secret-header-value");
    });

    it("rejects an invalid config at construction", () => {
      expect(() => codex({ bogus: 1 } as unknown as CodexConfig)).toThrow(ConfigError);
      expect(() => codex({ provider: { id: "p", baseUrl: "http://x", wireApi: "chat" } } as unknown as CodexConfig)).toThrow(/responses/);
      expect(() => codex({ provider: { id: "bad id", baseUrl: "http://x", wireApi: "responses" } })).toThrow(ConfigError);
      expect(() => codex({ args: "x" } as unknown as CodexConfig)).toThrow(ConfigError);
    });

    it("resolves the installed package's native binary, not the npm shim, with its bundled tools on PATH", () => {
      const resolved = resolveExecutable(undefined);
      if (resolved === undefined) return; // @openai/codex is not installed for this platform
      expect(resolved.source).toBe("package");
      expect(resolved.path).not.toMatch(/\.js$/);
      expect(resolved.path).toMatch(/vendor[/\\][^/\\]+[/\\]bin[/\\]codex(\.exe)?$/);
      expect(resolved.pathDirs.some((d) => /codex-path$/.test(d))).toBe(true);
      expect(resolved.packageVersion).toMatch(/^\d+\.\d+\.\d+/);
    });

    it("has a static descriptor with native images only", () => {
      const d = codex({ executable }).descriptor();
      expect(d.inputs).toEqual({
        image: { modes: ["native"], mediaTypes: ["image/png", "image/jpeg", "image/gif", "image/webp"] },
        file: { modes: [] },
        audio: { modes: [] },
      });
      expect(d.features).toEqual({ steer: "native", resume: "native", fork: "native", approvals: true, userQuestions: true, structuredOutput: true, compact: "native" });
      expect(AdaptorError.is(new ConfigError("x"))).toBe(true);
    });
  });
});
