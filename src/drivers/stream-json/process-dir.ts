/**
 * The directory one CLI process owns: its MCP config file (the agent's servers and the host-tools
 * endpoint, with their env and header values, which must never reach the command line) and a
 * plugin holding the agent's skills. The directory is 0700 and its files 0600, it lives outside
 * the workspace and the user's config, and it is removed (and the endpoint closed) when the
 * process retires, however it ends; one a killed host left behind is swept at the next start
 * (createOwnedDirectory).
 */
import { writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { HostToolsEndpoint } from "../../driver/types.js";
import { createOwnedDirectory, type OwnedDirectory } from "../../input/process-directory.js";
import { materializeSkills } from "../../driver/kit/skills.js";
import type { McpServerConfig, SkillRef } from "../../driver/vocabulary.js";

/**
 * The plugin the agent's skills are loaded from. Both CLIs list a plugin's skills as
 * `<plugin>:<skill>` and resolve the bare skill name too.
 */
export const SKILLS_PLUGIN_NAME = "agent";

/** What one process is given besides its command line. */
export interface ProcessResourcesInput {
  mcp: readonly McpServerConfig[];
  skills: readonly SkillRef[];
  /** The host-tools endpoint the process registers as an HTTP MCP server; closed with the directory. */
  hostTools?: HostToolsEndpoint;
  /** Keep the user's own MCP servers (no `--strict-mcp-config`). */
  userMcpServers: boolean;
}

/** The directory and the arguments that point the CLI at it. */
export interface ProcessResources {
  /** Absent when the process needs no file at all. */
  readonly dir: string | undefined;
  readonly args: readonly string[];
  readonly hostTools: HostToolsEndpoint | undefined;
  /** Closes the endpoint and removes the directory. Idempotent; never rejects. */
  dispose(): Promise<void>;
}

const FILE_MODE = 0o600;

/** Writes what the process needs; on failure, nothing is left behind (the endpoint is closed too). */
export async function createProcessResources(input: ProcessResourcesInput): Promise<ProcessResources> {
  const servers = mcpEntries(input.mcp, input.hostTools);
  const needsDir = servers !== undefined || input.skills.length > 0;
  const owned = needsDir ? await createOwnedDirectory().catch(failWith(input.hostTools)) : undefined;
  const dir = owned?.path;
  const resources = disposable(owned, input.hostTools);
  try {
    const args: string[] = [];
    if (dir !== undefined && servers !== undefined) {
      const file = join(dir, "mcp.json");
      await writeFile(file, JSON.stringify({ mcpServers: servers }), { mode: FILE_MODE, flag: "wx" });
      args.push(`--mcp-config=${file}`);
    }
    if (!input.userMcpServers) args.push("--strict-mcp-config");
    if (dir !== undefined && input.skills.length > 0) args.push(`--plugin-dir=${await writeSkillsPlugin(dir, input.skills)}`);
    return { ...resources, args };
  } catch (error) {
    await resources.dispose();
    throw error;
  }
}

/** The `mcpServers` entries: the agent's servers and the host-tools endpoint; undefined when none. */
function mcpEntries(servers: readonly McpServerConfig[], endpoint: HostToolsEndpoint | undefined): Record<string, unknown> | undefined {
  if (servers.length === 0 && endpoint === undefined) return undefined;
  const entries: Record<string, unknown> = {};
  for (const server of servers) {
    entries[server.name] =
      "command" in server
        ? { type: "stdio", command: server.command, args: server.args ?? [], ...(server.env ? { env: server.env } : {}) }
        : { type: "http", url: server.url, ...(server.headers ? { headers: server.headers } : {}) };
  }
  if (endpoint !== undefined) entries[endpoint.http.name] = { type: "http", url: endpoint.http.url, headers: endpoint.http.headers };
  return entries;
}

/** A plugin directory with a manifest for each CLI and the skills under `skills/`; returns its path. */
async function writeSkillsPlugin(dir: string, skills: readonly SkillRef[]): Promise<string> {
  const plugin = join(dir, "plugin");
  const manifest = JSON.stringify({ name: SKILLS_PLUGIN_NAME, description: "Skills the agent was configured with" });
  for (const manifestDir of [".claude-plugin", ".codebuddy-plugin"]) {
    await mkdir(join(plugin, manifestDir), { recursive: true, mode: 0o700 });
    await writeFile(join(plugin, manifestDir, "plugin.json"), manifest, { mode: FILE_MODE, flag: "wx" });
  }
  await materializeSkills(skills, join(plugin, "skills"));
  return plugin;
}

function disposable(owned: OwnedDirectory | undefined, endpoint: HostToolsEndpoint | undefined): Omit<ProcessResources, "args"> {
  let disposed: Promise<void> | undefined;
  const dispose = () => (disposed ??= Promise.all([endpoint?.close().catch(() => undefined), owned?.remove()]).then(() => undefined));
  return { dir: owned?.path, hostTools: endpoint, dispose };
}

/** Closes the endpoint when the directory could not even be made, then rethrows. */
function failWith(endpoint: HostToolsEndpoint | undefined): (error: unknown) => Promise<never> {
  return async (error) => {
    await endpoint?.close().catch(() => undefined);
    throw error;
  };
}
