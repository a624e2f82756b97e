/**
 * The Codex driver's configuration: its declared shape, validation, and how it becomes
 * `codex app-server` arguments and a child environment. Everything here is captured once, when
 * `codex(config)` is called.
 */
import { createHash } from "node:crypto";
import { isAbsolute, relative, resolve } from "node:path";
import { tmpdir } from "node:os";

import type { JsonSchema, McpServerConfig } from "../../agent/options.js";
import { canonicalJson } from "../../agent/signature.js";
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

/** The declared shape of {@link CodexConfig}, for the descriptor. */
export const CODEX_CONFIG_SCHEMA: JsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  additionalProperties: false,
  properties: {
    executable: { type: "string", minLength: 1 },
    model: { type: "string", minLength: 1 },
    effort: { type: "string", minLength: 1 },
    home: { type: "string", minLength: 1 },
    provider: {
      type: "object",
      additionalProperties: false,
      required: ["id", "baseUrl", "wireApi"],
      properties: {
        id: { type: "string", pattern: "^[A-Za-z0-9_-]+$" },
        baseUrl: { type: "string", format: "uri" },
        wireApi: { const: "responses" },
        name: { type: "string" },
        apiKeyEnv: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
        headers: { type: "object", additionalProperties: { type: "string" } },
        requestMaxRetries: { type: "integer", minimum: 0 },
        streamMaxRetries: { type: "integer", minimum: 0 },
        streamIdleTimeoutMs: { type: "integer", minimum: 1 },
      },
    },
    experimental: { type: "boolean" },
    env: { type: "object", additionalProperties: { type: ["string", "null"] } },
    args: { type: "array", items: { type: "string" } },
  },
};

const CONFIG_KEYS = new Set(Object.keys(CODEX_CONFIG_SCHEMA.properties as object));
const PROVIDER_KEYS = new Set(
  Object.keys(((CODEX_CONFIG_SCHEMA.properties as Record<string, { properties: object }>).provider!).properties),
);
const PROVIDER_ID = /^[A-Za-z0-9_-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function fail(message: string): never {
  throw new ConfigError(`codex: ${message}`);
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") fail(`${name} must be a non-empty string`);
  return value;
}

function optionalCount(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) fail(`${name} must be an integer ≥ ${min}`);
  return value;
}

function checkProvider(value: unknown): CodexProviderConfig | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail("provider must be an object");
  const p = value as Record<string, unknown>;
  for (const key of Object.keys(p)) if (!PROVIDER_KEYS.has(key)) fail(`provider.${key} is not a known option`);
  const id = optionalString(p.id, "provider.id");
  if (id === undefined || !PROVIDER_ID.test(id)) fail("provider.id must be letters, digits, _ or -");
  const baseUrl = optionalString(p.baseUrl, "provider.baseUrl");
  if (baseUrl === undefined) fail("provider.baseUrl is required");
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    fail("provider.baseUrl must be an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail("provider.baseUrl must be http or https");
  if (p.wireApi !== "responses") fail('provider.wireApi must be "responses" (current Codex speaks no other wire API)');
  const apiKeyEnv = optionalString(p.apiKeyEnv, "provider.apiKeyEnv");
  if (apiKeyEnv !== undefined && !ENV_NAME.test(apiKeyEnv)) fail("provider.apiKeyEnv must be an environment variable name");
  let headers: Record<string, string> | undefined;
  if (p.headers !== undefined) {
    if (typeof p.headers !== "object" || p.headers === null || Array.isArray(p.headers)) fail("provider.headers must be an object");
    headers = {};
    for (const [name, v] of Object.entries(p.headers as Record<string, unknown>)) {
      if (typeof v !== "string") fail(`provider.headers.${name} must be a string`);
      headers[name] = v;
    }
  }
  const out: CodexProviderConfig = { id, baseUrl, wireApi: "responses" };
  const name = optionalString(p.name, "provider.name");
  if (name !== undefined) out.name = name;
  if (apiKeyEnv !== undefined) out.apiKeyEnv = apiKeyEnv;
  if (headers !== undefined) out.headers = headers;
  const requestMaxRetries = optionalCount(p.requestMaxRetries, "provider.requestMaxRetries", 0);
  if (requestMaxRetries !== undefined) out.requestMaxRetries = requestMaxRetries;
  const streamMaxRetries = optionalCount(p.streamMaxRetries, "provider.streamMaxRetries", 0);
  if (streamMaxRetries !== undefined) out.streamMaxRetries = streamMaxRetries;
  const streamIdleTimeoutMs = optionalCount(p.streamIdleTimeoutMs, "provider.streamIdleTimeoutMs", 1);
  if (streamIdleTimeoutMs !== undefined) out.streamIdleTimeoutMs = streamIdleTimeoutMs;
  return out;
}

/** Validates and copies a config. Throws `ConfigError` (`config_invalid`). */
export function resolveCodexConfig(config: unknown): ResolvedCodexConfig {
  if (config === undefined) config = {};
  if (typeof config !== "object" || config === null || Array.isArray(config)) fail("the config must be an object");
  const c = config as Record<string, unknown>;
  for (const key of Object.keys(c)) if (!CONFIG_KEYS.has(key)) fail(`${key} is not a known option`);
  const out: ResolvedCodexConfig = { experimental: false, env: {}, args: [] };
  const executable = optionalString(c.executable, "executable");
  if (executable !== undefined) out.executable = executable;
  const model = optionalString(c.model, "model");
  if (model !== undefined) out.model = model;
  const effort = optionalString(c.effort, "effort");
  if (effort !== undefined) out.effort = effort;
  const home = optionalString(c.home, "home");
  if (home !== undefined) out.home = resolve(home);
  const provider = checkProvider(c.provider);
  if (provider !== undefined) out.provider = provider;
  if (c.experimental !== undefined) {
    if (typeof c.experimental !== "boolean") fail("experimental must be a boolean");
    out.experimental = c.experimental;
  }
  if (c.env !== undefined) {
    if (typeof c.env !== "object" || c.env === null || Array.isArray(c.env)) fail("env must be an object");
    for (const [name, v] of Object.entries(c.env as Record<string, unknown>)) {
      if (v !== undefined && typeof v !== "string") fail(`env.${name} must be a string or undefined`);
      out.env[name] = v as string | undefined;
    }
  }
  if (c.args !== undefined) {
    if (!Array.isArray(c.args) || c.args.some((a) => typeof a !== "string")) fail("args must be an array of strings");
    out.args = [...(c.args as string[])];
  }
  return out;
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

/** `-c` overrides for a provider. */
function providerOverrides(provider: CodexProviderConfig): string[] {
  const table: Record<string, unknown> = {
    name: provider.name ?? provider.id,
    base_url: provider.baseUrl,
    wire_api: provider.wireApi,
    env_key: provider.apiKeyEnv,
    http_headers: provider.headers,
    request_max_retries: provider.requestMaxRetries,
    stream_max_retries: provider.streamMaxRetries,
    stream_idle_timeout_ms: provider.streamIdleTimeoutMs,
  };
  return ["-c", `model_providers.${provider.id}=${tomlValue(table)}`, "-c", `model_provider=${tomlValue(provider.id)}`];
}

/** `-c` overrides declaring the agent's MCP servers (Codex's `mcp_servers.<name>` tables). */
function mcpOverrides(servers: readonly McpServerConfig[]): string[] {
  const args: string[] = [];
  for (const server of servers) {
    const table: Record<string, unknown> =
      "command" in server
        ? { command: server.command, args: server.args, env: server.env }
        : { url: server.url, http_headers: server.headers };
    args.push("-c", `mcp_servers.${tomlKey(server.name)}=${tomlValue(table)}`);
  }
  return args;
}

/** The complete argument list after the executable. */
export function appServerArgs(config: ResolvedCodexConfig, mcp: readonly McpServerConfig[]): string[] {
  const args = ["app-server"];
  if (config.provider) args.push(...providerOverrides(config.provider));
  if (config.model !== undefined) args.push("-c", `model=${tomlValue(config.model)}`);
  if (config.effort !== undefined) args.push("-c", `model_reasoning_effort=${tomlValue(config.effort)}`);
  args.push(...mcpOverrides(mcp));
  args.push(...config.args);
  return args;
}

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
