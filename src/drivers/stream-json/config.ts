/**
 * The configuration both stream-json drivers capture at construction, its validation, and the
 * child environment it implies. Credentials reach the child only through its environment.
 */
import { createHash } from "node:crypto";
import { isAbsolute } from "node:path";
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
}

const SETTING_SOURCES = new Set<string>(["user", "project", "local"]);

/** Throws `ConfigError` for anything malformed. */
export function validateStreamJsonConfig(driver: string, config: StreamJsonDriverConfig): void {
  const fail = (message: string): never => {
    throw new ConfigError(`${driver}: ${message}`);
  };
  if (typeof config !== "object" || config === null) fail("the config must be an object");
  const optionalString = (key: "executable" | "model" | "effort" | "configDir") => {
    const value = config[key];
    if (value !== undefined && (typeof value !== "string" || value.trim() === "")) fail(`${key} must be a non-empty string`);
  };
  optionalString("executable");
  optionalString("model");
  optionalString("effort");
  optionalString("configDir");
  if (config.configDir !== undefined && !isAbsolute(config.configDir)) fail("configDir must be an absolute path");
  if (config.provider !== undefined) {
    const { baseUrl, apiKeyEnv } = config.provider ?? ({} as ProviderBinding);
    let url: URL | undefined;
    try {
      url = new URL(baseUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) fail("provider.baseUrl must be an http(s) URL");
    if (typeof apiKeyEnv !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) {
      fail("provider.apiKeyEnv must name an environment variable");
    }
  }
  if (config.env !== undefined) {
    if (typeof config.env !== "object" || config.env === null) fail("env must be an object");
    for (const [name, value] of Object.entries(config.env)) {
      if (value !== undefined && typeof value !== "string") fail(`env.${name} must be a string`);
    }
  }
  if (config.args !== undefined && (!Array.isArray(config.args) || config.args.some((a) => typeof a !== "string"))) {
    fail("args must be an array of strings");
  }
  if (config.settingSources !== undefined) {
    if (!Array.isArray(config.settingSources) || config.settingSources.some((s) => !SETTING_SOURCES.has(s))) {
      fail('settingSources must be an array of "user", "project" and "local"');
    }
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
  });
}

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 16);
}
