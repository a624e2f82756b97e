/**
 * The tools one run offers the model: the built-in workspace tools the config and the policy
 * allow (a read-only sandbox offers only those that never ask), then the tools of the run's MCP
 * servers (the agent's, and the host tools' loopback server).
 */
import type { Policy } from "../../driver/vocabulary.js";
import type { ResolvedOpenAIConfig } from "./config.js";
import type { McpServers, McpTool } from "./mcp/servers.js";
import { builtinTools } from "./tools/index.js";
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
  /** Never changed after construction: a toolbox (and so this array) is shared by a driver's runs. */
  readonly specs: readonly ToolSpec[];
  readonly mcp: McpServers | undefined;
  readonly #builtins: readonly BuiltinTool[];

  /** `task`: offer the subagent tool after the built-in ones. */
  constructor(builtins: readonly BuiltinTool[], mcp: McpServers | undefined, task = false) {
    this.mcp = mcp;
    this.#builtins = builtins;
    const specs: ToolSpec[] = [];
    for (const tool of builtins) {
      this.#byName.set(tool.name, { kind: "builtin", tool });
      specs.push({ name: tool.name, description: tool.description, parameters: tool.parameters });
    }
    if (task) {
      this.#byName.set(TASK_TOOL.name, { kind: "task" });
      specs.push(TASK_TOOL);
    }
    for (const tool of mcp?.tools ?? []) {
      if (this.#byName.has(tool.exposedName)) continue;
      this.#byName.set(tool.exposedName, { kind: "mcp", tool });
      specs.push({ name: tool.exposedName, description: tool.description, parameters: tool.parameters });
    }
    this.specs = specs;
  }

  get(name: string): OfferedTool | undefined {
    return this.#byName.get(name);
  }

  /** The same tools, with or without `task` (a subagent at the depth limit has none). */
  withTask(task: boolean): Toolbox {
    return new Toolbox(this.#builtins, this.mcp, task);
  }
}

/** A driver's built-in tools and its toolbox without MCP servers, by whether the sandbox is read-only. */
interface Catalog {
  readonly all: readonly BuiltinTool[];
  readonly byAccess: Map<boolean, { builtins: BuiltinTool[]; plain: Toolbox }>;
}

/** Keyed by the driver's resolved config, which never changes after the driver is made. */
const catalogs = new WeakMap<ResolvedOpenAIConfig, Catalog>();

/**
 * The toolbox of a run: the built-in tools the config and `policy` allow, the `task` tool when
 * subagents are on, then `mcp`'s tools. Without MCP servers the same toolbox serves every run of
 * the driver under that sandbox, so tool schemas (and the wire's copy of them) are built once.
 */
export function toolboxFor(config: ResolvedOpenAIConfig, policy: Policy, mcp: McpServers | undefined): Toolbox {
  let catalog = catalogs.get(config);
  if (catalog === undefined) {
    const all = config.tools.builtin ? builtinTools({ bash: config.tools.bash, grep: config.tools.grep }) : [];
    catalogs.set(config, (catalog = { all, byAccess: new Map() }));
  }
  const task = config.subagents !== undefined;
  // The only part of the policy allowedBuiltins reads.
  const readOnly = policy.sandbox === "read-only";
  let entry = catalog.byAccess.get(readOnly);
  if (entry === undefined) {
    const builtins = allowedBuiltins(catalog.all, config.tools.only, policy);
    catalog.byAccess.set(readOnly, (entry = { builtins, plain: new Toolbox(builtins, undefined, task) }));
  }
  return mcp === undefined ? entry.plain : new Toolbox(entry.builtins, mcp, task);
}

/** The built-in tools a run may offer: `only` narrows them, a read-only sandbox drops every tool that writes or runs commands. */
export function allowedBuiltins(all: readonly BuiltinTool[], only: readonly string[] | undefined, policy: Policy): BuiltinTool[] {
  return all.filter((tool) => (only === undefined || only.includes(tool.name)) && !(policy.sandbox === "read-only" && tool.approval !== undefined));
}

/** Whether a call of a tool needing approval of this kind asks the host under `policy`. */
export function asksApproval(kind: "command" | "file_change" | undefined, policy: Policy): boolean {
  return kind !== undefined && policy.approval !== "never";
}
