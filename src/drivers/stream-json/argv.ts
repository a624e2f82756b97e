/**
 * The command line of one CLI process. Credentials never appear here: they travel in the child's
 * environment only.
 */
import type { JsonSchema, McpServerConfig, Policy } from "../../driver/vocabulary.js";
import type { StreamJsonDriverConfig } from "./config.js";
import type { PermissionMode, StreamJsonDialect } from "./dialect.js";

export interface LaunchSettings {
  model?: string;
  effort?: string;
  policy: Policy;
  resume?: string;
  fork?: boolean;
  mcp?: readonly McpServerConfig[];
  /** The run's structured-output schema: a process setting (`--json-schema`), so such a process serves only its run. */
  outputSchema?: JsonSchema;
}

/** What runs: a native binary directly, a JavaScript entry under this Node. */
export function commandFor(executable: string): { command: string; prefix: string[] } {
  return /\.(?:c|m)?js$/i.test(executable) ? { command: process.execPath, prefix: [executable] } : { command: executable, prefix: [] };
}

/**
 * The policy's permission mode. Nothing is ever bypassed: prompts go to the host (`default`), and
 * where the policy allows no prompt (`approval: "never"`) or no writes (`read-only`), whatever
 * would prompt is denied (`dontAsk`).
 */
export function permissionMode(policy: Policy): PermissionMode {
  return policy.approval === "never" || policy.sandbox === "read-only" ? "dontAsk" : "default";
}

export function buildArgs(dialect: StreamJsonDialect, config: StreamJsonDriverConfig, launch: LaunchSettings): string[] {
  const args = [...dialect.protocolArgs, "--include-partial-messages", ...dialect.permissionArgs(permissionMode(launch.policy))];
  const model = launch.model ?? config.model;
  const effort = launch.effort ?? config.effort;
  if (model !== undefined) args.push("--model", model);
  if (effort !== undefined) args.push("--effort", effort);
  if (config.settingSources !== undefined) args.push(...dialect.settingSourcesArgs(config.settingSources));
  if (launch.resume !== undefined) {
    args.push("--resume", launch.resume);
    if (launch.fork) args.push("--fork-session");
  }
  const servers = mcpConfig(launch.mcp ?? []);
  if (servers !== undefined) args.push("--mcp-config", servers);
  if (launch.outputSchema !== undefined) args.push("--json-schema", jsonSchemaArg(launch.outputSchema));
  args.push(...(config.args ?? []));
  return args;
}

/**
 * `--json-schema`: the CLI compiles it with its own draft-07 validator, which refuses any other
 * `$schema` URI (e.g. zod's 2020-12), so the declaration is left out; the keywords stay as given.
 */
function jsonSchemaArg(schema: JsonSchema): string {
  const { $schema: _declared, ...rest } = schema;
  return JSON.stringify(rest);
}

/**
 * `--mcp-config` JSON for the agent's MCP servers. A server carrying `env` or `headers` (which may
 * hold credentials) is refused by `mcpProblems` instead of being written to the command line.
 */
function mcpConfig(servers: readonly McpServerConfig[]): string | undefined {
  if (servers.length === 0) return undefined;
  const entries: Record<string, unknown> = {};
  for (const server of servers) {
    entries[server.name] = "command" in server ? { type: "stdio", command: server.command, args: server.args ?? [] } : { type: "http", url: server.url };
  }
  return JSON.stringify({ mcpServers: entries });
}

/** Names of MCP servers the command line cannot carry safely. */
export function mcpProblems(servers: readonly McpServerConfig[]): string[] {
  return servers
    .filter((s) => ("env" in s && s.env && Object.keys(s.env).length > 0) || ("headers" in s && s.headers && Object.keys(s.headers).length > 0))
    .map((s) => s.name);
}
