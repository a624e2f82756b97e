/**
 * The Pi extension the driver loads (`pi --extension <this file>`) to deliver an agent's resources
 * Pi has no native surface for: Pi has no MCP, but an extension can register tools with a handler
 * and amend the system prompt. This module runs inside Pi (loaded by Pi's own loader, from `dist`),
 * so it imports nothing of this library: only Node and, lazily, the MCP SDK.
 *
 * It reads its configuration from a private file named by {@link EXTENSION_CONFIG_ENV} (never
 * argv), then removes the variable from its environment so the commands Pi's tools run do not
 * inherit it, and deletes the file. For every MCP server (the agent's loopback host-tools endpoint,
 * the agent's own MCP servers) it connects an MCP client and registers each listed tool as the Pi
 * tool `mcp__<server>__<tool>` forwarding calls (Pi's abort signal cancels the MCP request). Before
 * each prompt (`before_agent_start`, awaited by Pi before the model's first request) it lists the
 * tools again, so a run's services bound to a ready process are offered, and those gone are
 * withdrawn; it then appends the agent's instructions to the system prompt.
 *
 * A server that cannot be reached makes the extension fail to load, which makes Pi exit at
 * start-up: a resource is delivered or the run fails, never silently dropped.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";

/** The child variable naming the extension's private configuration file. */
export const EXTENSION_CONFIG_ENV = "AGENT_ADAPTOR_PI_EXTENSION";

/** An MCP server the extension connects to: Streamable HTTP, or a command it starts (stdio). */
export type ExtensionServer =
  | { name: string; url: string; headers?: Record<string, string> }
  | { name: string; command: string; args?: string[]; env?: Record<string, string> };

/** The extension's configuration, written by the driver into a 0600 file of the process's private directory. */
export interface ExtensionConfig {
  /** Appended to Pi's system prompt on every prompt. */
  instructions?: string;
  servers: ExtensionServer[];
  /**
   * Pi's built-in tools the driver's config allows (`PiConfig.tools`); undefined: Pi's default set.
   * Pi then starts with `--no-builtin-tools` and the extension activates these beside its own
   * (Pi's `--tools` allowlist would also filter out the tools registered here).
   */
  builtinTools?: string[];
}

/** Longest tool name the model APIs accept. */
const MAX_TOOL_NAME = 64;

/** The Pi tool name of an MCP server's tool: `mcp__<server>__<tool>`, shortened with a digest when too long. */
export function piToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const digest = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${digest}`;
}

/** The part of Pi's extension API this extension uses (Pi's own types are not a dependency). */
export interface PiExtensionApi {
  registerTool(tool: PiToolDefinition): void;
  getActiveTools(): string[];
  setActiveTools(names: string[]): void;
  on(event: "before_agent_start", handler: (event: { systemPrompt: string }) => Promise<{ systemPrompt?: string } | undefined>): void;
  on(event: "session_start" | "session_shutdown", handler: () => Promise<void>): void;
}

type PiContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

interface PiToolDefinition {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(toolCallId: string, params: unknown, signal: AbortSignal | undefined): Promise<{ content: PiContent[]; details: unknown }>;
}

/** An MCP tool as listed (`tools/list`). */
interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** The MCP client calls used here (the SDK's `Client`). */
interface McpClient {
  listTools(params?: { cursor?: string }): Promise<{ tools: ListedTool[]; nextCursor?: string }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }, schema: undefined, options: { signal?: AbortSignal; timeout: number }): Promise<unknown>;
  close(): Promise<void>;
}

/** A host tool may run as long as the run lasts: the MCP request is never timed out here (Pi's abort cancels it). */
const NO_TIMEOUT_MS = 2_147_483_647;

const CACHE = Symbol.for("agent-adaptor.pi-extension.config");

/** The configuration: read once per process (a reloaded extension finds it cached), the file and variable then removed. */
function loadConfig(): ExtensionConfig {
  const cache = globalThis as { [CACHE]?: ExtensionConfig };
  if (cache[CACHE] !== undefined) return cache[CACHE];
  const file = process.env[EXTENSION_CONFIG_ENV];
  if (file === undefined || file === "") throw new Error(`${EXTENSION_CONFIG_ENV} is not set`);
  const config = JSON.parse(readFileSync(file, "utf8")) as ExtensionConfig;
  delete process.env[EXTENSION_CONFIG_ENV];
  rmSync(file, { force: true });
  cache[CACHE] = config;
  return config;
}

async function connect(server: ExtensionServer): Promise<McpClient> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: "agent-adaptor-pi", version: "1" });
  if ("url" in server) {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers ?? {} } }));
  } else {
    const { StdioClientTransport, getDefaultEnvironment } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    // The server's stderr is not Pi's: it could echo its own secrets into Pi's error output.
    const transport = new StdioClientTransport({ command: server.command, args: server.args ?? [], env: { ...getDefaultEnvironment(), ...(server.env ?? {}) }, stderr: "ignore" });
    await client.connect(transport);
  }
  return client as unknown as McpClient;
}

async function listAll(client: McpClient): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/** An MCP content part as Pi content: text and images as they are, anything else as text. */
function piContent(part: unknown): PiContent {
  const p = (typeof part === "object" && part !== null ? part : {}) as Record<string, unknown>;
  if (p.type === "text" && typeof p.text === "string") return { type: "text", text: p.text };
  if (p.type === "image" && typeof p.data === "string" && typeof p.mimeType === "string") return { type: "image", data: p.data, mimeType: p.mimeType };
  const resource = (typeof p.resource === "object" && p.resource !== null ? p.resource : {}) as Record<string, unknown>;
  if (typeof resource.text === "string") return { type: "text", text: resource.text };
  const uri = typeof p.uri === "string" ? p.uri : typeof resource.uri === "string" ? resource.uri : undefined;
  return { type: "text", text: uri !== undefined ? `[${String(p.type)}: ${uri}]` : `[${String(p.type)}]` };
}

/** A `tools/call` result as Pi's tool result; an error result throws (Pi's way to mark a failed call). */
export function piToolResult(result: unknown): { content: PiContent[]; details: unknown } {
  const r = (typeof result === "object" && result !== null ? result : {}) as Record<string, unknown>;
  let content = Array.isArray(r.content) ? r.content.map(piContent) : [];
  if (content.length === 0 && r.structuredContent !== undefined) content = [{ type: "text", text: JSON.stringify(r.structuredContent) }];
  if (r.isError === true) {
    const text = content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
    throw new Error(text === "" ? "the tool failed" : text);
  }
  return { content, details: r.structuredContent ?? {} };
}

/** One connected server and the Pi tools registered for it. */
class ServerTools {
  readonly #server: ExtensionServer;
  readonly #client: McpClient;
  /** Pi tool name → the MCP tool's name and its schema as registered. */
  readonly #registered = new Map<string, { tool: string; signature: string }>();
  /** Pi tool names currently offered. */
  offered = new Set<string>();

  constructor(server: ExtensionServer, client: McpClient) {
    this.#server = server;
    this.#client = client;
  }

  /** Lists the server's tools, registering the new or changed ones; returns the names offered now. */
  async sync(pi: PiExtensionApi): Promise<Set<string>> {
    const offered = new Set<string>();
    for (const tool of await listAll(this.#client)) {
      const name = piToolName(this.#server.name, tool.name);
      offered.add(name);
      const signature = JSON.stringify([tool.description ?? "", tool.inputSchema]);
      if (this.#registered.get(name)?.signature === signature) continue;
      this.#registered.set(name, { tool: tool.name, signature });
      pi.registerTool(this.#definition(name, tool));
    }
    this.offered = offered;
    return offered;
  }

  #definition(name: string, tool: ListedTool): PiToolDefinition {
    const client = this.#client;
    return {
      name,
      label: `${this.#server.name}: ${tool.name}`,
      description: tool.description ?? tool.name,
      parameters: tool.inputSchema,
      async execute(_toolCallId, params, signal) {
        const args = typeof params === "object" && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
        const options = signal === undefined ? { timeout: NO_TIMEOUT_MS } : { signal, timeout: NO_TIMEOUT_MS };
        return piToolResult(await client.callTool({ name: tool.name, arguments: args }, undefined, options));
      },
    };
  }

  close(): Promise<void> {
    return this.#client.close().catch(() => undefined);
  }
}

/** Offers exactly the servers' current tools beside the built-in ones (Pi's default set or the configured ones). */
function activate(pi: PiExtensionApi, servers: readonly ServerTools[], ours: Set<string>, builtinTools: string[] | undefined): void {
  const offered = new Set(servers.flatMap((s) => [...s.offered]));
  const others = builtinTools ?? pi.getActiveTools().filter((name) => !ours.has(name));
  for (const name of offered) ours.add(name);
  pi.setActiveTools([...new Set([...others, ...offered])]);
}

/** The extension's entry point: Pi calls it at start-up and awaits it. */
export default async function agentAdaptorExtension(pi: PiExtensionApi): Promise<void> {
  const config = loadConfig();
  const servers: ServerTools[] = [];
  try {
    for (const server of config.servers) {
      const tools = new ServerTools(server, await connect(server));
      servers.push(tools);
      await tools.sync(pi);
    }
  } catch (error) {
    await Promise.all(servers.map((s) => s.close()));
    throw error;
  }
  /** Every Pi tool name this extension has offered (withdrawn ones stay known, to be kept inactive). */
  const ours = new Set<string>();
  pi.on("session_start", async () => activate(pi, servers, ours, config.builtinTools));
  pi.on("before_agent_start", async (event) => {
    for (const server of servers) await server.sync(pi);
    activate(pi, servers, ours, config.builtinTools);
    if (config.instructions === undefined || config.instructions === "") return undefined;
    return { systemPrompt: `${event.systemPrompt}\n\n${config.instructions}` };
  });
  pi.on("session_shutdown", async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
}
