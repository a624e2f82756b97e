/**
 * What one Pi process is given of the agent's resources, in a private 0700 directory the process
 * owns (removed when it exits): the skills, materialized and loaded with `--skill <dir>` (Pi's own
 * skill surface: listed in its system prompt and as `skill:<name>` commands); and, through the
 * driver's extension (`--extension`, see ./extension.ts), the instructions, the agent's loopback
 * host-tools endpoint and the agent's MCP servers. The extension's configuration (endpoint token,
 * MCP `env` and `headers` values) is a 0600 file named by a child variable, never an argument.
 */
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { materializeSkills } from "../../driver/kit/skills.js";
import type { HostToolsEndpoint, HostToolsLink, ResolvedResources } from "../../driver/types.js";
import { EXTENSION_CONFIG_ENV, type ExtensionConfig, type ExtensionServer } from "./extension.js";

/** What a process needs of its resources: arguments, child variables, the endpoint it registered. */
export interface ProcessResources {
  args: string[];
  env: Record<string, string>;
  /** The host-tools endpoint registered in this process (a standby's, bound to the run that claims it). */
  endpoint?: HostToolsEndpoint;
  /** Closes the endpoint and removes the directory. Idempotent. */
  close(): Promise<void>;
}

export interface ResourceRequest {
  resources: ResolvedResources;
  /** Opens the process's host-tools endpoint (absent: the agent has no host tools and the run no services). */
  hostTools?: Pick<HostToolsLink, "open">;
  /** `PiConfig.tools`: the built-in tools allowed (undefined: Pi's default set). */
  builtinTools?: readonly string[];
  /** For `inspect()`: skills only (listed by Pi), no extension, so no MCP server starts. */
  inspectOnly?: boolean;
}

const NONE: ProcessResources = { args: [], env: {}, close: async () => {} };

/** The extension's file: compiled beside this module in `dist`, the TypeScript source when run from source. */
export function extensionPath(): string {
  const compiled = fileURLToPath(new URL("./extension.js", import.meta.url));
  return existsSync(compiled) ? compiled : fileURLToPath(new URL("./extension.ts", import.meta.url));
}

/** Whether a process started for `request` loads the extension. */
export function needsExtension(request: ResourceRequest): boolean {
  const r = request.resources;
  return request.inspectOnly !== true && ((r.instructions !== undefined && r.instructions !== "") || r.mcp.length > 0 || request.hostTools !== undefined);
}

/** Prepares one process's resources; on failure nothing is left behind. */
export async function openProcessResources(request: ResourceRequest): Promise<ProcessResources> {
  const { skills } = request.resources;
  const extension = needsExtension(request);
  if (skills.length === 0 && !extension) return NONE;
  const dir = await mkdtemp(join(tmpdir(), "agent-adaptor-pi-run-"));
  let endpoint: HostToolsEndpoint | undefined;
  const close = once(async () => {
    await endpoint?.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  });
  try {
    await chmod(dir, 0o700);
    const args: string[] = [];
    const env: Record<string, string> = {};
    if (skills.length > 0) {
      const skillsDir = join(dir, "skills");
      await materializeSkills(skills, skillsDir);
      args.push("--skill", skillsDir);
    }
    if (extension) {
      endpoint = request.hostTools !== undefined ? await request.hostTools.open() : undefined;
      const file = join(dir, "extension.json");
      await writeFile(file, JSON.stringify(extensionConfig(request, endpoint)), { mode: 0o600 });
      args.push("--extension", extensionPath());
      env[EXTENSION_CONFIG_ENV] = file;
    }
    return endpoint === undefined ? { args, env, close } : { args, env, endpoint, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function extensionConfig(request: ResourceRequest, endpoint: HostToolsEndpoint | undefined): ExtensionConfig {
  const { instructions, mcp } = request.resources;
  const servers: ExtensionServer[] = [];
  if (endpoint !== undefined) servers.push({ name: endpoint.http.name, url: endpoint.http.url, headers: { ...endpoint.http.headers } });
  for (const server of mcp) {
    servers.push(
      "url" in server
        ? { name: server.name, url: server.url, headers: { ...(server.headers ?? {}) } }
        : { name: server.name, command: server.command, args: [...(server.args ?? [])], env: { ...(server.env ?? {}) } },
    );
  }
  const config: ExtensionConfig = { servers };
  if (instructions !== undefined && instructions !== "") config.instructions = instructions;
  if (request.builtinTools !== undefined) config.builtinTools = [...request.builtinTools];
  return config;
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
