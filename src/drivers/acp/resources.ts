/**
 * Which resources an ACP agent takes, and how. ACP itself carries MCP servers (`mcpServers` on
 * every session request: stdio always, HTTP when the agent advertises it); host tools ride on that
 * as one more MCP server. Instructions and skills have no ACP surface: a preset delivers them only
 * through its agent's own mechanism (claude-agent-acp: `_meta`; codex-acp: a config override).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

/** Launch environment carrying instructions, and how to remove what it names once the process is gone. */
export interface InstructionEnv {
  env: Record<string, string>;
  remove(): Promise<void>;
}

/**
 * Copilot CLI reads `*.instructions.md` files (frontmatter `applyTo`) from the directories in
 * `COPILOT_CUSTOM_INSTRUCTIONS_DIRS`: one such file in a fresh 0700 directory outside the workspace
 * and the user's config. Undefined when the preset takes instructions otherwise, or there are none.
 */
export async function instructionEnv(resources: Pick<ResolvedResources, "instructions">, traits: AcpLoadQuirks): Promise<InstructionEnv | undefined> {
  const instructions = resources.instructions;
  if (instructions === undefined || instructions === "" || traits.instructions !== "copilot_instructions_dir") return undefined;
  const dir = await mkdtemp(join(tmpdir(), "agent-adaptor-acp-"));
  const remove = () => rm(dir, { recursive: true, force: true }).catch(() => undefined);
  try {
    await writeFile(join(dir, "agent.instructions.md"), `---\napplyTo: "**"\n---\n${instructions}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    await remove();
    throw error;
  }
  return { env: { COPILOT_CUSTOM_INSTRUCTIONS_DIRS: dir }, remove };
}
