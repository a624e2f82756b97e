/**
 * The agent's skills on a Codex process: materialized into a 0700 directory the process owns
 * (never the workspace, never the Codex home) and added as an extra skills root
 * (`skills/extraRoots/set`), so `skills/list` and every thread's skills catalogue include them.
 * The directory is removed when the process retires (ProcessResources); one a killed host left
 * behind is swept at the next start (createOwnedDirectory).
 */
import { materializeSkills } from "../../driver/kit/skills.js";
import { createOwnedDirectory } from "../../input/process-directory.js";
import type { SkillRef } from "../../driver/vocabulary.js";
import { ProviderError } from "../../errors/index.js";
import { JsonRpcError } from "../../process/index.js";
import type { CodexConnection } from "./connection.js";
import type { SkillsExtraRootsSetParams } from "./protocol/v2/SkillsExtraRootsSetParams.js";

/** Materializes `skills` for `connection`'s process and makes Codex load them. No skills: nothing. */
export async function installSkills(connection: CodexConnection, skills: readonly SkillRef[], signal: AbortSignal): Promise<void> {
  if (skills.length === 0) return;
  const dir = await createOwnedDirectory();
  connection.resources.adoptSkillsDir(dir);
  await materializeSkills(skills, dir.path);
  const params: SkillsExtraRootsSetParams = { extraRoots: [dir.path] };
  try {
    await connection.request("skills/extraRoots/set", params, signal);
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error;
    throw new ProviderError(`codex: the agent's skills could not be registered (skills/extraRoots/set: ${error.message})`, {
      code: "provider_error",
      phase: "before_delivery",
      cause: error,
    });
  }
}
