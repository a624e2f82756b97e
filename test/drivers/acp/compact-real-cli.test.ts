/**
 * Native compaction and a missing session on real ACP agents against the scripted model server
 * (issue #18 item 10): `/compact` is sent only when the session's available commands advertise it
 * (codex-acp does: Codex's own summary request reaches the model server; Gemini does not: the run
 * is refused with `feature_unsupported` before any prompt), and an agent's "no such session" on
 * resume or load is `provider_session_not_found`.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { createAgent } from "../../../src/agent/agent.js";
import { codexAcp, gemini, type AcpDriver } from "../../../src/drivers/acp/index.js";
import { FeatureUnsupportedError } from "../../../src/errors/index.js";
import type { AgentEvent } from "../../../src/events/types.js";
import type { CapturedRequest } from "../../../src/testing/model-server/index.js";
import { SCRIPTED_KEY_ENV, withRealCli, type RealCliContext, type RealCliScript } from "../../../src/testing/real-cli/index.js";
import { memoryThreadStore } from "../../../src/thread/stores/memory.js";
import type { ThreadStore } from "../../../src/thread/store.js";
import type { Thread } from "../../../src/agent/thread.js";
import type { Agent } from "../../../src/agent/agent.js";
import { describeRealCli } from "../../real-cli/helpers.js";

const base = (ctx: RealCliContext) => ctx.server.url.replace(/\/+$/, "");
const textOf = (request: CapturedRequest) => request.messages.flatMap((m) => m.parts).map((p) => (p.type === "text" ? p.text : "")).join("\n");
const modelRequests = (ctx: RealCliContext) => ctx.server.requests.filter((r) => !r.auxiliary);

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** A copy of `thread`'s record bound to a session id the agent never saw: what a lost provider session looks like. */
async function threadWithLostSession(agent: Agent, store: ThreadStore, thread: Thread): Promise<Thread> {
  const { parentId: _parent, ...record } = await thread.info();
  const lost = await store.create({ ...record, id: `lost-${randomUUID()}`, providerSessionId: randomUUID() });
  return agent.resumeThread(lost.id);
}

describeRealCli("codex-acp", () => {
  it("sends /compact as the session advertises it: Codex's summary request, one terminal; a lost session is provider_session_not_found", async () => {
    const script: RealCliScript = {
      turns: [
        { match: { lastUserTextContains: "MANGO" }, reply: { text: "Noted: mango." } },
        { match: { lastUserTextContains: "CONTEXT CHECKPOINT COMPACTION" }, reply: { text: "SUMMARY-5: mango." } },
      ],
    };
    await withRealCli("codex-acp", script, async (ctx) => {
      const driver: AcpDriver = codexAcp({ provider: { baseUrl: `${base(ctx)}/v1`, apiKeyEnv: SCRIPTED_KEY_ENV, model: ctx.model }, env: ctx.env });
      expect(driver.descriptor().features.compact).toBe("advertised");
      const store = memoryThreadStore();
      const agent = createAgent(driver, { workspace: ctx.workspace, threadStore: store });
      try {
        const thread = await agent.startThread();
        await thread.run("Remember the word MANGO");
        const stream = thread.compact();
        const events = await collect(stream);
        await stream.result;
        expect(events.filter((e) => e.type.startsWith("run.") && e.type !== "run.started").map((e) => e.type)).toEqual(["run.completed"]);
        expect(modelRequests(ctx)).toHaveLength(2);
        expect(textOf(modelRequests(ctx)[1]!)).toContain("CONTEXT CHECKPOINT COMPACTION");

        const lost = await threadWithLostSession(agent, store, thread);
        await expect(lost.run("again")).rejects.toMatchObject({ code: "provider_session_not_found", phase: "before_delivery" });
        expect(modelRequests(ctx)).toHaveLength(2);
      } finally {
        await agent.close();
      }
    });
  });
});

describeRealCli("gemini", () => {
  it("refuses compact before any prompt when the session does not advertise /compact; a lost session is provider_session_not_found", async () => {
    const script: RealCliScript = { turns: [{ match: { lastUserTextContains: "MANGO" }, reply: { text: "Noted: mango." } }] };
    await withRealCli("gemini", script, async (ctx) => {
      const driver = gemini({ provider: { baseUrl: base(ctx), apiKeyEnv: "GEMINI_API_KEY", model: ctx.model }, env: ctx.env });
      const store = memoryThreadStore();
      const agent = createAgent(driver, { workspace: ctx.workspace, threadStore: store });
      try {
        const thread = await agent.startThread();
        await thread.run("Remember the word MANGO");
        const requests = modelRequests(ctx).length;
        const stream = thread.compact();
        const events = await collect(stream);
        const error = await stream.result.then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(FeatureUnsupportedError);
        expect(error).toMatchObject({ feature: expect.stringContaining("/compact"), driver: "gemini", phase: "before_delivery" });
        expect(events.at(-1)).toMatchObject({ type: "run.failed", error: { code: "feature_unsupported", phase: "before_delivery" } });
        expect(modelRequests(ctx)).toHaveLength(requests);

        const lost = await threadWithLostSession(agent, store, thread);
        await expect(lost.run("again")).rejects.toMatchObject({ code: "provider_session_not_found", phase: "before_delivery" });
        expect(modelRequests(ctx)).toHaveLength(requests);
      } finally {
        await agent.close();
      }
    });
  });
});
