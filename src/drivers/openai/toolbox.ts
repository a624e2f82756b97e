/**
 * The tools one run offers the model: the built-in workspace tools the config and the policy
 * allow (a read-only sandbox offers only those that never ask), then the tools of the run's MCP
 * servers (the agent's, and the host tools' loopback server).
 */
import type { Policy } from "../../driver/vocabulary.js";
import type { McpServers, McpTool } from "./mcp/servers.js";
import type { BuiltinTool } from "./tools/types.js";
import type { ToolSpec } from "./wire/types.js";

export type OfferedTool = { kind: "builtin"; tool: BuiltinTool } | { kind: "mcp"; tool: McpTool };

export class Toolbox {
  readonly #byName = new Map<string, OfferedTool>();
  readonly specs: ToolSpec[] = [];
  readonly mcp: McpServers | undefined;

  constructor(builtins: readonly BuiltinTool[], mcp: McpServers | undefined) {
    this.mcp = mcp;
    for (const tool of builtins) {
      this.#byName.set(tool.name, { kind: "builtin", tool });
      this.specs.push({ name: tool.name, description: tool.description, parameters: tool.parameters });
    }
    for (const tool of mcp?.tools ?? []) {
      if (this.#byName.has(tool.exposedName)) continue;
      this.#byName.set(tool.exposedName, { kind: "mcp", tool });
      this.specs.push({ name: tool.exposedName, description: tool.description, parameters: tool.parameters });
    }
  }

  get(name: string): OfferedTool | undefined {
    return this.#byName.get(name);
  }
}

/** The built-in tools a run may offer: `only` narrows them, a read-only sandbox drops every tool that writes or runs commands. */
export function allowedBuiltins(all: readonly BuiltinTool[], only: readonly string[] | undefined, policy: Policy): BuiltinTool[] {
  return all.filter((tool) => (only === undefined || only.includes(tool.name)) && !(policy.sandbox === "read-only" && tool.approval !== undefined));
}

/** Whether a call of a tool needing approval of this kind asks the host under `policy`. */
export function asksApproval(kind: "command" | "file_change" | undefined, policy: Policy): boolean {
  return kind !== undefined && policy.approval !== "never";
}
