import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { HostToolsEndpoint } from "../../../src/index.js";
import { resolveHostTools } from "../../../src/agent/host-tool-schemas.js";
import { LoopbackServer, MAX_REQUEST_BYTES, RETIRED_TOKENS_KEPT } from "../../../src/resources/host-tools/server.js";
import { createRedactor, forgetSecret } from "../../../src/redact/redact.js";
import type { RunBinding } from "../../../src/resources/host-tools/served-tool.js";

const servers: LoopbackServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const secrets: string[] = [];
const forgotten: string[] = [];
function serverWith(tools: unknown[] = [{ name: "echo", inputSchema: { type: "object" }, handler: (args: unknown) => args }]): LoopbackServer {
  const server = new LoopbackServer({
    serverName: "host",
    tools: resolveHostTools(tools, "tools"),
    redact: (text) => text,
    addSecret: (value) => secrets.push(value),
    forgetSecret: (value) => forgotten.push(value),
  });
  servers.push(server);
  return server;
}

function binding(runId: string, services: unknown[] = []): RunBinding & { end(): void } {
  const controller = new AbortController();
  return { runId, services: resolveHostTools(services, "services"), signal: controller.signal, end: () => controller.abort() };
}

/** `onStream`: called once the server has answered the client's standalone SSE stream (GET), which notifications travel on. */
async function clientOf(view: HostToolsEndpoint, onListChanged?: () => void, onStream?: () => void): Promise<Client> {
  const client = new Client({ name: "test", version: "0" });
  if (onListChanged) client.setNotificationHandler(ToolListChangedNotificationSchema, () => onListChanged());
  const watched: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? "GET") === "GET" && response.ok) onStream?.();
    return response;
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(view.http.url), { requestInit: { headers: view.http.headers }, fetch: watched }));
  clients.push(client);
  return client;
}

const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } });
function post(url: string, headers: Record<string, string>, body: string | Buffer = initialize): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });
}

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content)[0]!.text;

describe("an endpoint's bearer token", () => {
  it("is required: no token, another endpoint's token, a wrong one or a revoked endpoint get 401; the right one is served", async () => {
    const server = serverWith();
    const a = (await server.open()).view;
    const b = (await server.open()).view;
    expect(a.http.url).not.toBe(b.http.url);
    expect(a.http.headers.Authorization).not.toBe(b.http.headers.Authorization);
    expect(secrets).toEqual(expect.arrayContaining([a.http.headers.Authorization!.slice(7), b.http.headers.Authorization!.slice(7)]));
    expect((await post(a.http.url, {})).status).toBe(401);
    expect((await post(a.http.url, { authorization: b.http.headers.Authorization! })).status).toBe(401);
    expect((await post(a.http.url, { authorization: `${a.http.headers.Authorization!}x` })).status).toBe(401);
    expect((await post(a.http.url.replace(/[^/]+$/, "unknown"), { authorization: a.http.headers.Authorization! })).status).toBe(401);
    expect((await post(a.http.url, { authorization: a.http.headers.Authorization! })).status).toBe(200);
    await a.close();
    expect((await post(a.http.url, { authorization: a.http.headers.Authorization! })).status).toBe(401);
    expect((await post(b.http.url, { authorization: b.http.headers.Authorization! })).status).toBe(200);
  });

  it("stays secret after its endpoint is revoked, until that is one of more than RETIRED_TOKENS_KEPT revocations ago", async () => {
    const server = serverWith();
    const tokens: string[] = [];
    for (let i = 0; i <= RETIRED_TOKENS_KEPT; i++) {
      const { view } = await server.open();
      tokens.push(view.http.headers.Authorization!.slice("Bearer ".length));
      await view.close();
      await view.close(); // a second close retires nothing more
    }
    expect(forgotten).toEqual([tokens[0]]);
    const redactor = createRedactor();
    redactor.addSecret(tokens[0]!);
    redactor.addSecret(tokens[1]!);
    forgetSecret(redactor, tokens[0]!);
    expect(redactor.redactText(`a ${tokens[1]} b`)).not.toContain(tokens[1]);
    expect(redactor.redactText(`a ${tokens[0]} b`)).toContain(tokens[0]);
  });

  it("is 32 random bytes, and travels to the stdio bridge in its environment, never its arguments", async () => {
    const { view } = await serverWith().open();
    const token = view.http.headers.Authorization!.slice("Bearer ".length);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(view.stdio.command).toBe(process.execPath);
    expect(view.stdio.args.join(" ")).not.toContain(token);
    expect(Object.values(view.stdio.env)).toContain(token);
  });

  it("refuses a body over the limit with 413 and still serves the endpoint afterwards", async () => {
    const { view } = await serverWith().open();
    const response = await post(view.http.url, view.http.headers, Buffer.alloc(MAX_REQUEST_BYTES + 1, 0x20));
    expect(response.status).toBe(413);
    const client = await clientOf(view);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo"]);
  });
});

describe("binding an endpoint to a run", () => {
  it("lists the run's services while bound and announces each change with tools/list_changed", async () => {
    const server = serverWith();
    const { endpoint, view } = await server.open();
    let changes = 0;
    let changed!: () => void;
    let streamOpen!: () => void;
    const streamOpened = new Promise<void>((resolve) => (streamOpen = resolve));
    const client = await clientOf(view, () => (changes++, changed()), () => streamOpen());
    const nextChange = () => new Promise<void>((resolve) => (changed = resolve));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo"]);
    const run = binding("run_1", [{ name: "svc", inputSchema: { type: "object" }, handler: () => "s" }]);
    // The standalone SSE stream the notification travels on opens after initialization.
    await streamOpened;
    let change = nextChange();
    endpoint.bind(run);
    await change;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo", "svc"]);
    change = nextChange();
    endpoint.unbind("run_1");
    await change;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo"]);
    // A run without services changes nothing listed: no notification.
    endpoint.bind(binding("run_2"));
    endpoint.unbind("run_2");
    expect(changes).toBe(2);
  });

  it("a call on an unbound endpoint is a tool error; bound, the handler gets the run's id; unbinding another run leaves it bound", async () => {
    const server = serverWith([{ name: "who", inputSchema: { type: "object" }, handler: (_args: unknown, context: { runId: string }) => context.runId }]);
    const { endpoint, view } = await server.open();
    const client = await clientOf(view);
    const unbound = await client.callTool({ name: "who", arguments: {} });
    expect(unbound.isError).toBe(true);
    expect(textOf(unbound)).toMatch(/no run is active/);
    endpoint.bind(binding("run_a"));
    endpoint.unbind("run_other");
    expect(textOf(await client.callTool({ name: "who", arguments: {} }))).toBe("run_a");
  });

  it("aborts a running handler when the provider cancels the request (notifications/cancelled)", async () => {
    let aborted!: (reason: unknown) => void;
    const abortSeen = new Promise((resolve) => (aborted = resolve));
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const server = serverWith([
      {
        name: "wait",
        inputSchema: { type: "object" },
        handler: (_args: unknown, { signal }: { signal: AbortSignal }) =>
          new Promise((resolve) => {
            signal.addEventListener("abort", () => (aborted(signal.reason), resolve("stopped")), { once: true });
            entered();
          }),
      },
    ]);
    const { endpoint, view } = await server.open();
    endpoint.bind(binding("run_c"));
    const client = await clientOf(view);
    const controller = new AbortController();
    const call = client.callTool({ name: "wait", arguments: {} }, undefined, { signal: controller.signal });
    await inHandler;
    controller.abort(new Error("provider gave up"));
    await expect(call).rejects.toThrow();
    await expect(abortSeen).resolves.toBeDefined();
  });

  it("answers a call whose handler ignores its signal with a tool error as soon as the run ends", async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const server = serverWith([
      {
        name: "stuck",
        inputSchema: { type: "object" },
        handler: () => {
          entered();
          return new Promise(() => undefined);
        },
      },
    ]);
    const { endpoint, view } = await server.open();
    const run = binding("run_d");
    endpoint.bind(run);
    const client = await clientOf(view);
    const call = client.callTool({ name: "stuck", arguments: {} });
    await inHandler;
    run.end();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^host tool "stuck" was stopped: /);
  });
});

describe("the stdio bridge", () => {
  it("relays a stdio MCP client to the endpoint (list and call), and the server's close removes its program", async () => {
    const server = serverWith();
    const { endpoint, view } = await server.open();
    endpoint.bind(binding("run_s"));
    const client = new Client({ name: "stdio-test", version: "0" });
    await client.connect(new StdioClientTransport({ command: view.stdio.command, args: view.stdio.args, env: { ...view.stdio.env, PATH: process.env.PATH ?? "" }, stderr: "pipe" }));
    clients.push(client);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo"]);
    const result = await client.callTool({ name: "echo", arguments: { said: "over stdio" } });
    expect(result.structuredContent).toEqual({ said: "over stdio" });
    await client.close();
    clients.splice(0);
    await server.close();
    expect(existsSync(view.stdio.args[0]!)).toBe(false);
  });

  it("exits with an error, saying so, when its environment names no endpoint", async () => {
    const server = serverWith();
    const { view } = await server.open();
    const child = spawn(view.stdio.command, view.stdio.args, { env: { PATH: process.env.PATH ?? "" }, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/endpoint address is missing/);
  });
});
