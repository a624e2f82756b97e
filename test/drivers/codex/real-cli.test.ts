/**
 * The Codex driver end to end on the real `@openai/codex` CLI (`codex app-server`), pointed at
 * the scripted Responses server on 127.0.0.1 through the driver's own `provider` config. Real
 * processes, a deterministic model, no login, no network beyond loopback. No timing is asserted.
 *
 * Isolation comes from the lane's `withRealCli`: a fresh root with `home/` (CODEX_HOME inside
 * it), `tmp/` (the child's TMPDIR — a sibling, so CODEX_HOME is never under the temp dir) and
 * `workspace/`. When the CLI cannot run here the suite is reported skipped with the reason.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

import { createAgent } from "../../../src/agent/agent.js";
import type { Driver } from "../../../src/driver/types.js";
import { codex, isCodexStandby, type CodexConfig, type CodexDriver, type CodexStandby } from "../../../src/drivers/codex/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import { lastUserText, type CapturedRequest } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { describeRealCli } from "../../real-cli/helpers.js";
import { runDirect, TINY_PNG } from "./harness.js";

/** The driver pointed at the lane's scripted server through its own provider config, retries off. */
function driverFor(ctx: RealCliContext, extra: CodexConfig = {}): CodexDriver {
  return codex({
    home: ctx.configDir,
    env: ctx.env,
    provider: {
      id: "scripted_driver",
      baseUrl: `${ctx.server.url}/v1`,
      wireApi: "responses",
      apiKeyEnv: SCRIPTED_KEY_ENV,
      requestMaxRetries: 0,
      streamMaxRetries: 0,
    },
    args: ["--disable", "plugins"],
    ...extra,
  });
}

function modelRequests(ctx: RealCliContext): CapturedRequest[] {
  return ctx.server.requests.filter((r) => r.dialect === "responses" && !r.auxiliary);
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

function rolloutFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => /rollout-.*\.jsonl$/.test(f));
}

/** All text of every message in a captured request, in order (to check what history reached the model). */
function transcriptText(request: CapturedRequest): string {
  return request.messages
    .flatMap((m) => m.parts)
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("\n");
}

describeRealCli("codex", (availability) => {
  it("inspects the real CLI: models with evidence, account per provider config, quota auth_required", async () => {
    await withRealCli("codex", { turns: [] }, async (ctx) => {
      const driver = driverFor(ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const inspection = await agent.inspect();
        const version = availability.version.replace(/^codex-cli\s+/, "");
        expect(inspection.environment).toMatchObject({ status: "observed", value: { version, protocolVersion: "v2" } });
        expect(inspection.environment.evidence[0]).toMatchObject({ transport: "codex app-server", method: "initialize", providerVersion: version });

        expect(inspection.models.status).toBe("observed");
        expect(inspection.models.value!.length).toBeGreaterThan(0);
        expect(inspection.models.evidence.length).toBeGreaterThanOrEqual(1);
        for (const e of inspection.models.evidence) expect(e).toMatchObject({ transport: "codex app-server", method: "model/list", providerVersion: version });
        const model = inspection.models.value![0]!;
        expect(typeof model.id).toBe("string");
        expect(typeof model.displayName).toBe("string");
        expect(Array.isArray(model.efforts)).toBe(true);
        expect(inspection.models.value!.filter((m) => m.isDefault)).toHaveLength(1);
        expect(model.contextWindow).toBeUndefined();

        // With a custom provider as the default, Codex needs no OpenAI account: auth is observed,
        // signed out; rate limits exist only for a ChatGPT account, so quota is auth_required.
        expect(inspection.auth).toMatchObject({ status: "observed", value: { signedIn: false } });
        expect(inspection.quota).toMatchObject({ status: "unavailable", reason: { code: "auth_required" } });
        expect(inspection.commands).toMatchObject({ status: "unsupported", reason: { code: "method_unsupported" } });
        expect(inspection.configuration).toMatchObject({ status: "observed", value: { model: ctx.model } });
        expect(inspection.configuration.value).toMatchObject({ modelProvider: "scripted_driver" });
        expect(inspection.skills.status).toBe("observed");
        expect(inspection.mcp).toMatchObject({ status: "observed", value: { servers: [] } });
        // Nothing was created: no conversation, and the process is gone.
        expect(rolloutFiles(join(ctx.configDir, "sessions"))).toEqual([]);
        expect(driver.processes().started).toBe(1);
        expect(modelRequests(ctx)).toEqual([]);
      } finally {
        await agent.close();
      }
      expect(driver.processes().live).toEqual([]);
    });
  });

  it("prepare keeps an initialized unbound standby that the run claims without a second spawn", async () => {
    const script: RealCliScript = { turns: [{ match: { lastUserTextContains: "standby" }, reply: { text: "Served by the standby." } }] };
    await withRealCli("codex", script, async (ctx) => {
      // Count spawns from outside the driver: a wrapper that logs its pid and execs the real binary.
      const spawnLog = join(ctx.root, "spawns.log");
      const wrapper = join(ctx.root, "codex-wrapper");
      writeFileSync(wrapper, `#!/bin/sh\necho $$ >> ${JSON.stringify(spawnLog)}\nexec ${JSON.stringify(ctx.executable)} "$@"\n`);
      chmodSync(wrapper, 0o755);
      const spawns = () => (existsSync(spawnLog) ? readFileSync(spawnLog, "utf8").trim().split("\n").filter(Boolean) : []);

      const inner = driverFor(ctx, { executable: wrapper });
      let standby: CodexStandby | undefined;
      const driver = new Proxy(inner, {
        get(target, prop) {
          if (prop === "prepare") {
            return async (...args: Parameters<Driver["prepare"]>) => {
              const response = await target.prepare(...args);
              standby = response.standby as CodexStandby;
              return response;
            };
          }
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        expect(spawns()).toEqual([]);
        const report = await agent.prepare();
        expect(report.process).toBe("ready");
        expect(report.inspection.models.status).toBe("observed");
        expect(spawns()).toHaveLength(1);
        expect(isCodexStandby(standby)).toBe(true);

        // Unbound: the standby's own process lists no thread, persisted or loaded, and no rollout exists.
        expect(await standby!.threads()).toEqual({ persisted: [], loaded: [] });
        expect(rolloutFiles(join(ctx.configDir, "sessions"))).toEqual([]);

        const result = await agent.run("Answer from the standby");
        expect(result.text).toBe("Served by the standby.");
        expect(spawns()).toHaveLength(1);
        expect(inner.processes().started).toBe(1);
        // The run bound one thread (its rollout now exists) and retires the process in the background.
        expect(rolloutFiles(join(ctx.configDir, "sessions"))).toHaveLength(1);
        await expect.poll(() => inner.processes().live, { timeout: 10_000 }).toEqual([]);
      } finally {
        await agent.close();
      }
    });
  });

  it("streams a text turn: thread binding, deltas, the completed message and usage", async () => {
    const script: RealCliScript = {
      turns: [{ match: { lastUserTextContains: "Say hello" }, reply: { text: "Hello from the scripted model.", chunkSize: 6, usage: { input_tokens: 1200, output_tokens: 30, cached_input_tokens: 200 } } }],
    };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Say hello to the driver", { policy: { sandbox: "workspace-write", approval: "on-request", network: true } });
        const events = await collect(stream);
        const result = await stream.result;
        expect(result.text).toBe("Hello from the scripted model.");
        const bound = events.find((e) => e.type === "thread.bound") as { providerSessionId: string } | undefined;
        expect(bound?.providerSessionId).toMatch(/^[0-9a-f-]{36}$/);
        expect(result.providerSessionId).toBe(bound!.providerSessionId);
        const deltas = events.filter((e) => e.type === "message.delta").map((e) => (e as { text: string }).text);
        expect(deltas.length).toBeGreaterThan(1);
        expect(deltas.join("")).toBe("Hello from the scripted model.");
        expect(events.find((e) => e.type === "message.completed")).toMatchObject({ text: "Hello from the scripted model." });
        const usage = events.find((e) => e.type === "usage.observed") as unknown as { usage: Record<string, number> };
        expect(usage.usage).toMatchObject({ input_tokens: 1200, output_tokens: 30, cached_input_tokens: 200, cumulative_input_tokens: 1200 });
        expect(result.usage).toMatchObject({ input_tokens: 1200 });
        // What Codex settled for the thread, from the thread/start answer: the call's policy.
        expect(result.raw()).toMatchObject({
          terminal: { thread: { method: "thread/start", model: ctx.model, approvalPolicy: "on-request", sandbox: { type: "workspaceWrite", networkAccess: true } } },
        });
        expect(events.at(-1)!.type).toBe("run.completed");

        const [request] = modelRequests(ctx);
        expect(lastUserText(request!)).toBe("Say hello to the driver");
        expect(request!.headers.originator).toBe("agent_adaptor");
      } finally {
        await agent.close();
      }
    });
  });

  it("constrains the final message with outputSchema and returns it as structured output", async () => {
    const script: RealCliScript = { turns: [{ match: { lastUserTextContains: "JSON please" }, reply: { text: '{"fruit":"fig","count":3}' } }] };
    const schema = { type: "object", properties: { fruit: { type: "string" }, count: { type: "integer" } }, required: ["fruit", "count"], additionalProperties: false };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      try {
        const result = await agent.run("JSON please", { outputSchema: schema });
        expect(result.structured).toEqual({ fruit: "fig", count: 3 });
        const [request] = modelRequests(ctx);
        expect((request!.body as { text?: { format?: unknown } }).text?.format).toMatchObject({ type: "json_schema", schema });
      } finally {
        await agent.close();
      }
    });
  });

  it("runs a command turn whose file really appears on disk", async () => {
    const script: RealCliScript = {
      turns: [
        {
          match: { lastUserTextContains: "write the proof" },
          reply: { toolCalls: [{ id: "call_proof", name: "exec_command", arguments: { cmd: "printf 'proof from the driver' > proof.txt && echo wrote-proof" } }] },
        },
        { match: { toolResultFor: "call_proof" }, reply: { text: "The proof file is written." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Please write the proof file", { policy: { sandbox: "workspace-write", approval: "never" } });
        const events = await collect(stream);
        expect((await stream.result).text).toBe("The proof file is written.");
        expect(readFileSync(join(ctx.workspace, "proof.txt"), "utf8")).toBe("proof from the driver");
        expect(events.find((e) => e.type === "tool.started")).toMatchObject({ callId: "call_proof", kind: "command", title: expect.stringContaining("proof.txt") });
        expect(events.find((e) => e.type === "tool.completed")).toMatchObject({ callId: "call_proof", status: "completed", exitCode: 0, output: expect.stringContaining("wrote-proof") });
        // Streamed output (tool.updated) is best effort: a fast command may finish before Codex sends a delta.
        const outputs = events.filter((e) => e.type === "tool.updated").map((e) => (e as { output?: string }).output ?? "").join("");
        expect("wrote-proof\n".startsWith(outputs) || outputs.includes("wrote-proof")).toBe(true);
      } finally {
        await agent.close();
      }
    });
  });

  it("asks for approval through onApproval: one accepted, one declined", async () => {
    const escalated = (id: string, cmd: string) => ({
      toolCalls: [{ id, name: "exec_command", arguments: { cmd, sandbox_permissions: "require_escalated", justification: "The test asks for it" } }],
    });
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "first" }, reply: escalated("call_yes", "printf yes > approved.txt") },
        { match: { toolResultFor: "call_yes" }, reply: { text: "First done." } },
        { match: { lastUserTextContains: "second" }, reply: escalated("call_no", "printf no > declined.txt") },
        { match: { toolResultFor: "call_no" }, reply: { text: "Second done." } },
        {
          match: { lastUserTextContains: "third" },
          reply: { toolCalls: [{ id: "call_patch", name: "exec_command", arguments: { cmd: "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: patched.txt\n+from a patch\n*** End Patch\nPATCH" } }] },
        },
        { match: { toolResultFor: "call_patch" }, reply: { text: "Third done." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const asked: string[] = [];
      const agent = createAgent(driverFor(ctx), {
        workspace: ctx.workspace,
        defaults: {
          policy: { sandbox: "workspace-write", approval: "on-request" },
          onApproval: async (request) => {
            asked.push(request.summary);
            return request.summary.includes("approved.txt") ? { decision: "allow" } : { decision: "deny", message: "not this one" };
          },
        },
      });
      try {
        const first = agent.stream("Do the first command");
        const firstEvents = await collect(first);
        expect((await first.result).text).toBe("First done.");
        expect(readFileSync(join(ctx.workspace, "approved.txt"), "utf8")).toBe("yes");
        const requested = firstEvents.find((e) => e.type === "approval.requested");
        expect(requested).toMatchObject({ kind: "command", callId: "call_yes", summary: expect.stringContaining("The test asks for it") });
        expect((requested as { options: { id: string }[] }).options.map((o) => o.id)).toContain("accept");
        expect(firstEvents.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: { decision: "allow" }, by: "handler" });
        expect(firstEvents.find((e) => e.type === "tool.completed")).toMatchObject({ callId: "call_yes", status: "completed", exitCode: 0 });

        const second = agent.stream("Do the second command");
        const secondEvents = await collect(second);
        expect((await second.result).text).toBe("Second done.");
        expect(existsSync(join(ctx.workspace, "declined.txt"))).toBe(false);
        expect(secondEvents.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: { decision: "deny" }, by: "handler" });
        expect(secondEvents.find((e) => e.type === "tool.completed")).toMatchObject({ callId: "call_no", status: "declined" });
        expect(asked).toHaveLength(2);

        // A file change the read-only sandbox does not allow is a file_change approval naming its paths.
        const third = agent.stream("Do the third change", { policy: { sandbox: "read-only", approval: "on-request" }, onApproval: async () => ({ decision: "allow" }) });
        const thirdEvents = await collect(third);
        expect((await third.result).text).toBe("Third done.");
        expect(thirdEvents.find((e) => e.type === "approval.requested")).toMatchObject({ kind: "file_change", callId: "call_patch", summary: expect.stringContaining("patched.txt") });
        expect(thirdEvents.find((e) => e.type === "tool.completed")).toMatchObject({ callId: "call_patch", status: "completed" });
        expect(readFileSync(join(ctx.workspace, "patched.txt"), "utf8")).toBe("from a patch\n");

        // The model was told the command was rejected.
        const followUp = modelRequests(ctx).find((r) => r.messages.some((m) => m.parts.some((p) => p.type === "tool_result" && p.callId === "call_no")))!;
        const result = followUp.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result" && p.callId === "call_no") as { text?: string };
        expect(result.text).toMatch(/reject/i);
      } finally {
        await agent.close();
      }
    });
  });

  it("interrupts mid-stream with turn/interrupt: exactly one run.cancelled, process reaped", async () => {
    const script: RealCliScript = {
      turns: [{ match: { lastUserTextContains: "long story" }, reply: { text: "word ".repeat(200), chunkSize: 5 }, fault: { dripMs: 50 } }],
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      const agent = createAgent(driver, { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Tell me a long story");
        const events: AgentEvent[] = [];
        for await (const event of stream) {
          events.push(event);
          if (event.type === "message.delta" && events.filter((e) => e.type === "message.delta").length === 2) stream.cancel("enough");
        }
        expect(events.filter((e) => e.type === "run.cancelled")).toHaveLength(1);
        expect(events.at(-1)).toMatchObject({ type: "run.cancelled", reason: "enough" });
        expect(events.filter((e) => e.type === "run.completed" || e.type === "run.failed")).toHaveLength(0);
        await expect(stream.result).rejects.toMatchObject({ code: "run_cancelled" });
        expect(driver.processes().live).toEqual([]);
      } finally {
        await agent.close();
      }
    });
  });

  it("fails fast on HTTP 500 with retries off: run.failed after delivery, one request", async () => {
    const script: RealCliScript = { turns: [{ match: { lastUserTextContains: "break" }, fault: { status: 500 } }] };
    await withRealCli("codex", script, async (ctx) => {
      const agent = createAgent(driverFor(ctx), { workspace: ctx.workspace });
      try {
        const stream = agent.stream("Please break");
        const events = await collect(stream);
        expect(events.filter((e) => e.type === "run.failed")).toHaveLength(1);
        expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "provider_error", phase: "after_delivery", retryable: true } });
        await expect(stream.result).rejects.toMatchObject({ code: "provider_error" });
        expect(modelRequests(ctx)).toHaveLength(1);
      } finally {
        await agent.close();
      }
    });
  });

  it("delivers a localImage whose bytes reach the model server as a native image part", async () => {
    const script: RealCliScript = { turns: [{ match: { lastUserTextContains: "this image" }, reply: { text: "A red pixel." } }] };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      try {
        const path = join(ctx.root, "run-input-pixel.png");
        writeFileSync(path, TINY_PNG);
        const outcome = await runDirect(driver, {
          prompt: "What is in this image?",
          workspace: ctx.workspace,
          inputs: [{ id: "in_1", kind: "image", name: "pixel.png", mediaType: "image/png", localPath: path, size: TINY_PNG.length, sha256: "", deliveryMode: "native" }],
        });
        expect(outcome.error).toBeUndefined();
        expect(outcome.response!.text).toBe("A red pixel.");
        const [request] = modelRequests(ctx);
        const parts = request!.messages.flatMap((m) => m.parts);
        expect(parts).toContainEqual(expect.objectContaining({ type: "image", mediaType: "image/png", source: "base64" }));
        // The exact bytes: decode the data URL Codex sent.
        const body = JSON.stringify(request!.body);
        const match = /data:image\/png;base64,([A-Za-z0-9+/=]+)/.exec(body);
        expect(match).not.toBeNull();
        expect(Buffer.from(match![1]!, "base64").equals(TINY_PNG)).toBe(true);
        // The local path is not in any event.
        expect(JSON.stringify(outcome.events)).not.toContain(path);
      } finally {
        await driver.close();
      }
    });
  });

  it("resumes a thread in a second OS process with the same CODEX_HOME", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "PAPAYA" }, reply: { text: "Noted: papaya." } },
        { match: { lastUserTextContains: "Which fruit" }, reply: { text: "It was papaya." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const pids: number[] = [];
      const first = driverFor(ctx);
      const a = await runDirect(first, { prompt: "Remember the word PAPAYA", workspace: ctx.workspace }, { onEvent: () => void pids.push(...first.processes().live) });
      await first.close();
      expect(a.error).toBeUndefined();
      const threadId = a.response!.providerSessionId!;

      const second = driverFor(ctx);
      try {
        const b = await runDirect(
          second,
          { prompt: "Which fruit did I name?", workspace: ctx.workspace, thread: { id: "t-1", providerSessionId: threadId } },
          { onEvent: () => void pids.push(...second.processes().live) },
        );
        expect(b.error).toBeUndefined();
        expect(b.response!.text).toBe("It was papaya.");
        expect(b.response!.providerSessionId).toBe(threadId);
        expect(b.events.find((e) => e.type === "thread.bound")).toMatchObject({ providerSessionId: threadId });
        expect(new Set(pids).size).toBe(2);
        // The second process replayed the first turn to the model from the persisted thread.
        const history = transcriptText(modelRequests(ctx)[1]!);
        expect(history).toContain("Remember the word PAPAYA");
        expect(history).toContain("Noted: papaya.");
      } finally {
        await second.close();
      }
    });
  });

  it("forks a thread natively with thread/fork: a new thread that carries the history", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "MANGO" }, reply: { text: "Noted: mango." } },
        { match: { lastUserTextContains: "forked" }, reply: { text: "Forked answer: mango." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      try {
        const a = await runDirect(driver, { prompt: "Remember the word MANGO", workspace: ctx.workspace });
        const original = a.response!.providerSessionId!;
        const f = await runDirect(driver, { prompt: "In the forked thread, which fruit?", workspace: ctx.workspace, thread: { id: "t-2", providerSessionId: original, fork: true } });
        expect(f.error).toBeUndefined();
        expect(f.response!.text).toBe("Forked answer: mango.");
        const forked = f.response!.providerSessionId!;
        expect(forked).toMatch(/^[0-9a-f-]{36}$/);
        expect(forked).not.toBe(original);
        expect(f.events.find((e) => e.type === "thread.bound")).toMatchObject({ providerSessionId: forked });
        const history = transcriptText(modelRequests(ctx)[1]!);
        expect(history).toContain("Remember the word MANGO");
        expect(history).toContain("Noted: mango.");
        expect(rolloutFiles(join(ctx.configDir, "sessions"))).toHaveLength(2);
      } finally {
        await driver.close();
      }
    });
  });

  it("steers the running turn natively with turn/steer", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "slow answer" }, reply: { text: "slow ".repeat(200), chunkSize: 5 }, fault: { dripMs: 50 } },
        { match: { lastUserTextContains: "STEERED" }, reply: { text: "Steered answer." } },
      ],
    };
    await withRealCli("codex", script, async (ctx) => {
      const driver = driverFor(ctx);
      try {
        let steered: Promise<void> | undefined;
        const outcome = await runDirect(
          driver,
          { prompt: "Give a slow answer", workspace: ctx.workspace },
          {
            onEvent: (event, runId) => {
              if (event.type === "message.delta" && steered === undefined) steered = driver.steer(runId, "Change of plan: STEERED", AbortSignal.timeout(30_000));
            },
          },
        );
        await steered;
        expect(outcome.error).toBeUndefined();
        expect(outcome.response!.text).toBe("Steered answer.");
        expect(lastUserText(modelRequests(ctx).at(-1)!)).toContain("STEERED");
      } finally {
        await driver.close();
      }
    });
  });
});
