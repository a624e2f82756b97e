/**
 * Secret canaries: every MCP env value and header value — whatever its name — is registered with the
 * agent's redactor, so a provider echoing one (in inspection, events, a result or an error) never
 * shows it, and the thread fingerprint's readable parts name the servers only.
 */
import { describe, expect, it } from "vitest";
import { createAgent, memoryThreadStore, type AgentEvent } from "../../src/index.js";
import { fakeDriver } from "../../src/testing/index.js";
import { errorSurface } from "../../src/testing/conformance-probes.js";
import { mcpSecretValues } from "../../src/resources/secrets.js";

const ENV_CANARY = "postgres://app:envcanary7Qx@db.internal/app";
const HEADER_CANARY = "hdrcanary9Lm";
const BEARER_CANARY = "bearercanary3Kd";
const canaries = [ENV_CANARY, "envcanary7Qx", HEADER_CANARY, BEARER_CANARY];
const echoed = `env ${ENV_CANARY} header ${HEADER_CANARY} auth Bearer ${BEARER_CANARY} token alone ${BEARER_CANARY}`;

const mcp = [
  { name: "db", command: process.execPath, env: { DB_URL: ENV_CANARY, LOG: "1" } },
  { name: "docs", url: "https://docs.example.test/mcp", headers: { "X-Tenant": HEADER_CANARY, Authorization: `Bearer ${BEARER_CANARY}` } },
];

function assertClean(surface: string, what: string): void {
  for (const canary of [ENV_CANARY, HEADER_CANARY, BEARER_CANARY]) expect(surface, `${what} shows a secret`).not.toContain(canary);
}

describe("MCP env and header values are secrets", () => {
  it("registers every value (not only secret-looking names), the bearer token alone too, short env values aside", () => {
    expect(mcpSecretValues(mcp).sort()).toEqual([ENV_CANARY, HEADER_CANARY, `Bearer ${BEARER_CANARY}`, BEARER_CANARY].sort());
    expect(mcpSecretValues([{ name: "a", command: "x", env: { MODE: "fast", API_TOKEN: "abcd" } }])).toEqual(["abcd"]);
  });

  it("never shows them in inspect(), prepare(), events, results, errors or the thread fingerprint", async () => {
    const driver = fakeDriver({
      prepare: "ready",
      inspect: { mcp: { status: "observed", value: { servers: [{ name: "db", status: `failed: ${echoed}` }] }, evidence: [{ transport: "fake", method: "mcp", scope: "process", observedAt: new Date().toISOString(), durationMs: 0 }] } },
      script: (prompt) =>
        prompt === "fail"
          ? { steps: [{ markDelivered: true }, { fail: { message: `the provider failed: ${echoed}` } }] }
          : {
              steps: [
                { markDelivered: true },
                // A provider quoting its MCP configuration in a tool call and its output.
                { emit: { type: "tool.started", callId: "c1", kind: "mcp", title: `db ${echoed}`, rawInput: { env: { DB_URL: ENV_CANARY }, echoed } } },
                { emit: { type: "tool.completed", callId: "c1", status: "completed", output: echoed } },
                { emit: { type: "notice", level: "warning", code: "fake_notice", message: echoed } },
                { emit: { type: "message.completed", itemId: "m1", text: "done" } },
              ],
              text: "done",
            },
    });
    const store = memoryThreadStore();
    const agent = createAgent(driver, { mcp, threadStore: store });
    try {
      const inspection = JSON.stringify(await agent.inspect());
      expect(inspection).toContain("[REDACTED]");
      assertClean(inspection, "the inspection");
      assertClean(JSON.stringify(await agent.prepare()), "the prepare report");

      const events: AgentEvent[] = [];
      const stream = agent.stream("hello");
      for await (const event of stream) events.push(event);
      const result = await stream.result;
      assertClean(JSON.stringify(events), "the events");
      expect(JSON.stringify(events)).toContain("[REDACTED]");
      assertClean(JSON.stringify({ text: result.text, raw: result.raw(), transcript: result.transcript() }), "the result");

      const failure = await agent.run("fail").then(() => undefined, (error: unknown) => error);
      expect(failure).toBeDefined();
      assertClean(errorSurface(failure), "the error");

      const thread = await agent.startThread({ id: "canary-thread" });
      await thread.run("hello");
      const record = await store.get(thread.id);
      expect(record?.fingerprintParts.mcp).toBe("db, docs");
      assertClean(JSON.stringify(record), "the thread record");
    } finally {
      await agent.close();
    }
    for (const canary of canaries) expect(canary.length).toBeGreaterThan(5);
  });
});
