/**
 * The Pi extension (src/drivers/pi/extension.ts) against real MCP servers (Streamable HTTP with a
 * bearer token, and a stdio one), with a recording stand-in for Pi's extension API: which tools
 * it registers and activates, what a call forwards and returns, cancellation, re-listing before a
 * prompt, the configured built-ins, the instructions, and the configuration file's removal.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import agentAdaptorExtension, { EXTENSION_CONFIG_ENV, piToolName, type ExtensionConfig, type PiExtensionApi } from "../../../src/drivers/pi/extension.js";
import { startMcpHttpServer, type TestMcpServer, type TestTool } from "./mcp-http-server.js";

type Definition = Parameters<PiExtensionApi["registerTool"]>[0];
type Handler = (event: { systemPrompt: string }) => Promise<{ systemPrompt?: string } | undefined | void>;

/** Records what the extension asks of Pi; tools become active only through setActiveTools, as after Pi's start-up. */
class FakePi implements PiExtensionApi {
  readonly tools = new Map<string, Definition>();
  active = ["read", "bash", "edit", "write"];
  readonly handlers = new Map<string, Handler[]>();
  registerTool(tool: Definition): void {
    this.tools.set(tool.name, tool);
  }
  getActiveTools(): string[] {
    return [...this.active];
  }
  setActiveTools(names: string[]): void {
    this.active = names.filter((n) => ["read", "bash", "edit", "write"].includes(n) || this.tools.has(n));
  }
  on(event: string, handler: Handler): void {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
  }
  async emit(event: string, payload: { systemPrompt: string } = { systemPrompt: "" }): Promise<{ systemPrompt?: string } | undefined> {
    let result: { systemPrompt?: string } | undefined;
    for (const handler of this.handlers.get(event) ?? []) result = (await handler(payload)) ?? result;
    return result;
  }
  call(name: string, args: unknown, signal?: AbortSignal) {
    const tool = this.tools.get(name);
    if (tool === undefined) throw new Error(`no tool ${name}`);
    return tool.execute("call-1", args, signal);
  }
}

const echo: TestTool = {
  name: "echo",
  description: "Echo the text back",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  call: (args) => ({ content: [{ type: "text", text: `echo: ${String(args.text)}` }] }),
};
const CACHE = Symbol.for("agent-adaptor.pi-extension.config");
const echoStdio = fileURLToPath(new URL("../stream-json/fixtures/echo-mcp-server.mjs", import.meta.url));

let dir: string;
let server: TestMcpServer | undefined;
let pi: FakePi;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "pi-extension-test-"));
  pi = new FakePi();
  delete (globalThis as Record<symbol, unknown>)[CACHE];
});
afterEach(async () => {
  await pi.emit("session_shutdown");
  await server?.close();
  server = undefined;
  delete process.env[EXTENSION_CONFIG_ENV];
  await rm(dir, { recursive: true, force: true });
});

async function load(config: ExtensionConfig): Promise<string> {
  const file = join(dir, "extension.json");
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  process.env[EXTENSION_CONFIG_ENV] = file;
  await agentAdaptorExtension(pi);
  return file;
}

async function hostServer(tools: TestTool[] = [echo]): Promise<ExtensionConfig["servers"][number]> {
  server = await startMcpHttpServer(tools);
  return { name: "host", url: server.url, headers: server.headers };
}

describe("the Pi extension", () => {
  it("registers each MCP tool as mcp__<server>__<tool>, activates it beside Pi's own, forwards calls, and removes its configuration", async () => {
    const file = await load({ servers: [await hostServer()] });
    expect(existsSync(file)).toBe(false);
    expect(process.env[EXTENSION_CONFIG_ENV]).toBeUndefined();
    const tool = pi.tools.get("mcp__host__echo");
    expect(tool).toMatchObject({ description: "Echo the text back", parameters: echo.inputSchema });
    await pi.emit("session_start");
    expect(pi.active).toEqual(["read", "bash", "edit", "write", "mcp__host__echo"]);

    await expect(pi.call("mcp__host__echo", { text: "hi" })).resolves.toEqual({ content: [{ type: "text", text: "echo: hi" }], details: {} });
    expect(server!.calls).toEqual([{ name: "echo", args: { text: "hi" } }]);
  });

  it("turns an error result into a thrown error, keeps images, and gives structured content as JSON text", async () => {
    const tools: TestTool[] = [
      { name: "fails", inputSchema: { type: "object" }, call: () => ({ content: [{ type: "text", text: "the handler said no" }], isError: true }) },
      { name: "picture", inputSchema: { type: "object" }, call: () => ({ content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] }) },
      { name: "data", inputSchema: { type: "object" }, call: () => ({ content: [], structuredContent: { rows: 2 } }) },
    ];
    await load({ servers: [await hostServer(tools)] });
    await expect(pi.call("mcp__host__fails", {})).rejects.toThrow("the handler said no");
    await expect(pi.call("mcp__host__picture", {})).resolves.toMatchObject({ content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] });
    await expect(pi.call("mcp__host__data", {})).resolves.toEqual({ content: [{ type: "text", text: '{"rows":2}' }], details: { rows: 2 } });
  });

  it("cancels the MCP request when Pi aborts the tool call: the server's handler sees its signal abort", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow: TestTool = {
      name: "slow",
      inputSchema: { type: "object" },
      call: (_args, signal) =>
        new Promise((resolve) => {
          started();
          signal.addEventListener("abort", () => resolve({ content: [{ type: "text", text: "aborted" }] }), { once: true });
        }),
    };
    await load({ servers: [await hostServer([slow])] });
    const controller = new AbortController();
    const call = pi.call("mcp__host__slow", {}, controller.signal);
    await running;
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => server!.cancelled).toEqual(["slow"]);
  });

  it("lists the tools again before each prompt: new ones are registered and offered, withdrawn ones deactivated; instructions are appended", async () => {
    await load({ servers: [await hostServer()], instructions: "Always answer in haiku." });
    await pi.emit("session_start");
    const extra: TestTool = { name: "lookup", inputSchema: { type: "object", properties: { key: { type: "string" } } }, call: () => ({ content: [{ type: "text", text: "found" }] }) };
    server!.setTools([extra]);
    const result = await pi.emit("before_agent_start", { systemPrompt: "You are Pi." });
    expect(result).toEqual({ systemPrompt: "You are Pi.\n\nAlways answer in haiku." });
    expect(pi.active).toEqual(["read", "bash", "edit", "write", "mcp__host__lookup"]);
    await expect(pi.call("mcp__host__lookup", { key: "k" })).resolves.toMatchObject({ content: [{ type: "text", text: "found" }] });

    server!.setTools([echo, extra]);
    await pi.emit("before_agent_start", { systemPrompt: "You are Pi." });
    expect(pi.active).toEqual(["read", "bash", "edit", "write", "mcp__host__echo", "mcp__host__lookup"]);
  });

  it("activates only the configured built-in tools beside its own", async () => {
    await load({ servers: [await hostServer()], builtinTools: ["read"] });
    await pi.emit("session_start");
    expect(pi.active).toEqual(["read", "mcp__host__echo"]);
  });

  it("without servers only appends the instructions, and leaves the system prompt alone without them", async () => {
    await load({ servers: [], instructions: "Be brief." });
    expect(await pi.emit("before_agent_start", { systemPrompt: "base" })).toEqual({ systemPrompt: "base\n\nBe brief." });
    delete (globalThis as Record<symbol, unknown>)[CACHE];
    pi = new FakePi();
    await load({ servers: [] });
    expect(await pi.emit("before_agent_start", { systemPrompt: "base" })).toBeUndefined();
  });

  it("connects a stdio MCP server it starts itself", async () => {
    await load({ servers: [{ name: "echo", command: process.execPath, args: [echoStdio] }] });
    await expect(pi.call("mcp__echo__say", { text: "over stdio" })).resolves.toMatchObject({ content: [{ type: "text", text: "echo: over stdio" }] });
  });

  it("fails to load (so Pi exits at start-up) when a server refuses it or cannot be reached", async () => {
    const host = await hostServer();
    await expect(load({ servers: [{ ...host, headers: { authorization: "Bearer wrong" } }] })).rejects.toThrow();
    expect(server!.unauthorized).toBeGreaterThan(0);
    delete (globalThis as Record<symbol, unknown>)[CACHE];
    await expect(load({ servers: [{ name: "gone", command: join(dir, "no-such-server") }] })).rejects.toThrow();
  });

  it("keeps a long tool name within the 64 characters model APIs accept, distinct per tool", () => {
    expect(piToolName("host", "echo")).toBe("mcp__host__echo");
    const a = piToolName("host", `${"x".repeat(60)}a`);
    const b = piToolName("host", `${"x".repeat(60)}b`);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
  });
});
