/**
 * The Pi driver's captured configuration: how to start `pi --mode rpc`, where Pi keeps its state
 * and sessions, and an optional binding to an OpenAI-compatible (or other Pi-supported) endpoint
 * written into an isolated `models.json`.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { envName, httpUrl, nonEmptyString, parseOrThrow } from "../../driver/validate-schema.js";
import { DEFAULT_INITIALIZE_TIMEOUT_MS, initializeTimeoutMsSchema } from "../../driver/initialize-timeout.js";
import { compatibleArgs, compatibleEnv, isNodeCommand } from "../../driver/kit/compatibility.js";
import type { JsonSchema, Policy } from "../../driver/vocabulary.js";
import { ConfigError } from "../../errors/index.js";
import { secretEnvValues } from "../../redact/redact.js";

/** The model APIs Pi can speak to a custom provider. */
export type PiModelApi = "openai-completions" | "openai-responses" | "anthropic-messages" | "google-generative-ai";

/** Thinking levels Pi accepts (`set_thinking_level`); a run's `effort` must be one of them. */
export const PI_THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;

/**
 * A model endpoint written into an isolated `models.json` as Pi's only custom provider. The key
 * reaches Pi by variable name only: never in a file or on the command line.
 */
export interface PiProviderBinding {
  /** Base URL of the endpoint, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  /** Name of the environment variable holding the API key (read from `env`, then the host's environment). */
  apiKeyEnv?: string;
  /** The model id the endpoint serves (the provider's default model). */
  model: string;
  /** Further model ids the endpoint serves, selectable per run. */
  models?: readonly string[];
  /** Wire API. Default `openai-completions` (Chat Completions). */
  api?: PiModelApi;
  /** Whether the models take image input (declared to Pi, which then sends image parts). Default false. */
  imageInput?: boolean;
  /** Context window in tokens, as declared to Pi. */
  contextWindow?: number;
  /** Output token limit per answer, as declared to Pi. */
  maxTokens?: number;
  /** Price per million tokens, so Pi reports each message's cost. */
  cost?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
}

/** How the Pi driver starts `pi --mode rpc` and where Pi keeps its state. */
export interface PiConfig {
  /** The `pi` executable (absolute path or a name on PATH). Default `pi`. */
  executable?: string;
  /** Arguments placed before `--mode rpc` (e.g. Pi's `cli.js` when `executable` is Node). */
  args?: readonly string[];
  /** Explicit child variables; `undefined` removes one. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Parent variable names passed through on top of the scrubbed allowlist. */
  inheritEnv?: readonly string[];
  /** Pi's own directory (`PI_CODING_AGENT_DIR`). Default: Pi's default. Not combinable with `provider`. */
  agentDir?: string;
  /** Where Pi keeps session files (`--session-dir`); threads resume and fork from here. */
  sessionDir?: string;
  /** A model endpoint bound through an isolated `models.json` (see {@link PiProviderBinding}). */
  provider?: PiProviderBinding;
  /** Pi's built-in tools to enable (`--tools`); an empty list disables them all. Default: Pi's default set. */
  tools?: readonly string[];
  /** How long Pi may take to answer its handshake (the first `get_state`), in ms. Default 60 000; 0 = no limit. */
  initializeTimeoutMs?: number;
}

const providerSchema = z.strictObject({
  baseUrl: httpUrl,
  apiKeyEnv: envName.optional(),
  model: nonEmptyString,
  models: z.array(nonEmptyString).optional(),
  api: z.enum(["openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"]).optional(),
  imageInput: z.boolean().optional(),
  contextWindow: z.number().int().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  cost: z
    .strictObject({ input: z.number().min(0), output: z.number().min(0), cacheRead: z.number().min(0).optional(), cacheWrite: z.number().min(0).optional() })
    .optional(),
} satisfies Record<keyof PiProviderBinding, z.ZodType>);

const absolutePath = z.string().refine(isAbsolute, "expected an absolute path");

const piConfigSchema = z.strictObject({
  executable: nonEmptyString.optional(),
  args: z.array(z.string()).optional(),
  env: z.record(envName, z.string().optional()).optional(),
  inheritEnv: z.array(envName).optional(),
  agentDir: absolutePath.optional(),
  sessionDir: absolutePath.optional(),
  provider: providerSchema.optional(),
  tools: z.array(nonEmptyString).optional(),
  initializeTimeoutMs: initializeTimeoutMsSchema.optional(),
} satisfies Record<keyof PiConfig, z.ZodType>);

/** The declared shape of {@link PiConfig}, for the descriptor. */
export const PI_CONFIG_SCHEMA: JsonSchema = z.toJSONSchema(piConfigSchema, { io: "input", unrepresentable: "any" });

/** The name Pi's bound provider goes by in the isolated `models.json`. */
export const BOUND_PROVIDER = "agent-adaptor";
/** The child variable the bound key travels in; `models.json` names it, Pi dereferences it. */
export const BOUND_KEY_ENV = "AGENT_ADAPTOR_PI_API_KEY";

export interface ResolvedPiConfig {
  executable: string;
  args: string[];
  env: Record<string, string | undefined>;
  inheritEnv: string[];
  agentDir?: string;
  sessionDir?: string;
  provider?: PiProviderBinding;
  /** The bound key's value, read at construction. */
  apiKey?: string;
  tools?: string[];
  initializeTimeoutMs: number;
}

export function resolvePiConfig(config: PiConfig): ResolvedPiConfig {
  parseOrThrow(piConfigSchema, config, "pi: ");
  if (config.provider !== undefined && config.agentDir !== undefined) {
    throw new ConfigError("pi: agentDir and provider cannot be combined (a bound provider gets its own isolated agent directory)");
  }
  const resolved: ResolvedPiConfig = {
    executable: config.executable ?? "pi",
    args: [...(config.args ?? [])],
    env: { ...(config.env ?? {}) },
    inheritEnv: [...(config.inheritEnv ?? [])],
    initializeTimeoutMs: config.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
  };
  if (config.agentDir !== undefined) resolved.agentDir = config.agentDir;
  if (config.tools !== undefined) resolved.tools = [...config.tools];
  if (config.provider !== undefined) {
    resolved.provider = structuredClone({ ...config.provider, models: config.provider.models === undefined ? undefined : [...config.provider.models] });
    const name = config.provider.apiKeyEnv;
    if (name !== undefined) {
      const value = config.env?.[name] ?? process.env[name];
      if (value === undefined || value === "") throw new ConfigError(`pi: provider.apiKeyEnv names ${name}, which is not set`);
      resolved.apiKey = value;
    }
    // A bound provider's agent directory is temporary: sessions must outlive it.
    resolved.sessionDir = config.sessionDir ?? join(config.env?.HOME ?? homedir(), ".pi", "agent", "sessions");
  } else if (config.sessionDir !== undefined) {
    resolved.sessionDir = config.sessionDir;
  }
  return resolved;
}

/** The isolated `models.json` for a bound provider; the key appears only as a variable name. */
export function boundModelsJson(provider: PiProviderBinding, hasKey: boolean): unknown {
  const ids = [provider.model, ...(provider.models ?? []).filter((m) => m !== provider.model)];
  return {
    providers: {
      [BOUND_PROVIDER]: {
        baseUrl: provider.baseUrl,
        api: provider.api ?? "openai-completions",
        // Pi requires a key; a name that is no variable is sent literally, and "none" is no secret.
        apiKey: hasKey ? BOUND_KEY_ENV : "none",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: ids.map((id) => ({
          id,
          name: id,
          input: provider.imageInput === true ? ["text", "image"] : ["text"],
          ...(provider.contextWindow !== undefined ? { contextWindow: provider.contextWindow } : {}),
          ...(provider.maxTokens !== undefined ? { maxTokens: provider.maxTokens } : {}),
          ...(provider.cost !== undefined ? { cost: { cacheRead: 0, cacheWrite: 0, ...provider.cost } } : {}),
        })),
      },
    },
  };
}

/**
 * Refuses a policy Pi cannot honour, instead of widening it: Pi has no permission system (its
 * tools run without asking) and no sandbox, so it can neither ask before acting, nor confine
 * writes, nor withhold the network. What it honours: `approval: "never"`, `sandbox: "full-access"`,
 * `network: true` (or leaving them unset).
 */
export function validatePiPolicy(policy: Policy): void {
  const refuse = (field: string, value: unknown, why: string): never => {
    throw new ConfigError(`pi: policy.${field} ${JSON.stringify(value)} cannot be honoured (${why})`);
  };
  if (policy.approval !== undefined && policy.approval !== "never") {
    refuse("approval", policy.approval, 'Pi has no permission system: its tools run without asking; use "never" or restrict its tools');
  }
  if (policy.sandbox === "read-only" || policy.sandbox === "workspace-write") {
    refuse("sandbox", policy.sandbox, 'Pi has no sandbox and cannot confine its writes; use "full-access" or sandbox the host');
  }
  if (policy.network === false) refuse("network", false, "Pi cannot withhold the network from its tools");
}

const digest = (value: string): string => createHash("sha256").update(value).digest("hex").slice(0, 16);

/** Identity of everything that changes how Pi behaves; secrets only as digests. */
export function configFingerprint(config: ResolvedPiConfig): string {
  const { apiKey, ...provider } = { apiKey: config.apiKey, ...(config.provider ?? {}) };
  return JSON.stringify({
    driver: "pi",
    executable: config.executable,
    args: config.args,
    env: Object.fromEntries(
      Object.keys(config.env)
        .sort()
        .map((k) => [k, config.env[k] === undefined ? null : digest(config.env[k]!)]),
    ),
    inheritEnv: [...config.inheritEnv].sort(),
    agentDir: config.agentDir ?? null,
    sessionDir: config.sessionDir ?? null,
    provider: config.provider === undefined ? null : provider,
    apiKey: apiKey === undefined ? null : digest(apiKey),
    tools: config.tools ?? null,
  });
}

/**
 * The settings a stored thread depends on (see `Driver.compatibility`): a bound provider's wire
 * API (the encoding Pi's session holds), the built-in tools enabled, extra arguments (the start
 * script of a Node-run Pi dropped, endpoints masked) and the child variables that are not
 * credentials, endpoints or locations. Left out: the executable, `agentDir` and `sessionDir` (they
 * locate Pi and its sessions), `inheritEnv`, the provider's base URL and key (connection), the
 * further selectable models and the model metadata declared to Pi (image input, context window,
 * token limit, prices), `initializeTimeoutMs`, and the bound model (core's `model`).
 */
export function configCompatibility(config: ResolvedPiConfig): Record<string, string> {
  const out: Record<string, string> = {};
  if (config.provider !== undefined) out["provider.api"] = config.provider.api ?? "openai-completions";
  if (config.tools !== undefined) out.tools = config.tools.length === 0 ? "(none)" : config.tools.join(", ");
  const node = isNodeCommand(config.executable) && config.args.length > 0 && !config.args[0]!.startsWith("-");
  const args = compatibleArgs(node ? config.args.slice(1) : config.args);
  if (args !== undefined) out.args = args;
  return { ...out, ...compatibleEnv(config.env, [config.provider?.apiKeyEnv], configSecrets(config)) };
}

/** Values in the config that must never appear in events, results or errors. */
export function configSecrets(config: ResolvedPiConfig): string[] {
  return [...secretEnvValues(config.env, [config.provider?.apiKeyEnv]), ...(config.apiKey !== undefined ? [config.apiKey] : [])];
}
