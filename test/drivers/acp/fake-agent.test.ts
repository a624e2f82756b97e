/**
 * The ACP driver against a fake agent built with the ACP SDK's agent side (the conformance kit runs in conformance.test.ts):
 * capability variations, malformed and schema-invalid frames, auth failures, a crash mid-prompt,
 * cancel races, permissions, model/effort readback, threads and watchdogs.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import type { AgentOptions } from "../../../src/agent/options.js";
import { acp, cursor, type AcpConfig, type AcpDriver } from "../../../src/drivers/acp/index.js";
import { AdaptorError, AuthRequiredError, ConfigError, RunFailedError } from "../../../src/errors/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { input } from "../../../src/input/index.js";

const fixture = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "acp-fake-"));
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

function workspace(): string {
  const dir = join(root, `ws-${++n}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function fake(env: Record<string, string> = {}, extra: Partial<AcpConfig> = {}): AcpDriver {
  return acp({ command: process.execPath, args: [fixture], env, ...extra });
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const types = (events: AgentEvent[]) => events.map((e) => e.type);
const terminals = (events: AgentEvent[]) => events.filter((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled");
const notices = (events: AgentEvent[]) => events.filter((e): e is Extract<AgentEvent, { type: "notice" }> => e.type === "notice");

describe("acp driver on a fake ACP agent", () => {
  it("inspects with initialize only: environment observed, auth/models/commands unsupported with reasons", async () => {
    const agent = createAgent(fake(), { workspace: workspace() });
    try {
      const inspection = await agent.inspect();
      expect(inspection.environment.status).toBe("observed");
      expect(inspection.environment.value).toMatchObject({ agentName: "fake-acp-agent", agentTitle: "Fake ACP Agent", version: "9.9.9", protocolVersion: "1" });
      expect(inspection.environment.value).toMatchObject({ authMethods: [{ id: "fake-login", kind: "agent" }] });
      expect(inspection.environment.evidence[0]).toMatchObject({ method: "initialize", providerVersion: "9.9.9", scope: "process" });
      expect(inspection.models).toMatchObject({ status: "unsupported", reason: { code: "session_scoped" } });
      expect(inspection.commands).toMatchObject({ status: "unsupported", reason: { code: "session_scoped" } });
      expect(inspection.auth).toMatchObject({ status: "unsupported", reason: { code: "method_unsupported" } });
    } finally {
      await agent.close();
    }
  });

  it("reads auth/status by the schema's state, and by the drafts' fields from agents built on them", async () => {
    for (const [answer, expected] of [
      ["state", { signedIn: true }],
      ["draft", { signedIn: true, method: "fake-login" }],
    ] as const) {
      const agent = createAgent(fake({ FAKE_ACP_AUTH_STATUS: answer }), { workspace: workspace() });
      try {
        const inspection = await agent.inspect();
        expect(inspection.auth.status, answer).toBe("observed");
        expect(inspection.auth.value, answer).toEqual(expected);
        expect(inspection.auth.evidence[0], answer).toMatchObject({ method: "auth/status" });
      } finally {
        await agent.close();
      }
    }
  });

  it("reports a missing executable as an observation, and a run as executable_not_found", async () => {
    const agent = createAgent(acp({ command: join(root, "no-such-agent") }), { workspace: workspace() });
    try {
      const inspection = await agent.inspect();
      expect(inspection.environment).toMatchObject({ status: "unavailable", reason: { code: "executable_not_found" } });
      await expect(agent.run("hi")).rejects.toMatchObject({ code: "executable_not_found", phase: "before_delivery" });
    } finally {
      await agent.close();
    }
  });

  it("maps thoughts, plans, commands, diffs, usage and message ids; the final text is the last message", async () => {
    const agent = createAgent(fake(), { workspace: workspace() });
    try {
      const stream = agent.stream("RICH turn");
      const events = await collect(stream);
      const result = await stream.result;
      expect(result.text).toBe("final answer");
      expect(types(events)).toEqual(
        expect.arrayContaining(["thread.bound", "reasoning.delta", "reasoning.completed", "plan.updated", "tool.started", "tool.completed", "usage.observed", "message.completed"]),
      );
      const plan = events.find((e) => e.type === "plan.updated");
      expect(plan).toMatchObject({ entries: [{ text: "step one", status: "in_progress" }] });
      expect(notices(events).find((e) => e.code === "available_commands")?.message).toContain("/review");
      const done = events.find((e) => e.type === "tool.completed");
      expect(done).toMatchObject({ callId: "edit_1", status: "completed" });
      expect(done).toMatchObject({ files: [{ path: "/w/a.txt", change: "modified", diff: "--- a/w/a.txt\n+++ b/w/a.txt\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n" }] });
      expect(done).not.toHaveProperty("diff");
      expect(events.find((e) => e.type === "tool.started")).toMatchObject({ kind: "file_change" });
      expect(events.filter((e) => e.type === "message.completed").map((e) => (e as { text: string }).text)).toEqual(["first message", "final answer"]);
      expect(result.usage).toMatchObject({ context_used: 1234, context_size: 64000, input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    } finally {
      await agent.close();
    }
  });

  it("keeps schema-invalid and unknown frames as notices instead of losing them", async () => {
    const agent = createAgent(fake(), { workspace: workspace() });
    try {
      const stream = agent.stream("MALFORMED frames");
      const events = await collect(stream);
      const result = await stream.result;
      expect(result.text).toBe("survived");
      const codes = notices(events).map((e) => e.code);
      // A line that is not JSON is invalid_json on every driver.
      expect(codes).toContain("invalid_json");
      expect(codes).toContain("unmapped_update");
      expect(codes).toContain("usage_partial");
      // usage_update with used: null still yields its size and cost.
      expect(events.find((e) => e.type === "usage.observed")).toMatchObject({ usage: { context_size: 200000, cumulative_cost_usd: 0.25 } });
      expect(result.usage).toMatchObject({ context_size: 200000, cumulative_cost_usd: 0.25 });
      expect(result.usage?.context_used).toBeUndefined();
    } finally {
      await agent.close();
    }
  });

  it("fails auth-required on session/new with a typed auth error before delivery", async () => {
    const agent = createAgent(fake({ FAKE_ACP_AUTH_REQUIRED: "1" }), { workspace: workspace() });
    try {
      const stream = agent.stream("hello");
      const events = await collect(stream);
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "auth_required", phase: "before_delivery" } });
      // A run that could not start rejects as its own error, not as a RunFailedError.
      await expect(stream.result).rejects.toBeInstanceOf(AuthRequiredError);
      await expect(stream.result).rejects.toMatchObject({ runId: stream.runId, phase: "before_delivery" });
    } finally {
      await agent.close();
    }
  });

  it("fails a crash mid-prompt as run.failed after_delivery and reaps the process", async () => {
    const driver = fake();
    const agent = createAgent(driver, { workspace: workspace() });
    try {
      const stream = agent.stream("CRASH now");
      const events = await collect(stream);
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "provider_exited", phase: "after_delivery" } });
      expect(driver.processes().live).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it("a cancel sent while the prompt is active wins even when the agent then answers end_turn", async () => {
    const driver = fake();
    const agent = createAgent(driver, { workspace: workspace() });
    try {
      const stream = agent.stream("IGNORE_CANCEL and keep going");
      const events: AgentEvent[] = [];
      for await (const e of stream) {
        events.push(e);
        if (e.type === "message.delta") stream.cancel("host cancel");
      }
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)!.type).toBe("run.cancelled");
      await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
      expect(driver.processes().live).toEqual([]);
      // The next run is unaffected.
      const next = await agent.run("say hello");
      expect(next.text).toBe("Hello from the fake agent.");
    } finally {
      await agent.close();
    }
  });

  it("answers a pending permission with cancelled before session/cancel, and the run is cancelled once", async () => {
    const log = join(root, `hanging-approval-${++n}.jsonl`);
    const agent = createAgent(fake({ FAKE_ACP_LOG: log }), { workspace: workspace() });
    const stream = agent.stream("HANGING_APPROVAL", {
      onApproval: (_req, signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve({ decision: "deny" }))),
    });
    try {
      const events: AgentEvent[] = [];
      for await (const e of stream) {
        events.push(e);
        if (e.type === "approval.requested") stream.cancel("stop");
      }
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)!.type).toBe("run.cancelled");
      // The agent saw `cancelled` as the permission outcome, and a session/cancel (what it says
      // after the stop is no event of the run, so its own log is the witness).
      const seen = readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { event: string; outcome?: string })
        .filter((entry) => entry.event !== "prompt")
        .map((entry) => (entry.outcome === undefined ? entry.event : `${entry.event}:${entry.outcome}`))
        .sort();
      expect(seen).toEqual(["cancel", "permission:cancelled"]);
    } finally {
      await agent.close();
    }
  });

  it("routes permissions through onApproval by option kind: allowed writes the file, denied does not", async () => {
    const allowWs = workspace();
    const agent = createAgent(fake(), { workspace: allowWs });
    try {
      const stream = agent.stream("PERMISSION please", { onApproval: async () => ({ decision: "allow" }) });
      const events = await collect(stream);
      const result = await stream.result;
      expect(result.text).toBe("allowed:yes-once");
      expect(existsSync(join(allowWs, "proof.txt"))).toBe(true);
      const requested = events.find((e) => e.type === "approval.requested");
      expect(requested).toMatchObject({ kind: "command", callId: "call_1" });
      expect((requested as { options: { kind: string }[] }).options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "deny"]);
      const session = await agent.run("PERMISSION please", { onApproval: async () => ({ decision: "allow", scope: "session" }) });
      expect(session.text).toBe("allowed:yes-always");
    } finally {
      await agent.close();
    }
    const denyWs = workspace();
    const denied = createAgent(fake(), { workspace: denyWs });
    try {
      const result = await denied.run("PERMISSION please", { onApproval: async () => ({ decision: "deny" }) });
      expect(result.text).toBe("rejected:selected");
      expect(existsSync(join(denyWs, "proof.txt"))).toBe(false);
      // No handler: denied by policy, with a notice.
      const stream = denied.stream("PERMISSION please");
      const events = await collect(stream);
      expect((await stream.result).text).toBe("rejected:selected");
      expect(notices(events).map((e) => e.code)).toContain("approval_denied_by_policy");
    } finally {
      await denied.close();
    }
  });

  describe("image inputs follow promptCapabilities.image", () => {
    const png = join(root, "pixel.png");
    writeFileSync(png, Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex"));

    it("sends an image block when advertised", async () => {
      const agent = createAgent(fake({ FAKE_ACP_IMAGE: "1" }), { workspace: workspace() });
      try {
        const result = await agent.run("IMAGE count", { inputs: [input.fromPath("image", png, { mediaType: "image/png" })] });
        expect(result.text).toBe("images:1:image/png");
      } finally {
        await agent.close();
      }
    });

    it("fails with input_mode_unsupported before the prompt when not advertised", async () => {
      const agent = createAgent(fake(), { workspace: workspace() });
      try {
        const stream = agent.stream("IMAGE count", { inputs: [input.fromPath("image", png, { mediaType: "image/png" })] });
        const events = await collect(stream);
        expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "input_mode_unsupported", phase: "before_delivery" } });
        expect(types(events)).not.toContain("thread.bound");
      } finally {
        await agent.close();
      }
    });
  });

  it("applies model and effort through config options with readback; an unconfirmed or unknown value fails before the prompt", async () => {
    const agent = createAgent(fake(), { workspace: workspace() });
    try {
      const ok = await agent.run("hello", { model: "fake-a", effort: "high" });
      expect(ok.transcript().filter((e) => e.type === "message.completed").map((e) => (e as { text: string }).text)[0]).toBe("model=fake-a effort=high ");
      const unknown = agent.stream("hello", { model: "bogus-model" });
      const events = await collect(unknown);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "config_value_unavailable", phase: "before_delivery" } });
      expect((events.at(-1) as { error: { message: string } }).error.message).toContain('"model"');
      // fake-b is offered, but the agent does not apply it: the readback catches it.
      await expect(agent.run("hello", { model: "fake-b" })).rejects.toMatchObject({ code: "config_value_rejected", phase: "before_delivery" });
    } finally {
      await agent.close();
    }
  });

  it("resumes a thread with session/load in a new process (replay is not re-emitted), or with session/resume when advertised", async () => {
    for (const env of [{}, { FAKE_ACP_RESUME: "1" }] as Record<string, string>[]) {
      // No warm writer: the second turn binds the session on a new process.
      const agent = createAgent(fake(env), { workspace: workspace(), threadWriterIdleMs: 0 });
      try {
        const thread = await agent.startThread();
        const first = await thread.run("hello");
        const second = thread.stream("hello again");
        const events = await collect(second);
        const result = await second.result;
        expect(result.providerSessionId).toBe(first.providerSessionId);
        expect(events.filter((e) => e.type === "message.completed").map((e) => (e as { text: string }).text)).not.toContain("old answer");
        const bound = events.find((e) => e.type === "thread.bound");
        expect(bound?.provenance?.event).toBe("FAKE_ACP_RESUME" in env ? "session/resume" : "session/load");
      } finally {
        await agent.close();
      }
    }
  });

  it("refuses resume when the agent advertises neither load nor resume (no text replay)", async () => {
    // No warm writer (which would continue the open session): the second turn needs a resume.
    const agent = createAgent(fake({ FAKE_ACP_NO_LOAD: "1" }), { workspace: workspace(), threadWriterIdleMs: 0 });
    try {
      const thread = await agent.startThread();
      await thread.run("hello");
      await expect(thread.run("again")).rejects.toMatchObject({ code: "feature_unsupported" });
    } finally {
      await agent.close();
    }
  });

  it("keeps an initialized, unbound standby after prepare() and uses it for the next run", async () => {
    const driver = fake();
    const agent = createAgent(driver, { workspace: workspace() });
    try {
      const report = await agent.prepare();
      expect(report.process).toBe("ready");
      const started = driver.processes().started;
      const result = await agent.run("say hello");
      expect(result.text).toBe("Hello from the fake agent.");
      expect(driver.processes().started).toBe(started);
    } finally {
      await agent.close();
    }
    expect(driver.processes().live).toEqual([]);
  });

  describe("watchdogs", () => {
    const run = async (prompt: string, watchdogs: AcpConfig["watchdogs"], options: AgentOptions = {}) => {
      const driver = fake({}, { watchdogs });
      const agent = createAgent(driver, { workspace: workspace(), ...options });
      try {
        const stream = agent.stream(prompt);
        const events = await collect(stream);
        await stream.result.catch(() => {});
        expect(driver.processes().live).toEqual([]);
        return events;
      } finally {
        await agent.close();
      }
    };

    it("idle timeout fails the run once with idle_timeout", async () => {
      const events = await run("IDLE", { idleMs: 200 });
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "idle_timeout", phase: "after_delivery" } });
    });

    it("hard cap fails the run once with hard_cap", async () => {
      const events = await run("SLOW", { hardCapMs: 300, idleMs: 0 });
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "hard_cap" } });
    });

    it("repeated identical tool calls fail the run with repeat_tool_loop", async () => {
      const events = await run("LOOP", { repeatToolLimit: 3, idleMs: 0 });
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "repeat_tool_loop" } });
    });

    // Core's watchdogs (the agent's `watchdogs` option) apply to ACP agents like to every driver.
    it("core's idle watchdog fails an idle ACP turn once with idle_timeout", async () => {
      const events = await run("IDLE", undefined, { defaults: { watchdogs: { idleMs: 200 } } });
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "idle_timeout", phase: "after_delivery" } });
    });

    it("core's hard cap fails a slow ACP turn once with hard_cap", async () => {
      const events = await run("SLOW", undefined, { defaults: { watchdogs: { hardCapMs: 300, idleMs: 0 } } });
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "hard_cap" } });
    });

    it("core's repeat limit fails an ACP agent repeating one tool call with repeat_tool_loop", async () => {
      const events = await run("LOOP", undefined, { defaults: { watchdogs: { repeatToolLimit: 3, idleMs: 0 } } });
      expect(terminals(events)).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "repeat_tool_loop" } });
    });
  });

  it("cursor() is built from its documented command and refuses a provider binding", () => {
    const driver = cursor();
    expect(driver.descriptor()).toMatchObject({ id: "cursor" });
    expect(() => cursor({ provider: { baseUrl: "http://127.0.0.1:1" } })).toThrow(ConfigError);
    expect(AdaptorError.is(new ConfigError("x"))).toBe(true);
  });
});
