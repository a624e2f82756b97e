/**
 * The fake provider's MCP client for the agent's host tools: a real `@modelcontextprotocol/sdk`
 * Client over Streamable HTTP against the process's endpoint, as a real CLI would connect, so
 * core's tests exercise the loopback server itself. Its calls show up as `tool.*` events of kind
 * "mcp", like a provider's MCP tool calls.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { EventSink, HostToolsEndpoint } from "../../driver/types.js";

/** One connection of one fake provider process to its endpoint, opened on the first call. */
export class FakeHostToolsClient {
  readonly #endpoint: HostToolsEndpoint;
  #client: Promise<Client> | undefined;
  #calls = 0;

  constructor(endpoint: HostToolsEndpoint) {
    this.#endpoint = endpoint;
  }

  /** Calls one tool and reports it as the provider's MCP tool call. */
  async call(step: { name: string; arguments?: Record<string, unknown> }, sink: EventSink, signal: AbortSignal): Promise<void> {
    const client = await this.#connect();
    const callId = `host_call_${++this.#calls}`;
    const server = this.#endpoint.http.name;
    await sink.emit({
      type: "tool.started",
      callId,
      kind: "mcp",
      name: step.name,
      title: `${server}.${step.name}`,
      mcp: { server, tool: step.name },
      rawInput: step.arguments ?? {},
    });
    const result = await client.callTool({ name: step.name, arguments: step.arguments ?? {} }, undefined, { signal });
    const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
    const output = content.map((part) => (part.type === "text" ? part.text ?? "" : `[${part.type}]`)).join("\n");
    await sink.emit({ type: "tool.completed", callId, status: result.isError === true ? "failed" : "completed", output });
  }

  /** The tools the endpoint lists now, reported as a `fake_notice` (their names, JSON). */
  async list(sink: EventSink): Promise<void> {
    const client = await this.#connect();
    const { tools } = await client.listTools();
    await sink.emit({ type: "notice", level: "info", code: "fake_notice", message: JSON.stringify(tools.map((tool) => tool.name)) });
  }

  async close(): Promise<void> {
    const client = await this.#client?.catch(() => undefined);
    await client?.close();
  }

  #connect(): Promise<Client> {
    this.#client ??= (async () => {
      const { url, headers } = this.#endpoint.http;
      const client = new Client({ name: "fake-provider", version: "0.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
      await client.connect(transport);
      return client;
    })();
    return this.#client;
  }
}
