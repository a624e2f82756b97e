/**
 * The tools one run offers the model: the built-in workspace tools the config and the policy
 * allow (a read-only sandbox offers only those that never ask), then the tools of the run's MCP
 * servers (the agent's, and the host tools' loopback server).
 */
import type { Policy } from "../../driver/vocabulary.js";
import type { McpServers, McpTool } from "./mcp/servers.js";
import type { BuiltinTool } from "./tools/types.js";
import type { ToolSpec } from "./wire/types.js";

export type OfferedTool = { kind: "builtin"; tool: BuiltinTool } | { kind: "mcp"; tool: McpTool } | { kind: "task" };

/** The `task` tool: a subagent with a fresh conversation (see subagents.ts). */
export const TASK_TOOL: ToolSpec = {
  name: "task",
  description:
    "Start a subagent on a self-contained task. It gets a fresh conversation (none of this one), the same workspace tools, works on its own and returns its final answer as this call's result. Use it for independent research or work whose details need not stay in this conversation; give it everything it needs in `prompt`. Several task calls in one answer run one after another.",
  parameters: {
    type: "object",
    properties: {
      description: { type: "string", description: "A short title of the task (3 to 6 words)" },
      prompt: { type: "string", description: "The whole task: what to do, what to return, and every fact it needs" },
    },
    required: ["prompt"],
    additionalProperties: false,
  },
};

export class Toolbox {
  readonly #byName = new Map<string, OfferedTool>();
  readonly specs: ToolSpec[] = [];
  readonly mcp: McpServers | undefined;
  readonly #builtins: readonly BuiltinTool[];

  /** `task`: offer the subagent tool after the built-in ones. */
  constructor(builtins: readonly BuiltinTool[], mcp: McpServers | undefined, task = false) {
    this.mcp = mcp;
    this.#builtins = builtins;
    for (const tool of builtins) {
      this.#byName.set(tool.name, { kind: "builtin", tool });
      this.specs.push({ name: tool.name, description: tool.description, parameters: tool.parameters });
    }
    if (task) {
      this.#byName.set(TASK_TOOL.name, { kind: "task" });
      this.specs.push(TASK_TOOL);
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

  /** The same tools, with or without `task` (a subagent at the depth limit has none). */
  withTask(task: boolean): Toolbox {
    return new Toolbox(this.#builtins, this.mcp, task);
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
