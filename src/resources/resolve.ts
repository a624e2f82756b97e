/**
 * Resolves the construction-time resources an Agent hands its driver. `prepare()` and runs use
 * this one resolver, so a standby is keyed by exactly what a run would send. Resolving checks
 * them first (see check-mcp.ts, check-skills.ts): what no provider could be given fails here,
 * at `createAgent`, with a `ConfigError` naming the resource.
 */
import type { ResolvedResources } from "../driver/types.js";
import type { InstructionBundle, McpServerConfig, SkillRef, ToolDeclaration } from "../driver/vocabulary.js";
import { checkMcpServers } from "./check-mcp.js";
import { checkSkills } from "./check-skills.js";

/** The construction options a driver's resources come from (a subset of `AgentOptions`). */
export interface ResourceOptions {
  instructions?: string | InstructionBundle[];
  tools?: ToolDeclaration[];
  skills?: SkillRef[];
  mcp?: McpServerConfig[];
}

export function resolveResources(options: ResourceOptions): ResolvedResources {
  checkMcpServers(options.mcp ?? []);
  checkSkills(options.skills ?? []);
  const instructions = Array.isArray(options.instructions)
    ? options.instructions.map((bundle) => bundle.text).join("\n\n")
    : options.instructions;
  const resources: ResolvedResources = {
    tools: structuredClone(options.tools ?? []),
    skills: structuredClone(options.skills ?? []),
    mcp: structuredClone(options.mcp ?? []),
  };
  if (instructions !== undefined && instructions !== "") resources.instructions = instructions;
  return resources;
}
