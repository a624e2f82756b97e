/**
 * openai() configured wrong, as a host gets it wrong: an operation pasted into the base URL, an
 * unknown API, a key variable that is not set or badly named, a key the endpoint refuses and
 * echoes. Each is a typed error naming the field, before anything is sent where it can be, and
 * the key appears nowhere.
 */
import { createServer } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { AuthRequiredError, ConfigError, createAgent, type AgentEvent } from "../../src/index.js";
import { openai } from "../../src/drivers/openai/index.js";
import { BUILTIN_TOOL_NAMES } from "../../src/drivers/openai/config.js";
import { builtinTools } from "../../src/drivers/openai/tools/index.js";
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

  it("refuses, naming the field and never the value, what would fail every request later", () => {
    const base = "http://127.0.0.1:8080/v1";
    // fetch refuses credentials in a URL: each request failed as a retried "Connection error".
    expect(() => openai({ baseURL: "http://user:hunter2secret@127.0.0.1:8080/v1" })).toThrow(/baseURL: expected no credentials/);
    expect(() => openai({ baseURL: "http://user:hunter2secret@127.0.0.1:8080/v1" })).not.toThrow(/hunter2secret/);
    // A query ended up before the appended operation (POST /v1?api-version=1/chat/completions).
    expect(() => openai({ baseURL: `${base}?api-version=2024-06-01` })).toThrow(/baseURL: expected no query or fragment/);
    expect(() => openai({ baseURL: `${base}#x` })).toThrow(ConfigError);
    // A header value with a line break failed each run after delivery with a provider_error.
    for (const value of ["tok\nsecretpart", "tok\r\nX-Evil: 1", "tok\0"]) {
      expect(() => openai({ baseURL: base, headers: { "X-Token": value } })).toThrow(/headers\.X-Token: expected a header value without line breaks/);
      expect(() => openai({ baseURL: base, headers: { "X-Token": value } })).not.toThrow(/secretpart|X-Evil/);
    }
    // A misspelt tool name left that tool out without a word.
    expect(() => openai({ baseURL: base, tools: { only: ["raed", "grep"] } })).toThrow(/tools\.only\[0\]: expected one of .*"read"/);
    expect(() => openai({ baseURL: base, tools: { only: ["read", "grep", "task"] } })).not.toThrow();
  });

  it("takes in tools.only exactly the names of the built-in tools and task", () => {
    expect([...BUILTIN_TOOL_NAMES].sort()).toEqual([...builtinTools().map((tool) => tool.name), "task"].sort());
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
      // Set but empty: no key either, and the message says which.
      process.env.OAI_SCN_UNSET_KEY = "";
      await expect(agent.run("hi")).rejects.toMatchObject({ code: "auth_required", message: expect.stringContaining("OAI_SCN_UNSET_KEY is empty") });
      expect(server.requests.filter((r) => r.dialect === "chat")).toHaveLength(0);
    } finally {
      delete process.env.OAI_SCN_UNSET_KEY;
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

describe("inspect() of openai() as a host meets it", () => {
  it("reports a named but unset key variable truthfully and sends no model listing without it", async () => {
    server = await startModelServer({ script: { turns: [{ reply: { text: "never" } }] } });
    delete process.env.OAI_SCN_INSPECT_UNSET;
    const agent = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", apiKeyEnv: "OAI_SCN_INSPECT_UNSET", stateDir: join(tmp.root, "inspect-unset") }), { workspace: tmp.dir() });
    try {
      const inspection = await agent.inspect();
      for (const panel of [inspection.models, inspection.auth]) {
        expect(panel).toMatchObject({ status: "unavailable", reason: { code: "auth_required", message: expect.stringContaining("OAI_SCN_INSPECT_UNSET is not set") } });
        expect(panel.value).toBeUndefined();
      }
      expect(server.requests).toHaveLength(0);
      // An empty variable is no key either.
      process.env.OAI_SCN_INSPECT_UNSET = "";
      expect((await agent.inspect()).models).toMatchObject({ status: "unavailable", reason: { code: "auth_required" } });
      expect(server.requests).toHaveLength(0);
    } finally {
      delete process.env.OAI_SCN_INSPECT_UNSET;
      await agent.close();
    }
  });

  it("lists models with the key when it is set, and sends no Authorization header when no key is configured", async () => {
    server = await startModelServer({ script: { turns: [{ reply: { text: "keyless answer" } }] } });
    process.env.OAI_SCN_INSPECT_KEY = "sk-scn-inspect-key-0123456789";
    const keyed = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", apiKeyEnv: "OAI_SCN_INSPECT_KEY", stateDir: join(tmp.root, "inspect-keyed") }), { workspace: tmp.dir() });
    const keyless = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(tmp.root, "inspect-keyless") }), { workspace: tmp.dir() });
    try {
      const withKey = await keyed.inspect();
      expect(withKey.models.status).toBe("observed");
      expect(withKey.auth).toMatchObject({ status: "observed", value: { signedIn: true, method: "api_key" } });
      expect(server.requests.at(-1)!.headers.authorization).toBeDefined();

      const without = await keyless.inspect();
      expect(without.models).toMatchObject({ status: "observed", value: expect.arrayContaining([expect.objectContaining({ id: "scripted-model", isDefault: true })]) });
      expect(without.auth).toMatchObject({ status: "observed", value: { signedIn: false, required: false } });
      // The client package's version is observed (it exports ./version, not ./package.json).
      expect(without.environment).toMatchObject({ status: "observed", value: { version: expect.stringMatching(/^\d+\.\d+\.\d+/) } });
      expect((await keyless.run("hi")).text).toBe("keyless answer");
      const keylessRequests = server.requests.slice(1);
      expect(keylessRequests.length).toBeGreaterThanOrEqual(2);
      for (const request of keylessRequests) expect(request.headers.authorization).toBeUndefined();
    } finally {
      delete process.env.OAI_SCN_INSPECT_KEY;
      await keyed.close();
      await keyless.close();
    }
  });

  it("never sends the host's OPENAI_ORG_ID or OPENAI_PROJECT_ID to the endpoint; headers still can", async () => {
    server = await startModelServer({ script: { turns: [{ reply: { text: "a" } }, { reply: { text: "b" } }] } });
    process.env.OPENAI_ORG_ID = "org-host-private";
    process.env.OPENAI_PROJECT_ID = "proj-host-private";
    const plain = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", stateDir: join(tmp.root, "org-plain") }), { workspace: tmp.dir() });
    const explicit = createAgent(openai({ baseURL: `${server.url}/v1`, model: "scripted-model", headers: { "OpenAI-Organization": "org-chosen" }, stateDir: join(tmp.root, "org-explicit") }), { workspace: tmp.dir() });
    try {
      await plain.run("hi");
      await plain.inspect();
      for (const request of server.requests) {
        expect(request.headers["openai-organization"]).toBeUndefined();
        expect(request.headers["openai-project"]).toBeUndefined();
      }
      const before = server.requests.length;
      await explicit.run("hi");
      expect(server.requests.slice(before).map((r) => r.headers["openai-organization"])).toContain("org-chosen");
    } finally {
      delete process.env.OPENAI_ORG_ID;
      delete process.env.OPENAI_PROJECT_ID;
      await plain.close();
      await explicit.close();
    }
  });

  it("says why the model listing failed, the key and header values redacted", async () => {
    const key = "sk-scn-listing-key-4f1e2d3c";
    const header = "hdr-scn-listing-value-9a8b";
    process.env.OAI_SCN_LISTING_KEY = key;
    let failureText = `upstream down; got ${key} and ${header}`;
    const http = createServer((req, res) => {
      req.resume();
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: failureText } }));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as { port: number };
    const failing = createAgent(openai({ baseURL: `http://127.0.0.1:${port}/v1`, model: "m", apiKeyEnv: "OAI_SCN_LISTING_KEY", headers: { "X-Gateway": header }, stateDir: join(tmp.root, "listing-500") }), { workspace: tmp.dir() });
    const unreachable = createAgent(openai({ baseURL: "http://127.0.0.1:9/v1", model: "m", stateDir: join(tmp.root, "listing-down") }), { workspace: tmp.dir() });
    try {
      const inspection = await failing.inspect();
      expect(inspection.models).toMatchObject({ status: "unavailable", reason: { code: "provider_error", message: expect.stringContaining("upstream down") } });
      expect(JSON.stringify(inspection)).not.toContain(key);
      expect(JSON.stringify(inspection)).not.toContain(header);
      expect((await unreachable.inspect()).models).toMatchObject({ status: "unavailable", reason: { code: "provider_error", message: expect.stringContaining("Connection error") } });
      // A key where the reason is cut: redacted before the cut, so not even its front is left.
      for (const padding of [180, 186, 192, 196]) {
        failureText = `${"p".repeat(padding)}${key} and more`;
        const cut = JSON.stringify(await failing.inspect());
        expect(cut).toContain("ppp");
        expect(cut).not.toContain(key.slice(0, 6));
      }
    } finally {
      delete process.env.OAI_SCN_LISTING_KEY;
      await failing.close();
      await unreachable.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it("reports a web page answering GET /models as not JSON, never as an empty model list", async () => {
    const http = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><html><body><h1>Open WebUI</h1></body></html>");
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as { port: number };
    const agent = createAgent(openai({ baseURL: `http://127.0.0.1:${port}`, model: "m", stateDir: join(tmp.root, "inspect-html") }), { workspace: tmp.dir() });
    try {
      const inspection = await agent.inspect();
      expect(inspection.models).toMatchObject({ status: "unavailable", reason: { code: "malformed_response", message: expect.stringContaining("content type text/html, not JSON") } });
      expect(inspection.auth).toMatchObject({ status: "unavailable", reason: { code: "malformed_response" } });
    } finally {
      await agent.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
