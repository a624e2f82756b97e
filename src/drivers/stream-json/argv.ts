/**
 * The command line of one CLI process. Credentials never appear here: they travel in the child's
 * environment only, and MCP servers (with their env and header values) in a file the process owns.
 */
import type { HostToolsEndpoint, TraceContext } from "../../driver/types.js";
import type { JsonSchema, McpServerConfig, Policy, SkillRef } from "../../driver/vocabulary.js";
import type { StreamJsonDriverConfig } from "./config.js";
import type { PermissionMode, StreamJsonDialect } from "./dialect.js";

export interface LaunchSettings {
  model?: string;
  effort?: string;
  policy: Policy;
  resume?: string;
  fork?: boolean;
  /** The agent's MCP servers; none for an inspection, which must start none. */
  mcp?: readonly McpServerConfig[];
  skills?: readonly SkillRef[];
  /** The endpoint the process registers as the host-tools MCP server. */
  hostTools?: HostToolsEndpoint;
  /** An inspection: no MCP server starts, the user's own included. */
  inspection?: boolean;
  /** The run's structured-output schema: a process setting (`--json-schema`), so such a process serves only its run. */
  outputSchema?: JsonSchema;
  /** The run's trace context, passed as `TRACEPARENT` / `TRACESTATE` (Claude Code continues the trace). */
  traceContext?: TraceContext;
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

/** `resourceArgs`: the options naming the process's own directory (MCP config file, skills plugin). */
export function buildArgs(dialect: StreamJsonDialect, config: StreamJsonDriverConfig, launch: LaunchSettings, resourceArgs: readonly string[] = []): string[] {
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
  args.push(...resourceArgs);
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
