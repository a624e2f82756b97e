/**
 * The Codex driver's configuration: its declared shape, validation, and how it becomes
 * `codex app-server` arguments and a child environment. Everything here is captured once, when
 * `codex(config)` is called.
 */
import { createHash } from "node:crypto";
import { isAbsolute, relative, resolve } from "node:path";
import { tmpdir } from "node:os";

import { z } from "zod";
import type { JsonSchema, Policy } from "../../driver/vocabulary.js";
import { canonicalJson } from "../../driver/signature.js";
import { compatibleArgs, compatibleEnv } from "../../driver/kit/compatibility.js";
import { DEFAULT_INITIALIZE_TIMEOUT_MS, initializeTimeoutMsSchema } from "../../driver/initialize-timeout.js";
import { childEnvSchema, envName, httpUrl, nonEmptyString, parseOrThrow, stringRecord } from "../../driver/validate-schema.js";
import { ConfigError } from "../../errors/index.js";

/** A model provider Codex should call instead of its default (`model_providers.<id>` in Codex's config). */
export interface CodexProviderConfig {
  /** Provider id, e.g. `"local"`. Letters, digits, `_` and `-`. */
  id: string;
  /** Base URL of the provider's OpenAI-compatible API, including `/v1` where the API has it. */
  baseUrl: string;
  /** The only wire API current Codex speaks to custom providers. */
  wireApi: "responses";
  /** Display name (default: the id). */
  name?: string;
  /** Name of the environment variable holding the API key; it is passed through to the child. */
  apiKeyEnv?: string;
  /** Static HTTP headers sent with every request to the provider. */
  headers?: Record<string, string>;
  /** Retries of one HTTP request (Codex's own default is several, with backoff). */
  requestMaxRetries?: number;
  /** Reconnects of a dropped response stream. */
  streamMaxRetries?: number;
  /** Idle time after which a silent response stream counts as dropped. */
  streamIdleTimeoutMs?: number;
}

/** Configuration of {@link codex}. */
export interface CodexConfig {
  /**
   * The Codex executable. Default: the native binary of the installed `@openai/codex` package
   * (resolved through its platform package), else `codex` on `PATH`.
   */
  executable?: string;
  /** Default model (a per-call `model` wins). */
  model?: string;
  /** Default reasoning effort (a per-call `effort` wins). */
  effort?: string;
  /**
   * CODEX_HOME. Default: the user's normal Codex home (`$CODEX_HOME` or `~/.codex`), so a real
   * login works. An isolated home should live outside the temp dir (see the driver docs).
   */
  home?: string;
  /** Point Codex at a custom model provider. */
  provider?: CodexProviderConfig;
  /** Opt into Codex's experimental API (`capabilities.experimentalApi`). */
  experimental?: boolean;
  /** Explicit environment variables for the child; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** Extra arguments after `app-server`, e.g. `["--disable", "plugins"]`. */
  args?: string[];
  /** How long app-server may take to answer `initialize`, in ms. Default 60 000; 0 = no limit. */
  initializeTimeoutMs?: number;
}

/** The captured, validated configuration. */
export interface ResolvedCodexConfig {
  executable?: string;
  model?: string;
  effort?: string;
  /** Absolute CODEX_HOME, or undefined for the user's default. */
  home?: string;
  provider?: CodexProviderConfig;
  experimental: boolean;
  env: Record<string, string | undefined>;
  args: string[];
  initializeTimeoutMs: number;
}

/** Parent variables a Codex child needs beyond the default allowlist (auth, proxies, CAs). */
export const CODEX_INHERITED_ENV: readonly string[] = [
  "CODEX_HOME",
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
  "OPENAI_BASE_URL",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "all_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "CODEX_CA_CERTIFICATE",
];

const providerSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/, "expected letters, digits, _ or -"),
  baseUrl: httpUrl,
  wireApi: z.literal("responses", 'expected "responses" (current Codex speaks no other wire API)'),
  name: nonEmptyString.optional(),
  apiKeyEnv: envName.optional(),
  headers: stringRecord.optional(),
  requestMaxRetries: z.number().int().min(0).optional(),
  streamMaxRetries: z.number().int().min(0).optional(),
  streamIdleTimeoutMs: z.number().int().min(1).optional(),
} satisfies Record<keyof CodexProviderConfig, z.ZodType>);

const codexConfigSchema = z.strictObject({
  executable: nonEmptyString.optional(),
  model: nonEmptyString.optional(),
  effort: nonEmptyString.optional(),
  home: nonEmptyString.optional(),
  provider: providerSchema.optional(),
  experimental: z.boolean().optional(),
  env: childEnvSchema.optional(),
  args: z.array(z.string()).optional(),
  initializeTimeoutMs: initializeTimeoutMsSchema.optional(),
} satisfies Record<keyof CodexConfig, z.ZodType>);

/** The declared shape of {@link CodexConfig}, for the descriptor. */
export const CODEX_CONFIG_SCHEMA: JsonSchema = z.toJSONSchema(codexConfigSchema, { io: "input", unrepresentable: "any" });

/** Validates and copies a config. Throws `ConfigError` (`config_invalid`) naming the bad field. */
export function resolveCodexConfig(config: unknown): ResolvedCodexConfig {
  const c = parseOrThrow(codexConfigSchema, config ?? {}, "codex: ");
  const out: ResolvedCodexConfig = {
    experimental: c.experimental ?? false,
    env: {},
    args: [...(c.args ?? [])],
    initializeTimeoutMs: c.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
  };
  if (c.executable !== undefined) out.executable = c.executable;
  if (c.model !== undefined) out.model = c.model;
  if (c.effort !== undefined) out.effort = c.effort;
  if (c.home !== undefined) out.home = resolve(c.home);
  if (c.provider !== undefined) out.provider = c.provider;
  // From the caller's object: parsing drops the keys whose `undefined` removes a variable.
  for (const [name, value] of Object.entries((config as CodexConfig).env ?? {})) out.env[name] = value;
  return out;
}

/**
 * Refuses a policy Codex cannot honour rather than widening it: app-server offers no
 * `on-failure` approval, and its full-access sandbox cannot withhold the network.
 */
export function validateCodexPolicy(policy: Policy): void {
  if (policy.approval === "on-failure") {
    throw new ConfigError('codex: policy.approval "on-failure" is not offered by codex app-server (use never, on-request or untrusted)');
  }
  if (policy.sandbox === "full-access" && policy.network === false) {
    throw new ConfigError('codex: policy.network false cannot be honoured with sandbox "full-access" (Codex\'s full-access sandbox has network access)');
  }
}

// ---------------------------------------------------------------------------------------------
// TOML literals for `-c key=value` overrides.

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/** A TOML literal for a JSON-like value (JSON string escapes are valid TOML basic strings). */
export function tomlValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
    return `{ ${entries.map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`).join(", ")} }`;
  }
  throw new ConfigError("codex: a config value cannot be written as TOML");
}

/** Prefix of the child variables that carry the provider's header values. */
const HEADER_VARIABLE_PREFIX = "AGENT_ADAPTOR_CODEX_HEADER_";

/** Header name → the child variable holding its value (Codex's `env_http_headers`), in name order. */
function headerVariableNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(headers)
      .sort()
      .map((name, index) => [name, `${HEADER_VARIABLE_PREFIX}${index}`]),
  );
}

/** `-c` overrides for a provider. */
function providerOverrides(provider: CodexProviderConfig): string[] {
  const table: Record<string, unknown> = {
    name: provider.name ?? provider.id,
    base_url: provider.baseUrl,
    wire_api: provider.wireApi,
    env_key: provider.apiKeyEnv,
    // Header values travel in the child's environment: a command line is readable by every local user.
    env_http_headers: provider.headers === undefined ? undefined : headerVariableNames(provider.headers),
    request_max_retries: provider.requestMaxRetries,
    stream_max_retries: provider.streamMaxRetries,
    stream_idle_timeout_ms: provider.streamIdleTimeoutMs,
  };
  return ["-c", `model_providers.${provider.id}=${tomlValue(table)}`, "-c", `model_provider=${tomlValue(provider.id)}`];
}

/** The complete argument list after the executable. */
export function appServerArgs(config: ResolvedCodexConfig): string[] {
  const args = ["app-server"];
  if (config.provider) args.push(...providerOverrides(config.provider));
  if (config.model !== undefined) args.push("-c", `model=${tomlValue(config.model)}`);
  if (config.effort !== undefined) args.push("-c", `model_reasoning_effort=${tomlValue(config.effort)}`);
  // The agent's MCP servers are not here: they travel with each thread request (mcp.ts), off argv.
  // Lets the model ask the host (`request_user_input`) outside plan mode; a Codex that does not
  // know the feature ignores it. Before `config.args`, so `--disable` there still wins.
  args.push("-c", `features.${USER_INPUT_FEATURE}=true`);
  args.push(...config.args);
  return args;
}

/** Codex's feature that offers `request_user_input` in the default collaboration mode. */
export const USER_INPUT_FEATURE = "default_mode_request_user_input";

function isInside(child: string, parent: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Explicit child variables: CODEX_HOME, the executable's PATH dirs, and — when the home lies
 * inside the child's temp dir, where Codex refuses to create its sandbox helpers — a TMPDIR
 * inside the home instead.
 */
export function childEnv(config: ResolvedCodexConfig, pathDirs: readonly string[]): {
  env: Record<string, string | undefined>;
  tmpDirToCreate?: string;
} {
  const env: Record<string, string | undefined> = { ...config.env };
  if (config.home !== undefined) env.CODEX_HOME = config.home;
  const headers = config.provider?.headers ?? {};
  for (const [name, variable] of Object.entries(headerVariableNames(headers))) env[variable] = headers[name];
  const basePath = Object.hasOwn(config.env, "PATH") ? config.env.PATH : process.env.PATH;
  if (pathDirs.length > 0) env.PATH = [...pathDirs, ...(basePath ? [basePath] : [])].join(process.platform === "win32" ? ";" : ":");
  let tmpDirToCreate: string | undefined;
  if (config.home !== undefined && !Object.hasOwn(config.env, "TMPDIR")) {
    const childTmp = process.env.TMPDIR || tmpdir();
    if (isInside(config.home, childTmp)) {
      tmpDirToCreate = resolve(config.home, ".tmp");
      env.TMPDIR = tmpDirToCreate;
    }
  }
  return tmpDirToCreate === undefined ? { env } : { env, tmpDirToCreate };
}

/** Parent variables to pass through: auth, proxies, and the provider's key variable. */
export function inheritedEnv(config: ResolvedCodexConfig): string[] {
  const names = [...CODEX_INHERITED_ENV];
  if (config.provider?.apiKeyEnv) names.push(config.provider.apiKeyEnv);
  return names;
}

/** Values that must never surface (header values, explicit env values of secret-looking names). */
export function configSecrets(config: ResolvedCodexConfig): string[] {
  const secrets: string[] = [];
  for (const value of Object.values(config.provider?.headers ?? {})) secrets.push(value);
  const key = config.provider?.apiKeyEnv;
  if (key) {
    const value = config.env[key] ?? process.env[key];
    if (value) secrets.push(value);
  }
  return secrets;
}

const digest = (value: string): string => createHash("sha256").update(value).digest("hex").slice(0, 16);

/**
 * The settings a stored thread depends on (see `Driver.compatibility`): the custom provider's id
 * (Codex records it per thread) and wire API, extra arguments (endpoints masked) and the
 * child variables that are not credentials, endpoints or locations. Left out: the executable and
 * home (they only locate Codex and its threads), the provider's base URL, key variable, headers,
 * display name and retry/timeout tuning (connection), `experimental` (protocol methods, not the
 * conversation), `initializeTimeoutMs`, and the model and effort (core's `model`/`effort`).
 */
export function configCompatibility(config: ResolvedCodexConfig): Record<string, string> {
  const out: Record<string, string> = {};
  if (config.provider !== undefined) {
    out["provider.id"] = config.provider.id;
    out["provider.wireApi"] = config.provider.wireApi;
  }
  const args = compatibleArgs(config.args);
  if (args !== undefined) out.args = args;
  return { ...out, ...compatibleEnv(config.env, [config.provider?.apiKeyEnv], configSecrets(config)) };
}

/** A stable identity of everything in the config that changes how Codex behaves. */
export function configFingerprint(config: ResolvedCodexConfig, executablePath: string | undefined): string {
  const provider = config.provider
    ? {
        ...config.provider,
        headers: config.provider.headers
          ? Object.fromEntries(Object.entries(config.provider.headers).map(([k, v]) => [k.toLowerCase(), digest(v)]))
          : undefined,
      }
    : undefined;
  return canonicalJson({
    driver: "codex",
    executable: executablePath ?? config.executable ?? null,
    home: config.home ?? process.env.CODEX_HOME ?? "default",
    provider,
    model: config.model,
    effort: config.effort,
    experimental: config.experimental,
    args: config.args,
    env: Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, v === undefined ? null : digest(v)])),
  });
}
