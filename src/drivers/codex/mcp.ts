/**
 * The agent's MCP servers (and the endpoint of its host-tools server) as Codex thread config.
 *
 * They travel in the `config` overrides of `thread/start`, `thread/resume` and `thread/fork`,
 * JSON-RPC over the child's stdin, never on its command line: `env` and header values are
 * credentials, and a command line is readable by every local user. Codex starts a thread's MCP
 * servers when it starts (or loads) the thread, with its effective config, so these overrides
 * reach exactly the thread they are sent with. Dotted keys (`mcp_servers.<name>`) add each server
 * beside the ones Codex's own config declares instead of replacing the whole table.
 */
import type { HostToolsEndpoint } from "../../driver/types.js";
import type { McpServerConfig, Policy } from "../../driver/vocabulary.js";
import type { JsonValue } from "./protocol/serde_json/JsonValue.js";

/**
 * One server as Codex's `mcp_servers.<name>` table. Under approval `never` its tools run without
 * asking (`default_tools_approval_mode = "approve"`), as commands do: Codex would otherwise
 * refuse every tool call that is not annotated read-only, since it may not ask.
 */
function serverTable(server: McpServerConfig, approval: Policy["approval"]): { [key: string]: JsonValue } {
  const table: { [key: string]: JsonValue } =
    "command" in server ? { command: server.command, args: server.args ?? [] } : { url: server.url };
  if ("command" in server && server.env !== undefined && Object.keys(server.env).length > 0) table.env = { ...server.env };
  if ("url" in server && server.headers !== undefined && Object.keys(server.headers).length > 0) table.http_headers = { ...server.headers };
  if (approval === "never") table.default_tools_approval_mode = "approve";
  return table;
}

/**
 * Thread config declaring `servers` and, when the process has one, the host-tools endpoint as a
 * streamable HTTP MCP server (its bearer token in `http_headers`).
 */
export function mcpThreadConfig(
  servers: readonly McpServerConfig[],
  hostTools: HostToolsEndpoint | undefined,
  approval: Policy["approval"],
): Record<string, JsonValue> {
  const config: Record<string, JsonValue> = {};
  for (const server of servers) config[`mcp_servers.${server.name}`] = serverTable(server, approval);
  if (hostTools !== undefined) {
    const { name, url, headers } = hostTools.http;
    config[`mcp_servers.${name}`] = serverTable({ name, url, headers }, approval);
  }
  return config;
}
