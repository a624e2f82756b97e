/**
 * Which resources an ACP agent takes, and how. ACP itself carries MCP servers (`mcpServers` on
 * every session request: stdio always, HTTP when the agent advertises it); host tools ride on that
 * as one more MCP server. Instructions and skills have no ACP surface: a preset delivers them only
 * through its agent's own mechanism (claude-agent-acp: `_meta`; codex-acp: a config override).
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
    skills: traits.skills !== undefined,
    mcp: { stdio: traits.stdioMcp !== false, http: "advertised" },
  };
}

/**
 * `_meta` for every session request (`session/new`, `/load`, `/resume`, `/fork`): the
 * instructions and the skills plugin, where the agent takes them there (claude-agent-acp).
 */
export function sessionMeta(resources: Pick<ResolvedResources, "instructions">, traits: AcpLoadQuirks, skillsPlugin?: string): Record<string, unknown> | undefined {
  const meta: Record<string, unknown> = {};
  const instructions = resources.instructions;
  // claude-agent-acp appends it to Claude Code's own system prompt (which keeps its tool guidance).
  if (instructions !== undefined && instructions !== "" && traits.instructions === "session_meta_system_prompt") meta.systemPrompt = { append: instructions };
  if (skillsPlugin !== undefined && traits.skills === "claude_plugin") meta.claudeCode = { options: { plugins: [{ type: "local", path: skillsPlugin }] } };
  return Object.keys(meta).length > 0 ? meta : undefined;
}

/** Launch arguments that carry instructions, when the agent takes them at launch. */
export function instructionArgs(resources: Pick<ResolvedResources, "instructions">, traits: AcpLoadQuirks): string[] {
  const instructions = resources.instructions;
  if (instructions === undefined || instructions === "" || traits.instructions !== "codex_developer_instructions") return [];
  return ["-c", `developer_instructions=${toml(instructions)}`];
}
