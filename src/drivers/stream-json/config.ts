/**
 * The configuration both stream-json drivers capture at construction, its validation, and the
 * child environment it implies. Credentials reach the child only through its environment.
 */
import { createHash } from "node:crypto";
import { isAbsolute } from "node:path";
import { z } from "zod";
import { initializeTimeoutMsSchema } from "../../driver/initialize-timeout.js";
import { compatibleArgs, compatibleEnv } from "../../driver/kit/compatibility.js";
import type { JsonSchema, Policy } from "../../driver/vocabulary.js";
import { childEnvSchema, envName, httpUrl, nonEmptyString, parseOrThrow } from "../../driver/validate-schema.js";
import { ConfigError } from "../../errors/index.js";

/** Which settings files the CLI loads. `[]` loads none (isolation). */
export type SettingSource = "user" | "project" | "local";

/** A model endpoint the CLI talks to instead of its vendor's default. */
export interface ProviderBinding {
  /** Base URL of the endpoint, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Name of the host environment variable that holds the API key (never the key itself). */
  apiKeyEnv: string;
}

/** Options shared by `claude()` and `codebuddy()`. */
export interface StreamJsonDriverConfig {
  /** Path of the CLI (a native binary, or a `.js`/`.mjs`/`.cjs` entry run with this Node). Default: see each driver. */
  executable?: string;
  /** Default model (a per-call `model` wins). Passed through unchanged. */
  model?: string;
  /** Default reasoning effort (a per-call `effort` wins). */
  effort?: string;
  /** The CLI's config/state directory (`CLAUDE_CONFIG_DIR` / `CODEBUDDY_CONFIG_DIR`). Absolute. */
  configDir?: string;
  /** Point the CLI at another endpoint; the key is read from `apiKeyEnv` and given to the child's environment only. */
  provider?: ProviderBinding;
  /** Extra variables for the child (they win over everything the driver sets). `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** Extra arguments appended to the CLI's command line. */
  args?: string[];
  /** Settings files the CLI loads; omitted = the CLI's default. */
  settingSources?: SettingSource[];
  /** How long the CLI may take to answer `initialize`, in ms. Default 60 000; 0 = no limit. */
  initializeTimeoutMs?: number;
  /**
   * Also load the MCP servers configured in the user's and the project's CLI settings. Default
   * false: the CLI runs with `--strict-mcp-config`, so it sees only the agent's `mcp` servers and
   * its host tools.
   */
  userMcpServers?: boolean;
}

const streamJsonConfigSchema = z.strictObject({
  executable: nonEmptyString.optional(),
  model: nonEmptyString.optional(),
  effort: nonEmptyString.optional(),
  configDir: z.string().refine(isAbsolute, "expected an absolute path").optional(),
  provider: z.strictObject({ baseUrl: httpUrl, apiKeyEnv: envName } satisfies Record<keyof ProviderBinding, z.ZodType>).optional(),
  env: childEnvSchema.optional(),
  args: z.array(z.string()).optional(),
  settingSources: z.array(z.enum(["user", "project", "local"] satisfies SettingSource[])).optional(),
  initializeTimeoutMs: initializeTimeoutMsSchema.optional(),
  userMcpServers: z.boolean().optional(),
} satisfies Record<keyof StreamJsonDriverConfig, z.ZodType>);

/** The declared shape of {@link StreamJsonDriverConfig}, for the descriptor. */
export const STREAM_JSON_CONFIG_SCHEMA: JsonSchema = z.toJSONSchema(streamJsonConfigSchema, { io: "input", unrepresentable: "any" });

/** Throws `ConfigError` naming the bad field for anything malformed or unknown. */
export function validateStreamJsonConfig(driver: string, config: StreamJsonDriverConfig): void {
  parseOrThrow(streamJsonConfigSchema, config, `${driver}: `);
}

/**
 * Refuses a policy the CLI cannot honour rather than widening it. Sandbox and approval map to a
 * permission mode that is never wider than asked (see `permissionMode`); the network, however,
 * has no switch: its tools (web fetch, shell) stay available.
 */
export function validateStreamJsonPolicy(driver: string, policy: Policy): void {
  if (policy.network === false) {
    throw new ConfigError(`${driver}: policy.network false cannot be honoured (the CLI has no switch that withholds the network)`);
  }
}

/** The API key the provider binding names, from the driver's `env` or the host's environment. */
export function providerKey(config: StreamJsonDriverConfig): string | undefined {
  const name = config.provider?.apiKeyEnv;
  if (name === undefined) return undefined;
  const value = config.env?.[name] ?? process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * The settings a stored thread depends on (see `Driver.compatibility`): the settings files the
 * CLI loads (they add instructions, hooks and permissions), the user's MCP servers when loaded, extra arguments (endpoints masked)
 * and the child variables that are not credentials, endpoints or locations. Left out: the
 * executable and config directory (they only locate the CLI and its sessions), the provider
 * binding (an endpoint and the name of its key variable), `initializeTimeoutMs`, and the model and
 * effort (core's `model`/`effort`).
 */
export function configCompatibility(config: StreamJsonDriverConfig): Record<string, string> {
  const out: Record<string, string> = {};
  if (config.settingSources !== undefined) out.settingSources = config.settingSources.length === 0 ? "(none)" : config.settingSources.join(", ");
  if (config.userMcpServers === true) out.userMcpServers = "loaded";
  const args = compatibleArgs(config.args);
  if (args !== undefined) out.args = args;
  const key = providerKey(config);
  return { ...out, ...compatibleEnv(config.env, [config.provider?.apiKeyEnv], key === undefined ? [] : [key]) };
}

/**
 * A stable identity of everything in the config that changes how the CLI behaves. Secret
 * values never enter it in clear: `env` values are hashed.
 */
export function configFingerprint(driver: string, executable: string, config: StreamJsonDriverConfig): string {
  const env = Object.entries(config.env ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => [name, value === undefined ? null : sha256(value)]);
  return JSON.stringify({
    driver,
    executable,
    model: config.model ?? null,
    effort: config.effort ?? null,
    configDir: config.configDir ?? null,
    provider: config.provider ? { baseUrl: config.provider.baseUrl, apiKeyEnv: config.provider.apiKeyEnv } : null,
    env,
    args: config.args ?? [],
    settingSources: config.settingSources ?? null,
    // Only when set: fingerprints of configs without it stay as they were.
    ...(config.userMcpServers === true ? { userMcpServers: true } : {}),
  });
}

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 16);
}
