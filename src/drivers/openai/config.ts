/**
 * The OpenAI-compatible driver's captured configuration: the endpoint (base URL, the variable
 * holding the key, extra headers), the wire API (`chat` or `responses`), defaults for model and
 * effort, where conversations are kept, retry and loop bounds, and the built-in tools.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { envName, httpUrl, nonEmptyString, parseOrThrow } from "../../driver/validate-schema.js";
import type { JsonSchema, Policy } from "../../driver/vocabulary.js";
import { ConfigError } from "../../errors/index.js";

/** The wire API: Chat Completions (`/chat/completions`, every compatible server) or Responses (`/responses`). */
export type OpenAIApi = "chat" | "responses";

/** The built-in workspace tools' settings. */
export interface OpenAIToolsConfig {
  /** Offer the built-in workspace tools (read, write, edit, list, glob, grep, bash). Default true. */
  builtin?: boolean;
  /** Of the built-in tools, only these (by name). Default: all. */
  only?: readonly string[];
  bash?: { timeoutMs?: number; outputCapBytes?: number };
  /** `ripgrep: false` forces the JS search of the grep tool (default: ripgrep when on PATH). */
  grep?: { ripgrep?: boolean };
}

/** How `openai()` reaches the model and runs its loop. */
export interface OpenAIConfig {
  /** Base URL of the endpoint including its version path, e.g. `http://127.0.0.1:8080/v1`. */
  baseURL: string;
  /** Name of the environment variable holding the API key (read at each run). Absent: no key is sent. */
  apiKeyEnv?: string;
  /** Wire API. Default `chat`. */
  api?: OpenAIApi;
  /** The default model (a call's or the agent's `model` wins). */
  model?: string;
  /** The default reasoning effort (`reasoning_effort` / `reasoning.effort`), e.g. `low`, `medium`, `high`. */
  effort?: string;
  /** Extra HTTP headers sent with every request (values are treated as secrets). */
  headers?: Readonly<Record<string, string>>;
  /** Where conversations (threads' transcripts) are kept. Default `~/.agent-adaptor/openai`. */
  stateDir?: string;
  /** Retries of a model request that failed with 429, 5xx or a connection error before any of its output. Default 3. */
  maxRetries?: number;
  /** First retry delay in ms (doubled each time, or the server's `retry-after`, capped at 30 s). Default 500. */
  retryBaseDelayMs?: number;
  /** Limit of one model request (until its stream ends), in ms. Default 600 000; at most 2^31 - 1 counts (about 24.8 days). */
  requestTimeoutMs?: number;
  /** Model requests one turn may make (each tool round is one). Default 100. */
  maxSteps?: number;
  /** Output token limit per model request (`max_tokens` / `max_output_tokens`). */
  maxOutputTokens?: number;
  /** Sampling temperature. */
  temperature?: number;
  /**
   * Context window in tokens: the context guard's limit, reported as `usage.context_size`. Absent:
   * the endpoint's model info (`GET /models/{id}`), asked once per model when a conversation grows.
   */
  contextWindow?: number;
  /**
   * The context guard: compact the conversation when a request would take more than `threshold`
   * (default 0.8) of the context window, summarizing the turns before the last `keepTurns`
   * (default 1) with the model and trimming tool outputs to `toolOutputChars` (default 2000).
   * `false`: never compact (a request past the window fails with `context_window_exceeded`).
   */
  compaction?: false | { threshold?: number; keepTurns?: number; toolOutputChars?: number };
  /** Generate a title for a conversation after its first turn (one extra model request). Default false. */
  title?: boolean;
  /**
   * The `task` tool (offered with the built-in tools; `tools.only` may name it): a subagent with a
   * fresh conversation. `maxDepth` (default 1: subagents start none of their own) and `maxTasks`
   * (per run, at every depth; default 8) bound it. `false`: not offered.
   */
  subagents?: false | { maxDepth?: number; maxTasks?: number };
  /** Whether the model takes audio input (Chat Completions `input_audio`: wav, mp3). Default false. */
  audioInput?: boolean;
  /** The built-in workspace tools. */
  tools?: OpenAIToolsConfig;
}

/** The names `tools.only` takes: the built-in tools and `task` (a name it does not know would leave a tool out unnoticed). */
export const BUILTIN_TOOL_NAMES = ["read", "write", "edit", "list", "glob", "grep", "bash", "task"] as const;

const toolsSchema = z.strictObject({
  builtin: z.boolean().optional(),
  only: z.array(z.enum(BUILTIN_TOOL_NAMES)).optional(),
  bash: z.strictObject({ timeoutMs: z.number().int().positive().optional(), outputCapBytes: z.number().int().positive().optional() }).optional(),
  grep: z.strictObject({ ripgrep: z.boolean().optional() }).optional(),
} satisfies Record<keyof OpenAIToolsConfig, z.ZodType>);

/**
 * A base URL that already names an operation (`.../v1/chat/completions`, pasted from a server's
 * docs): the client appends the operation again, and the 404 that follows would be blamed on the
 * model or a missing `/v1`.
 */
const OPERATION_PATH = /\/(?:chat\/completions|completions|responses|models)\/*$/;

/** Whether `value` parses as a URL that satisfies `test` (one that does not parse is httpUrl's to report). */
const urlWhere = (test: (url: URL) => boolean) => (value: string) => !URL.canParse(value) || test(new URL(value));

const configSchema = z.strictObject({
  baseURL: httpUrl
    .refine(urlWhere((url) => !OPERATION_PATH.test(url.pathname)), "expected the endpoint's base (e.g. http://127.0.0.1:8080/v1), without /chat/completions, /responses or /models")
    // fetch refuses a URL with credentials: every request would fail as a connection error, retried.
    .refine(urlWhere((url) => url.username === "" && url.password === ""), "expected no credentials in the URL (pass the key with apiKeyEnv, or a header with headers)")
    // The client appends the operation to the path: a query would end up before it.
    .refine(urlWhere((url) => url.search === "" && url.hash === ""), "expected no query or fragment (the operation's path is appended to the base URL)"),
  apiKeyEnv: envName.optional(),
  api: z.enum(["chat", "responses"]).optional(),
  model: nonEmptyString.optional(),
  effort: nonEmptyString.optional(),
  // A line break or NUL in a value fails every request at send (after delivery), not here.
  headers: z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "expected a header name"), z.string().regex(/^[^\r\n\0]*$/, "expected a header value without line breaks or NUL")).optional(),
  stateDir: z.string().refine(isAbsolute, "expected an absolute path").optional(),
  maxRetries: z.number().int().min(0).max(20).optional(),
  retryBaseDelayMs: z.number().min(0).optional(),
  requestTimeoutMs: z.number().int().positive().optional(),
  maxSteps: z.number().int().min(1).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  contextWindow: z.number().int().positive().optional(),
  compaction: z
    .union([
      z.literal(false),
      z.strictObject({
        threshold: z.number().gt(0).max(1).optional(),
        keepTurns: z.number().int().min(0).optional(),
        toolOutputChars: z.number().int().min(200).optional(),
      }),
    ])
    .optional(),
  title: z.boolean().optional(),
  subagents: z.union([z.literal(false), z.strictObject({ maxDepth: z.number().int().min(1).max(8).optional(), maxTasks: z.number().int().min(1).optional() })]).optional(),
  audioInput: z.boolean().optional(),
  tools: toolsSchema.optional(),
} satisfies Record<keyof OpenAIConfig, z.ZodType>);

/** The declared shape of {@link OpenAIConfig}, for the descriptor. */
export const OPENAI_CONFIG_SCHEMA: JsonSchema = z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" });

/** The longest delay a Node timer takes: a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The context guard's settings (`compaction` in the config). */
export interface CompactionSettings {
  /** Compact when a request would take more than this share of the window (0 to 1). */
  threshold: number;
  /** Earlier turns kept as they are (besides the running one). */
  keepTurns: number;
  /** A tool output of a kept turn is trimmed to this many characters. */
  toolOutputChars: number;
}

export interface ResolvedOpenAIConfig {
  baseURL: string;
  apiKeyEnv?: string;
  api: OpenAIApi;
  model?: string;
  effort?: string;
  headers: Record<string, string>;
  stateDir: string;
  maxRetries: number;
  retryBaseDelayMs: number;
  requestTimeoutMs: number;
  maxSteps: number;
  maxOutputTokens?: number;
  temperature?: number;
  contextWindow?: number;
  /** Undefined: the context guard is off. */
  compaction?: CompactionSettings;
  title: boolean;
  /** Undefined: no `task` tool. */
  subagents?: { maxDepth: number; maxTasks: number };
  audioInput: boolean;
  tools: { builtin: boolean; only?: string[]; bash: { timeoutMs?: number; outputCapBytes?: number }; grep: { ripgrep?: boolean } };
}

/** The default conversation directory: `~/.agent-adaptor/openai`. */
export function defaultStateDir(): string {
  return join(homedir(), ".agent-adaptor", "openai");
}

export function resolveOpenAIConfig(config: OpenAIConfig): ResolvedOpenAIConfig {
  if (config === null || typeof config !== "object") throw new ConfigError("openai: expected a config object with baseURL");
  const c = parseOrThrow(configSchema, config, "openai: ");
  const resolved: ResolvedOpenAIConfig = {
    baseURL: c.baseURL.replace(/\/+$/, ""),
    api: c.api ?? "chat",
    headers: { ...(c.headers ?? {}) },
    stateDir: c.stateDir ?? defaultStateDir(),
    maxRetries: c.maxRetries ?? 3,
    retryBaseDelayMs: c.retryBaseDelayMs ?? 500,
    // A Node timer longer than 2^31 - 1 ms fires at once: a longer timeout means that one.
    requestTimeoutMs: Math.min(c.requestTimeoutMs ?? 600_000, MAX_TIMER_MS),
    maxSteps: c.maxSteps ?? 100,
    audioInput: c.audioInput ?? false,
    title: c.title ?? false,
    tools: { builtin: c.tools?.builtin ?? true, bash: { ...(c.tools?.bash ?? {}) }, grep: { ...(c.tools?.grep ?? {}) } },
  };
  if (c.tools?.only !== undefined) resolved.tools.only = [...c.tools.only];
  if (c.subagents !== false && resolved.tools.builtin && (c.tools?.only === undefined || c.tools.only.includes("task"))) {
    resolved.subagents = { maxDepth: c.subagents?.maxDepth ?? 1, maxTasks: c.subagents?.maxTasks ?? 8 };
  }
  if (c.compaction !== false) {
    resolved.compaction = { threshold: c.compaction?.threshold ?? 0.8, keepTurns: c.compaction?.keepTurns ?? 1, toolOutputChars: c.compaction?.toolOutputChars ?? 2000 };
  }
  for (const key of ["apiKeyEnv", "model", "effort", "maxOutputTokens", "temperature", "contextWindow"] as const) {
    if (c[key] !== undefined) (resolved as unknown as Record<string, unknown>)[key] = c[key];
  }
  if (resolved.audioInput && resolved.api !== "chat") throw new ConfigError("openai: audioInput needs api \"chat\" (the Responses API takes no input audio)");
  return resolved;
}

/** The API key named by `apiKeyEnv`, read now; undefined when none is configured or it is unset. */
export function readApiKey(config: ResolvedOpenAIConfig): string | undefined {
  if (config.apiKeyEnv === undefined) return undefined;
  const value = process.env[config.apiKeyEnv];
  return value === undefined || value === "" ? undefined : value;
}

/** Values in the config that must never appear in events, results or errors. */
export function configSecrets(config: ResolvedOpenAIConfig): string[] {
  const key = readApiKey(config);
  return [...(key !== undefined ? [key] : []), ...Object.values(config.headers).filter((v) => v.length >= 4)];
}

const digest = (value: string): string => createHash("sha256").update(value).digest("hex").slice(0, 16);

/** Identity of everything that changes how a run behaves; secrets only as digests. */
export function configFingerprint(config: ResolvedOpenAIConfig): string {
  return JSON.stringify({
    driver: "openai",
    ...config,
    headers: Object.fromEntries(Object.entries(config.headers).map(([k, v]) => [k, digest(v)])),
  });
}

/**
 * The settings a stored thread depends on (see `Driver.compatibility`): the wire API (the shape of
 * the stored conversation is the same, but tool-call encodings differ between APIs) and the
 * built-in tools offered. Left out: the base URL, key, headers and `stateDir` (they locate the
 * endpoint and the conversations), limits, and the model and effort (core's).
 */
export function configCompatibility(config: ResolvedOpenAIConfig): Record<string, string> {
  const tools = !config.tools.builtin ? "(none)" : config.tools.only !== undefined ? config.tools.only.join(", ") : "(all)";
  return { api: config.api, tools };
}

/**
 * Refuses a policy the driver cannot honour instead of widening it. File tools are confined to
 * the workspace, but `bash` runs commands without a sandbox: it can reach the network and write
 * outside the workspace. So `network: false` is refused, and `sandbox: "workspace-write"` is
 * honoured only when commands are asked about (`approval` other than `"never"`). `"on-failure"`
 * needs a sandbox to fail in. `sandbox: "read-only"` offers only the reading tools.
 */
export function validateOpenAIPolicy(policy: Policy): void {
  const refuse = (field: string, value: unknown, why: string): never => {
    throw new ConfigError(`openai: policy.${field} ${JSON.stringify(value)} cannot be honoured (${why})`);
  };
  if (policy.network === false) refuse("network", false, "the bash tool runs without a sandbox and can reach the network");
  if (policy.approval === "on-failure") refuse("approval", "on-failure", 'there is no sandbox for a command to fail in; use "on-request", "untrusted" or "never"');
  if (policy.sandbox === "workspace-write" && policy.approval === "never") {
    refuse("sandbox", "workspace-write", 'the bash tool is not sandboxed: with approval "never" a command could write outside the workspace unasked');
  }
}
