/**
 * Which resources an ACP agent takes, and how. ACP itself carries MCP servers (`mcpServers` on
 * every session request: stdio always, HTTP when the agent advertises it); host tools ride on that
 * as one more MCP server. Instructions and skills have no ACP surface: a preset delivers
 * instructions only through its agent's own mechanism, and no preset delivers skills.
 */
import type { ResolvedResources, ResourceSupport } from "../../driver/types.js";
import type { AcpLoadQuirks } from "./config.js";

const toml = (s: string): string => JSON.stringify(s);

/** The resource kinds an agent with these traits receives. */
export function acpResourceSupport(traits: AcpLoadQuirks): ResourceSupport {
  // Host tools go over HTTP where the agent advertises it, else through the endpoint's stdio bridge.
  return {
    instructions: traits.instructions !== undefined,
    hostTools: true,
    skills: false,
    mcp: { stdio: traits.stdioMcp !== false, http: "advertised" },
  };
}

/** `_meta` for every session request (`session/new`, `/load`, `/resume`, `/fork`), when the agent takes instructions there. */
export function sessionMeta(resources: Pick<ResolvedResources, "instructions">, traits: AcpLoadQuirks): Record<string, unknown> | undefined {
  const instructions = resources.instructions;
  if (instructions === undefined || instructions === "" || traits.instructions !== "session_meta_system_prompt") return undefined;
  // claude-agent-acp appends it to Claude Code's own system prompt (which keeps its tool guidance).
  return { systemPrompt: { append: instructions } };
}

/** Launch arguments that carry instructions, when the agent takes them at launch. */
export function instructionArgs(resources: Pick<ResolvedResources, "instructions">, traits: AcpLoadQuirks): string[] {
  const instructions = resources.instructions;
  if (instructions === undefined || instructions === "" || traits.instructions !== "codex_developer_instructions") return [];
  return ["-c", `developer_instructions=${toml(instructions)}`];
}
