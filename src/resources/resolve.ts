/**
 * Resolves the construction-time resources an Agent hands its driver. `prepare()` and runs use
 * this one resolver, so a standby is keyed by exactly what a run would send.
 */
import type { AgentOptions } from "../agent/options.js";
import type { ResolvedResources } from "../driver/types.js";

export function resolveResources(options: AgentOptions): ResolvedResources {
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
