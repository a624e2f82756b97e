/**
 * The run's MCP servers, with the driver as the MCP client (`@modelcontextprotocol/sdk`): the
 * agent's servers (stdio ones started for the run, HTTP ones connected over Streamable HTTP) and
 * the agent's loopback host-tools server. Their tools are offered to the model as
 * `mcp__<server>__<tool>`; every server is closed (stdio ones stopped and reaped) when the run ends.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JsonSchema, McpServerConfig } from "../../../driver/vocabulary.js";
import { redactThenClip } from "../../../redact/clip.js";
import type { Redactor } from "../../../redact/redact.js";
import type { ProcessHandle } from "../../../process/index.js";
import { ProcessStdioTransport } from "./stdio-transport.js";

/** One tool of a connected server, as offered to the model. */
export interface McpTool {
  /** The name the model calls (`mcp__<server>__<tool>`, bounded to the API's 64 characters). */
  exposedName: string;
  server: string;
  tool: string;
  description: string;
  parameters: JsonSchema;
}

/** What a call returned: its text, and whether the server flagged it as an error. */
export interface McpCallResult {
  output: string;
  isError: boolean;
  /** A cut `output` for events, redacted before its cut (see `ToolOutcome.published`). */
  published?: string;
}

/** Where stdio servers run, how their stderr is redacted, and who counts their processes. */
export interface McpOpenOptions {
  cwd: string;
  redactor: Redactor;
  onSpawn?: (child: ProcessHandle) => void;
}

interface Connected {
  name: string;
  client: Client;
  transport: Transport;
}

const VERSION = "1";
/** Longest tool result handed to the model, in characters. */
const MAX_RESULT_CHARS = 100_000;

function exposedName(server: string, tool: string, taken: Set<string>): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_");
  let name = `mcp__${clean(server)}__${clean(tool)}`.slice(0, 64);
  for (let n = 2; taken.has(name); n++) name = `${name.slice(0, 60)}_${n}`;
  taken.add(name);
  return name;
}

/**
 * The text of a `tools/call` result's content (images and resources named, not inlined), cut to
 * what the model is handed; with `redact`, a cut one also comes redacted before its cut, for events.
 */
export function resultText(content: unknown, structured: unknown, redact?: (text: string) => string): McpCallResult {
  const parts = Array.isArray(content) ? content : [];
  const texts = parts.map((p: { type?: unknown; text?: unknown; resource?: { uri?: unknown; text?: unknown } }) => {
    if (p.type === "text" && typeof p.text === "string") return p.text;
    if (p.type === "resource" && typeof p.resource?.text === "string") return p.resource.text;
    if (p.type === "resource_link" || p.type === "resource") return `[resource ${String((p as { uri?: unknown }).uri ?? p.resource?.uri ?? "")}]`;
    return `[${String(p.type)} content]`;
  });
  let text = texts.join("\n");
  if (text === "" && structured !== undefined) text = JSON.stringify(structured);
  if (text.length <= MAX_RESULT_CHARS) return { output: text, isError: false };
  const note = `\n[… result cut at ${MAX_RESULT_CHARS} characters]`;
  const result: McpCallResult = { output: `${text.slice(0, MAX_RESULT_CHARS)}${note}`, isError: false };
  if (redact !== undefined) result.published = `${redactThenClip(text, redact, MAX_RESULT_CHARS, "")}${note}`;
  return result;
}

/** The MCP servers of one run. */
export class McpServers {
  readonly #connected: Connected[] = [];
  readonly #tools = new Map<string, { server: Connected; tool: string }>();
  readonly tools: McpTool[] = [];
  readonly #taken = new Set<string>();

  /** Servers that could not be started or listed, with why. */
  readonly failures: { server: string; message: string }[] = [];

  /**
   * Connects every server and lists its tools. A server that fails is closed and reported in
   * `failures` (the run then fails before delivery rather than going on without it); a cancel closes all.
   */
  static async open(servers: readonly McpServerConfig[], options: McpOpenOptions, signal: AbortSignal): Promise<McpServers> {
    const set = new McpServers();
    try {
      await Promise.all(servers.map((config) => set.#connect(config, options, signal)));
      signal.throwIfAborted();
      return set;
    } catch (error) {
      await set.close();
      throw error;
    }
  }

  async #connect(config: McpServerConfig, options: McpOpenOptions, signal: AbortSignal): Promise<void> {
    const { cwd, redactor, onSpawn } = options;
    const transport: Transport =
      "command" in config
        ? new ProcessStdioTransport({ command: config.command, args: config.args ?? [], env: config.env ?? {}, cwd, redactor, ...(onSpawn ? { onSpawn } : {}) })
        : new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { ...(config.headers ?? {}) } } });
    const client = new Client({ name: "agent-adaptor-openai", version: VERSION });
    const connected: Connected = { name: config.name, client, transport };
    this.#connected.push(connected);
    try {
      await client.connect(transport, { signal });
      const listed = await client.listTools(undefined, { signal });
      for (const tool of listed.tools) {
        const name = exposedName(config.name, tool.name, this.#taken);
        this.#tools.set(name, { server: connected, tool: tool.name });
        this.tools.push({ exposedName: name, server: config.name, tool: tool.name, description: tool.description ?? "", parameters: tool.inputSchema as JsonSchema });
      }
    } catch (cause) {
      signal.throwIfAborted();
      this.#connected.splice(this.#connected.indexOf(connected), 1);
      await client.close().catch(() => transport.close().catch(() => {}));
      this.failures.push({ server: config.name, message: redactor.redactText(cause instanceof Error ? cause.message : String(cause)).slice(0, 300) });
    }
  }

  /** The server tool behind an exposed name, if it is one. */
  lookup(exposed: string): McpTool | undefined {
    return this.tools.find((t) => t.exposedName === exposed);
  }

  /**
   * Calls one tool; the signal cancels the request (the server is told with `notifications/cancelled`).
   * `redact`, the driver's, makes the `published` copy of a cut result.
   */
  async call(exposed: string, args: Record<string, unknown>, signal: AbortSignal, redact?: (text: string) => string): Promise<McpCallResult> {
    const entry = this.#tools.get(exposed);
    if (entry === undefined) return { output: `unknown tool ${exposed}`, isError: true };
    const result = await entry.server.client.callTool({ name: entry.tool, arguments: args }, undefined, { signal, timeout: 24 * 3600_000 });
    return { ...resultText(result.content, result.structuredContent, redact), isError: result.isError === true };
  }

  /** Closes every connection; stdio servers are stopped with their process group and reaped. */
  async close(): Promise<void> {
    const all = this.#connected.splice(0);
    await Promise.all(all.map((c) => c.client.close().catch(() => c.transport.close().catch(() => {}))));
  }
}
