/**
 * The `a2a()` driver against an A2A agent written with the A2A SDK alone (a2a-sdk-agent.ts): the
 * driver conformance kit (with a missing SDK, a secured agent without credentials, and a token
 * the agent echoes in its failures), then threads on context ids and a generic input request
 * answered as a question.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.js";
import { a2a } from "../../src/bridges/a2a/index.js";
import { createA2ADriver } from "../../src/bridges/a2a/driver/driver.js";
import { runDriverConformance } from "../../src/testing/conformance.js";
import type { AgentEvent } from "../../src/events/types.js";
import { SDK_AGENT_TEXT, startSdkAgent, type SdkAgent } from "./a2a-sdk-agent.js";

const TOKEN = "a2a-canary-token-5e1f0c77d2";
let agentServer: SdkAgent | undefined;
beforeAll(async () => {
  agentServer = await startSdkAgent(TOKEN);
});
afterAll(async () => {
  await agentServer?.close();
});

const url = (path: "open" | "secured") => `${agentServer!.base}/${path}`;
const missingSdk = () => Promise.reject(Object.assign(new Error("Cannot find package '@a2a-js/sdk'"), { code: "ERR_MODULE_NOT_FOUND" }));

describe("a2a driver on an A2A SDK agent: conformance", () => {
  runDriverConformance(() => a2a({ url: url("open") }), {
    runner: { describe, it },
    agentOptions: { workspace: process.cwd() },
    textRun: { prompt: "say hello", expectText: SDK_AGENT_TEXT },
    cancellableRun: { prompt: "SLOW please" },
    missingExecutable: () => createA2ADriver({ url: url("open") }, { importer: missingSdk }),
    authRequired: { makeDriver: () => a2a({ url: url("secured") }) },
    canary: { secret: TOKEN, makeDriver: () => a2a({ url: url("secured"), auth: { token: TOKEN } }), prompts: ["LEAK it"] },
    timeoutMs: 30_000,
  });
});

describe("a2a driver on an A2A SDK agent", () => {
  it("inspects the card: the agent's name, version and skills; the credentials proven by a call", async () => {
    const agent = createAgent(a2a({ url: url("secured"), auth: { token: TOKEN } }), { workspace: process.cwd() });
    try {
      const inspection = await agent.inspect();
      expect(inspection.environment.value).toMatchObject({ agentName: "sample-agent", version: "1.2.3", protocolVersion: "1.0", capabilities: { features: ["streaming"] } });
      expect(inspection.skills.value?.skills).toEqual([{ name: "greet", description: "Greets people", source: "agent card" }]);
      expect(inspection.auth.value).toEqual({ signedIn: true, method: "bearer", required: true });
      expect(inspection.models.status).toBe("unsupported");
    } finally {
      await agent.close();
    }
  });

  it("a thread's turns share one context id (the provider session)", async () => {
    const agent = createAgent(a2a({ url: url("open") }), { workspace: process.cwd() });
    try {
      const thread = await agent.startThread();
      const first = await thread.run("say hello once");
      const second = await thread.run("say hello twice");
      expect(first.providerSessionId).toBeDefined();
      expect(second.providerSessionId).toBe(first.providerSessionId);
      const seen = agentServer!.log.contextIds.slice(-2);
      expect(seen).toEqual([first.providerSessionId, first.providerSessionId]);
    } finally {
      await agent.close();
    }
  });

  it("an input-required task is a question; the answer goes back on the same task", async () => {
    const agent = createAgent(a2a({ url: url("open") }), { workspace: process.cwd(), defaults: { onUserInput: "stream" } });
    try {
      const stream = agent.stream("ASK my name");
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === "question.requested") stream.answer(event.requestId, { input: "Ada" });
      }
      expect((await stream.result).text).toBe("Nice to meet you, Ada.");
      expect(events.find((e) => e.type === "question.requested")).toMatchObject({ questions: [{ id: "input", question: "What is your name?", allowOther: true }] });
    } finally {
      await agent.close();
    }
  });

  it("a file part of the agent's answer shows as a marker naming it, not dropped", async () => {
    const agent = createAgent(a2a({ url: url("open") }), { workspace: process.cwd() });
    try {
      expect((await agent.run("FILE please")).text).toBe("See [file: report.pdf (application/pdf)]");
    } finally {
      await agent.close();
    }
  });

  it("refuses a policy a remote agent cannot be held to", () => {
    expect(() => createAgent(a2a({ url: url("open") }), { defaults: { policy: { sandbox: "read-only" } } })).toThrow(/policy.sandbox/);
  });
});
