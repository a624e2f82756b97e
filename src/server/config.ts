/**
 * The attach server's configuration: which agents it drives (a driver by name, its own options,
 * the agent's call defaults), where sessions and threads are stored, and how it listens. Read from
 * a JSON or TOML file with the same keys; a misspelt key is refused with the key named.
 */
import { readFile } from "node:fs/promises";
import { dirname, extname, isAbsolute, resolve } from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { ConfigError } from "../errors/index.js";
import { SERVER_DRIVER_NAMES } from "./driver-names.js";
import type { ServerConfig } from "./public-types.js";

const nonEmpty = z.string().min(1);

export const agentConfigSchema = z.strictObject({
  driver: z.enum(SERVER_DRIVER_NAMES),
  /** Must exist; required except for the `demo` driver (which makes its own). */
  workspace: nonEmpty.optional(),
  /** The driver factory's own options, passed through: each driver refuses keys it does not know. */
  options: z.record(z.string(), z.unknown()).optional(),
  /** The agent's call defaults (model, effort, policy), validated by `createAgent`. */
  defaults: z.record(z.string(), z.unknown()).optional(),
});

const serverSchema = z.strictObject({
  host: nonEmpty.optional(),
  port: z.number().int().min(0).max(65535).optional(),
  maxBodyBytes: z.number().int().positive().optional(),
  cors: z.strictObject({ origins: z.array(z.string().url()) }).optional(),
  /** Mount each agent's AG-UI endpoint at `POST /api/agents/:name/ag-ui` (needs `@ag-ui/core`). */
  agUi: z.boolean().optional(),
  /** Mount each agent's A2A server at `/api/a2a/:name` (needs `@a2a-js/sdk`). */
  a2a: z.boolean().optional(),
  /** Close a session unused this long, ms (a timer cannot wait longer than 2^31 - 1 ms). */
  idleCloseMs: z.number().int().positive().max(2 ** 31 - 1).optional(),
});

const storeSchema = z
  .strictObject({
    /** A SQLite file (created when missing) holding both the thread and the session store. */
    sqlite: nonEmpty.optional(),
    /** A `postgres://` URL; both stores keep their tables in `schema` (default `agent_adaptor`). */
    postgres: nonEmpty.optional(),
    schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/).optional(),
  })
  .refine((store) => (store.sqlite === undefined) !== (store.postgres === undefined), { message: "name exactly one of sqlite or postgres" })
  .refine((store) => store.schema === undefined || store.postgres !== undefined, { message: "schema goes with postgres" });

const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const serverConfigSchema = z.strictObject({
  server: serverSchema.optional(),
  store: storeSchema.optional(),
  agents: z
    .record(z.string().regex(AGENT_NAME, "an agent name is letters, digits, '_', '.', '-' (at most 64)"), agentConfigSchema)
    .refine((agents) => Object.keys(agents).length > 0, { message: "name at least one agent" }),
});

export type { AgentConfig, ServerConfig } from "./public-types.js";

/** `issues` of a failed parse as `path: message` lines, unknown keys named, a misspelt choice quoted. */
function describeIssues(error: z.ZodError, value: unknown): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "(top level)";
      if (issue.code === "unrecognized_keys") return `${where}: unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
      return `${where}: ${issue.message}${issue.code === "invalid_value" ? given(value, issue.path) : ""}`;
    })
    .join("; ");
}

/** `, got "codx"` for a short string that is not one of the choices (a choice is never a secret). */
function given(value: unknown, path: readonly PropertyKey[]): string {
  let at = value;
  for (const key of path) at = typeof at === "object" && at !== null ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return typeof at === "string" && at.length <= 64 ? `, got ${JSON.stringify(at)}` : "";
}

/**
 * Validate a configuration object (as parsed from a file, or built in code). `baseDir` resolves
 * relative workspace and SQLite paths (a file's folder); without it they must be absolute.
 */
export function parseServerConfig(value: unknown, baseDir?: string): ServerConfig {
  const parsed = serverConfigSchema.safeParse(value);
  if (!parsed.success) throw new ConfigError(`invalid server configuration: ${describeIssues(parsed.error, value)}`);
  const config = parsed.data;
  const absolute = (path: string, what: string): string => {
    if (isAbsolute(path)) return path;
    if (baseDir === undefined) throw new ConfigError(`invalid server configuration: ${what} must be an absolute path`);
    return resolve(baseDir, path);
  };
  for (const [name, agent] of Object.entries(config.agents)) {
    if (agent.workspace !== undefined) agent.workspace = absolute(agent.workspace, `agents.${name}.workspace`);
    else if (agent.driver !== "demo") throw new ConfigError(`invalid server configuration: agents.${name}.workspace is required`);
  }
  if (config.store?.sqlite !== undefined) config.store.sqlite = absolute(config.store.sqlite, "store.sqlite");
  return config;
}

/**
 * Read a configuration file: TOML when it ends in `.toml`, JSON otherwise. A missing or unreadable
 * file, bad syntax or an unknown key is a `ConfigError` (`config_invalid`).
 *
 * @example
 * ```ts
 * const config = await loadServerConfig("./agent-adaptor.toml");
 * await using server = await createAttachServer({ config });
 * ```
 */
export async function loadServerConfig(path: string): Promise<ServerConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(code === "ENOENT" ? "the server configuration file does not exist" : "the server configuration file cannot be read");
  }
  const toml = extname(path).toLowerCase() === ".toml";
  let value: unknown;
  try {
    value = toml ? parseToml(text) : JSON.parse(text);
  } catch (error) {
    // Only the position: a parser's message may quote the file's text, which can hold a secret.
    const where = error instanceof TomlError ? ` (line ${error.line}, column ${error.column})` : "";
    throw new ConfigError(`the server configuration file is not valid ${toml ? "TOML" : "JSON"}${where}`);
  }
  return parseServerConfig(value, dirname(resolve(path)));
}
