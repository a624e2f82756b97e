/**
 * The A2A bridge on the real Codex CLI (scripted model server): `a2aServer()` wrapping a Codex
 * agent, driven by the A2A SDK's own client — message/send, an approval answered over A2A that
 * reaches Codex (the escalated command runs), tasks/cancel during a streaming turn — and the `a2a()` driver passing the
 * conformance kit against that server (agent → A2A → agent).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { createAgent, type Agent } from "../../src/agent/agent.js";
import { a2a } from "../../src/bridges/a2a/index.js";
import { codex } from "../../src/drivers/codex/index.js";
import { runDriverConformance } from "../../src/testing/conformance.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../src/testing/real-cli/index.js";
import { describeRealCli } from "../real-cli/helpers.js";
import { data, request, serve, text, textOf, userMessage, type Served } from "./a2a-helpers.js";

const HELLO = "Hello from Codex over A2A.";
const script: RealCliScript = {
  turns: [{ reply: { text: HELLO }, repeat: true }],
  auxiliary: {
    rules: [
      { match: { toolResultFor: "call_a2a" }, reply: { text: "Approved command ran." } },
      {
        match: { lastUserTextContains: "APPROVE" },
        reply: { toolCalls: [{ id: "call_a2a", name: "exec_command", arguments: { cmd: "touch approved.txt", sandbox_permissions: "require_escalated", justification: "The test asks for it" } }] },
      },
      { match: { lastUserTextContains: "SLOW" }, reply: { text: "word ".repeat(400), chunkSize: 5 }, fault: { dripMs: 40 } },
    ],
  },
};

/** One Codex home and model server for the whole file, held open between beforeAll and afterAll. */
let ctx: RealCliContext | undefined;
let release: (() => void) | undefined;
let held: Promise<void> | undefined;
let agent: Agent | undefined;
let served: Served | undefined;

describeRealCli("codex", () => {
  beforeAll(async () => {
    const ready = new Promise<RealCliContext>((resolve) => {
      held = withRealCli("codex", script, async (c) => {
        resolve(c);
        await new Promise<void>((r) => (release = r));
      });
    });
    ctx = await ready;
    const driver = codex({
      home: ctx.configDir,
      env: ctx.env,
      provider: { id: "scripted_a2a", baseUrl: `${ctx.server.url}/v1`, wireApi: "responses", apiKeyEnv: SCRIPTED_KEY_ENV, requestMaxRetries: 0, streamMaxRetries: 0 },
      args: ["--disable", "plugins"],
    });
    agent = createAgent(driver, { workspace: ctx.workspace, defaults: { policy: { sandbox: "workspace-write", approval: "on-request" } } });
    served = await serve(agent);
  });
  afterAll(async () => {
    await served?.close();
    await agent?.close();
    release?.();
    await held;
  });

  it("message/send runs Codex and returns the completed task", async () => {
    const client = await served!.client();
    const task = (await client.sendMessage(request(userMessage([text("say hello")])))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toBe(HELLO);
  });

  it("an approval answered over A2A reaches Codex: the escalated command runs", async () => {
    const client = await served!.client();
    const first: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(request(userMessage([text("APPROVE the touch")])))) first.push(e);
    const waiting = first.at(-1)?.payload;
    expect(waiting?.$case).toBe("statusUpdate");
    const update = waiting?.$case === "statusUpdate" ? waiting.value : undefined;
    expect(update?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = update!.status!.message!.parts.find((p) => p.content?.$case === "data")?.content?.value as { requestId: string; kind: string; options: { id: string }[] };
    expect(asked.kind).toBe("command");
    expect(asked.options.map((o) => o.id)).toContain("accept");
    expect(existsSync(join(ctx!.workspace, "approved.txt"))).toBe(false);

    const rest: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(request(userMessage([data({ requestId: asked.requestId, optionId: "accept" })], { taskId: update!.taskId, contextId: update!.contextId })))) rest.push(e);
    const done = rest.at(-1)?.payload;
    expect(done?.$case === "statusUpdate" ? done.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done?.$case === "statusUpdate" ? done.value.status?.message : undefined)).toBe("Approved command ran.");
    expect(existsSync(join(ctx!.workspace, "approved.txt"))).toBe(true);
    expect(ctx!.server.requests.some((r) => r.messages.some((m) => m.parts.some((p) => p.type === "tool_result" && p.callId === "call_a2a")))).toBe(true);
  });

  it("tasks/cancel during a Codex turn cancels the run: the task ends canceled", async () => {
    const client = await served!.client();
    const events: StreamResponse[] = [];
    let taskId: string | undefined;
    for await (const e of client.sendMessageStream(request(userMessage([text("SLOW answer please")])))) {
      events.push(e);
      if (e.payload?.$case === "task") taskId = e.payload.value.id;
      // The first text chunk: Codex is streaming its answer.
      if (e.payload?.$case === "artifactUpdate" && events.filter((x) => x.payload?.$case === "artifactUpdate").length === 1) {
        expect((await client.cancelTask({ tenant: "", id: taskId!, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      }
    }
    const last = events.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: "", id: taskId!, historyLength: 0 })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  describe("a2a() against a2aServer wrapping Codex: conformance", () => {
    runDriverConformance(() => a2a({ url: served!.url }), {
      runner: { describe, it },
      agentOptions: { workspace: process.cwd() },
      textRun: { prompt: "say hello", expectText: HELLO },
      cancellableRun: { prompt: "SLOW please" },
      timeoutMs: 120_000,
    });
  });
});
