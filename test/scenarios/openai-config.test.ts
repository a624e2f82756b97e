/**
 * openai() configured wrong, as a host gets it wrong: an operation pasted into the base URL, an
 * unknown API, a key variable that is not set or badly named, a key the endpoint refuses and
 * echoes. Each is a typed error naming the field, before anything is sent where it can be, and
 * the key appears nowhere.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { AuthRequiredError, ConfigError, createAgent, type AgentEvent } from "../../src/index.js";
import { openai } from "../../src/drivers/openai/index.js";
import { startModelServer, type ModelServer } from "../../src/testing/model-server/index.js";
import { scratch } from "./helpers.js";

const tmp = scratch("openai-config-scn-");

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("openai() configured wrong", () => {
  it("refuses a base URL that names an operation, an unknown api and a bad variable name, naming the field", () => {
    for (const baseURL of ["http://127.0.0.1:8080/v1/chat/completions", "http://127.0.0.1:8080/v1/responses/", "https://gw.example/openai/v1/models"]) {
      expect(() => openai({ baseURL })).toThrow(ConfigError);
      expect(() => openai({ baseURL })).toThrow(/baseURL.*without \/chat\/completions/);
    }
    expect(() => openai({ baseURL: "http://127.0.0.1:8080/v1" })).not.toThrow();
    expect(() => openai({ baseURL: "http://127.0.0.1:8080/responses-gateway/v1" })).not.toThrow();
    expect(() => openai({ baseURL: "http://127.0.0.1:8080/v1", api: "completions" as never })).toThrow(/api/);
    expect(() => openai({ baseURL: "http://127.0.0.1:8080/v1", apiKeyEnv: "sk-live-looks-like-a-key" })).toThrow(/apiKeyEnv/);
  });

  it("fails a run whose key variable is unset with AuthRequiredError naming it, sending nothing", async () => {
    server = await startModelServer({ script: { turns: [{ reply: { text: "never" } }] } });
    delete process.env.OAI_SCN_UNSET_KEY;
    const agent = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", apiKeyEnv: "OAI_SCN_UNSET_KEY", stateDir: join(tmp.root, "unset") }), { workspace: tmp.dir() });
    try {
      const error = await agent.run("hi").then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(AuthRequiredError);
      expect((error as Error).message).toContain("OAI_SCN_UNSET_KEY");
      expect(server.requests.filter((r) => r.dialect === "chat")).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  for (const api of ["chat", "responses"] as const) {
    it(`answers a refused key the endpoint echoes with AuthRequiredError, the key nowhere (${api})`, async () => {
      const key = "sk-scn-refused-canary-31e0a9b7c5";
      process.env.OAI_SCN_REFUSED_KEY = key;
      server = await startModelServer({ script: { turns: [{ fault: { status: 401, body: { error: { message: `Incorrect API key provided: ${key}`, type: "invalid_request_error" } } } }] } });
      const agent = createAgent(openai({ baseURL: `${server.url}/v1`, api, model: "scripted-model", apiKeyEnv: "OAI_SCN_REFUSED_KEY", stateDir: join(tmp.root, `refused-${api}`) }), { workspace: tmp.dir() });
      try {
        const stream = agent.stream("hi");
        const events = await collect(stream);
        const error = await stream.result.then(() => undefined, (e: unknown) => e as Error & { code?: string; cause?: unknown });
        // Sent, so the run failed after delivery; its cause is the typed refusal naming the variable.
        expect(error).toMatchObject({ code: "auth_required" });
        expect(error!.cause).toBeInstanceOf(AuthRequiredError);
        expect((error!.cause as AuthRequiredError).remedy).toContain("OAI_SCN_REFUSED_KEY");
        expect(JSON.stringify(events) + error!.message + String(error!.stack)).not.toContain(key);
        // Sent once: a refused key is not retried.
        expect(server.requests.filter((r) => r.dialect === api)).toHaveLength(1);
      } finally {
        delete process.env.OAI_SCN_REFUSED_KEY;
        await agent.close();
      }
    });
  }
});
