/**
 * Skills for claude-agent-acp: a Claude Code plugin holding the agent's skills, in a 0700 directory
 * the agent process owns (outside the workspace and the user's config), named to the agent through
 * `_meta.claudeCode.options.plugins` on the session request, and removed when the process retires.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { materializeSkills } from "../../driver/kit/skills.js";
import type { SkillRef } from "../../driver/vocabulary.js";

/** The plugin's name: Claude Code lists its skills as `agent:<skill>` and resolves the bare name too. */
export const ACP_SKILLS_PLUGIN_NAME = "agent";

/** A written plugin and how to remove it. */
export interface SkillsPlugin {
  /** The plugin's root (holding `.claude-plugin/plugin.json` and `skills/`). */
  readonly path: string;
  /** Removes the whole directory. Idempotent; never rejects. */
  remove(): Promise<void>;
}

/** Writes the skills as a plugin in a fresh 0700 directory; nothing is left behind on failure. */
export async function writeSkillsPlugin(skills: readonly SkillRef[]): Promise<SkillsPlugin> {
  // mkdtemp creates the directory 0700, readable by this user only.
  const dir = await mkdtemp(join(tmpdir(), "agent-adaptor-acp-"));
  let removing: Promise<void> | undefined;
  const remove = () => (removing ??= rm(dir, { recursive: true, force: true }).catch(() => undefined));
  try {
    const plugin = join(dir, "plugin");
    await mkdir(join(plugin, ".claude-plugin"), { recursive: true, mode: 0o700 });
    const manifest = JSON.stringify({ name: ACP_SKILLS_PLUGIN_NAME, description: "Skills the agent was configured with" });
    await writeFile(join(plugin, ".claude-plugin", "plugin.json"), manifest, { mode: 0o600, flag: "wx" });
    await materializeSkills(skills, join(plugin, "skills"));
    return { path: plugin, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
