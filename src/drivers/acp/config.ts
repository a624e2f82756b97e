/**
 * The ACP driver's captured configuration: how to start the agent, which client capabilities to
 * advertise, an optional non-interactive `authenticate` method, watchdog bounds, and the preset
 * traits (where the agent reports usage, which quirks to expect).
 */
import { createHash } from "node:crypto";
import { basename, isAbsolute } from "node:path";
import { z } from "zod";
import { DEFAULT_INITIALIZE_TIMEOUT_MS, initializeTimeoutMsSchema } from "../../driver/initialize-timeout.js";
import { compatibleArgs, compatibleEnv, isNodeCommand } from "../../driver/kit/compatibility.js";
import type { JsonSchema, Policy } from "../../driver/vocabulary.js";
import { envName, httpUrl, nonEmptyString, parseOrThrow } from "../../driver/validate-schema.js";
import { ConfigError } from "../../errors/index.js";
import { isSecretEnvName, MIN_SECRET_LENGTH } from "../../redact/redact.js";

/** Where an agent reports token usage (research: five agents, five places). */
export type AcpUsageSource =
  /** `PromptResponse.usage` (unstable field): token counts of the turn. */
  | "prompt_response"
  /** `PromptResponse._meta.quota.token_count` (Gemini CLI). */
  | "meta_quota"
  /** An empty `agent_message_chunk` carrying `_meta.usage` (Qwen Code). */
  | "chunk_meta"
  /** `usage_update` session updates: context window use and cost. */
  | "usage_update";

export const ALL_USAGE_SOURCES: readonly AcpUsageSource[] = ["prompt_response", "meta_quota", "chunk_meta", "usage_update"];

/** Static traits of a known agent, set by the presets. */
export interface AcpPresetTraits {
  /** Driver id (`acp`, `gemini`, ...). */
  id: string;
  /** Display name. */
  name: string;
  /** Where this agent reports usage; default: every known location. */
  usage?: readonly AcpUsageSource[];
  /** Whether the agent can fork a session natively (`session/fork`). Default: checked at run time. */
  fork?: boolean;
  /**
   * The agent answers the prompt after a cancelled one with an immediate, empty `end_turn`
   * (claude-agent-acp). The driver never reuses a process after a cancel; this flag also makes it
   * refuse such an answer instead of reporting an empty run.
   */
  phantomTurnAfterCancel?: boolean;
  /**
   * How long closing waits for the agent to exit on end of input before its process group is
   * signalled (default 1000 ms; 0 for agents that never exit on EOF, such as codex-acp).
   */
  eofExitMs?: number;
  /** Agent text chunks that are diagnostics, not the model's answer (dropped with a notice). */
  diagnosticText?: readonly RegExp[];
  /** How to install the agent (e.g. `npm install -g @google/gemini-cli`), named when its executable is missing. */
  install?: string;
  /** How to sign the agent in (login command or credential variable), named when it reports a missing login. */
  login?: string;
  /**
   * Arguments added only when a process is started for `inspect()`, so that inspecting starts no
   * side process such as the user's own MCP servers (Gemini CLI starts them at launch).
   */
  inspectArgs?: readonly string[];
}

/** Session-loading quirks of a known agent; set by the presets only (not part of the public traits). */
export interface AcpLoadQuirks {
  /**
   * The agent names a session's history file after the wall-clock minute (UTC) in which a process
   * first set the session up, and a `session/load` set up in that same minute appends a fresh,
   * empty history to that very file, after which the session cannot be found (Gemini CLI). The
   * driver then delays `session/load` of a session it created until that minute has passed.
   */
  loadAfterCreationMinute?: boolean;
  /**
   * The agent answers `session/load` before it has finished replaying the history (Gemini CLI
   * streams it without awaiting it), so the driver treats updates as replay until none has arrived
   * for a short quiet window (at most 3 s) before it sends the prompt.
   */
  replayTrailsLoad?: boolean;
  /**
   * How the agent takes the agent's instructions (absent: it has no way, and they are refused):
   * `session_meta_system_prompt` — `_meta.systemPrompt.append` on every session request
   * (claude-agent-acp); `codex_developer_instructions` — codex's `developer_instructions` config
   * override at launch (codex-acp); `copilot_instructions_dir` — an `*.instructions.md` file in a
   * process-owned directory named by `COPILOT_CUSTOM_INSTRUCTIONS_DIRS` (Copilot CLI).
   */
  instructions?: AcpInstructionsRoute;
  /** How the agent takes skills (absent: it has none, and they are refused): `claude_plugin` — a plugin named in `_meta.claudeCode.options.plugins` (claude-agent-acp). */
  skills?: "claude_plugin";
  /** False when the agent rejects stdio MCP servers on a session request (Copilot CLI takes HTTP/SSE only). Default true. */
  stdioMcp?: boolean;
}

/** How a known agent takes instructions (see {@link AcpLoadQuirks.instructions}). */
export type AcpInstructionsRoute = "session_meta_system_prompt" | "codex_developer_instructions" | "copilot_instructions_dir";

/** Client capabilities the driver advertises in `initialize`. */
export interface AcpClientCapabilities {
  /** `fs/read_text_file` and `fs/write_text_file`, served inside the workspace only. Default: both off. */
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  /** Extra `_meta` for the capabilities object (e.g. `{ "terminal-auth": true }`). */
  meta?: Record<string, unknown>;
}

/**
 * Watchdogs of one ACP run (zero disables a layer, negative selects the default).
 * @deprecated Use the agent's `watchdogs` option (`defaults.watchdogs` or per call), which applies
 * to every driver. Only the layers set here still run in the driver, beside core's.
 */
export interface AcpWatchdogs {
  /** No agent activity for this long (tool execution and permission waits excluded). Default 10 min. */
  idleMs?: number;
  /** Whole-run cap. Default 6 h, at most 7 days. */
  hardCapMs?: number;
  /** Identical tool calls (same kind, title and input) allowed in one run. Default 50, at most 1000. */
  repeatToolLimit?: number;
}

export interface AcpConfig {
  /** Executable to start (absolute path or a name looked up on PATH). */
  command: string;
  args?: readonly string[];
  /** Explicit child variables; `undefined` removes one. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Parent variable names passed through on top of the scrubbed allowlist. */
  inheritEnv?: readonly string[];
  /** Working directory of the agent process. Default: the agent's workspace. */
  cwd?: string;
  /** A non-interactive `authenticate` call made after `initialize` (never by `inspect()`). */
  auth?: { methodId: string; meta?: Record<string, unknown> };
  clientCapabilities?: AcpClientCapabilities;
  /** @deprecated Use the agent's `watchdogs` option (every driver); only the layers set here also run in the driver. */
  watchdogs?: AcpWatchdogs;
  /** How long the agent may take to answer `initialize` (and `authenticate`), in ms. Default 60 000; 0 = no limit. */
  initializeTimeoutMs?: number;
  /** Preset traits; set by the presets, optional for a generic agent. */
  preset?: AcpPresetTraits;
}

const metaSchema = z.record(z.string(), z.unknown());

const acpConfigSchema = z.strictObject({
  command: nonEmptyString,
  args: z.array(z.string()).optional(),
  env: z.record(envName, z.string().optional()).optional(),
  inheritEnv: z.array(envName).optional(),
  cwd: z.string().refine(isAbsolute, "expected an absolute path").optional(),
  auth: z.strictObject({ methodId: nonEmptyString, meta: metaSchema.optional() }).optional(),
  clientCapabilities: z
    .strictObject({
      fs: z.strictObject({ readTextFile: z.boolean().optional(), writeTextFile: z.boolean().optional() }).optional(),
      meta: metaSchema.optional(),
    } satisfies Record<keyof AcpClientCapabilities, z.ZodType>)
    .optional(),
  watchdogs: z
    .strictObject({ idleMs: z.number().optional(), hardCapMs: z.number().optional(), repeatToolLimit: z.number().optional() } satisfies Record<
      keyof AcpWatchdogs,
      z.ZodType
    >)
    .optional(),
  initializeTimeoutMs: initializeTimeoutMsSchema.optional(),
  preset: z
    .strictObject({
      id: nonEmptyString,
      name: nonEmptyString,
      usage: z.array(z.enum(ALL_USAGE_SOURCES as [AcpUsageSource, ...AcpUsageSource[]])).optional(),
      fork: z.boolean().optional(),
      phantomTurnAfterCancel: z.boolean().optional(),
      eofExitMs: z.number().min(0).optional(),
      diagnosticText: z.array(z.instanceof(RegExp)).optional(),
      install: nonEmptyString.optional(),
      login: nonEmptyString.optional(),
      inspectArgs: z.array(z.string()).optional(),
      loadAfterCreationMinute: z.boolean().optional(),
      replayTrailsLoad: z.boolean().optional(),
      instructions: z.enum(["session_meta_system_prompt", "codex_developer_instructions", "copilot_instructions_dir"]).optional(),
      stdioMcp: z.boolean().optional(),
      skills: z.literal("claude_plugin").optional(),
    } satisfies Record<keyof (AcpPresetTraits & AcpLoadQuirks), z.ZodType>)
    .optional(),
} satisfies Record<keyof AcpConfig, z.ZodType>);

/** An external model endpoint for the agent. */
export interface AcpProviderBinding {
  /** Base URL of the endpoint (e.g. `http://127.0.0.1:8080/v1` for OpenAI-compatible agents). */
  baseUrl: string;
  /** Name of the environment variable holding the API key (read from `env`, then the host's environment). */
  apiKeyEnv?: string;
  /** Model name, passed through unchanged. */
  model?: string;
  /** Wire API, where the agent lets you choose (Copilot: `completions` | `responses`). */
  wireApi?: string;
}

/** Options shared by every preset. */
export interface AcpPresetOptions {
  /** Executable to start instead of the resolved one. */
  executable?: string;
  /** Extra arguments, appended after the preset's. */
  args?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  inheritEnv?: readonly string[];
  cwd?: string;
  provider?: AcpProviderBinding;
  auth?: { methodId: string; meta?: Record<string, unknown> };
  clientCapabilities?: AcpClientCapabilities;
  /** @deprecated Use the agent's `watchdogs` option (every driver); only the layers set here also run in the driver. */
  watchdogs?: AcpWatchdogs;
  /** See `AcpConfig.initializeTimeoutMs`. */
  initializeTimeoutMs?: number;
}

/** Options every preset takes (see `AcpPresetOptions`); the preset supplies command and traits. */
export const acpPresetOptionsSchema = z.strictObject({
  executable: nonEmptyString.optional(),
  args: acpConfigSchema.shape.args,
  env: acpConfigSchema.shape.env,
  inheritEnv: acpConfigSchema.shape.inheritEnv,
  cwd: acpConfigSchema.shape.cwd,
  provider: z
    .strictObject({
      baseUrl: httpUrl,
      apiKeyEnv: envName.optional(),
      model: nonEmptyString.optional(),
      wireApi: nonEmptyString.optional(),
    } satisfies Record<keyof AcpProviderBinding, z.ZodType>)
    .optional(),
  auth: acpConfigSchema.shape.auth,
  clientCapabilities: acpConfigSchema.shape.clientCapabilities,
  watchdogs: acpConfigSchema.shape.watchdogs,
  initializeTimeoutMs: acpConfigSchema.shape.initializeTimeoutMs,
} satisfies Record<keyof AcpPresetOptions, z.ZodType>);

/** The declared shape of {@link AcpConfig}, for the descriptor. */
export const ACP_CONFIG_SCHEMA: JsonSchema = z.toJSONSchema(acpConfigSchema, { io: "input", unrepresentable: "any" });

export const DEFAULT_IDLE_MS = 10 * 60_000;
export const DEFAULT_HARD_CAP_MS = 6 * 3_600_000;
export const MAX_HARD_CAP_MS = 7 * 24 * 3_600_000;
export const DEFAULT_REPEAT_TOOL_LIMIT = 50;
export const MAX_REPEAT_TOOL_LIMIT = 1000;
const MAX_IDLE_MS = MAX_HARD_CAP_MS;

export interface ResolvedWatchdogs {
  /** 0 = disabled. */
  idleMs: number;
  hardCapMs: number;
  repeatToolLimit: number;
}

export interface ResolvedAcpConfig {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  inheritEnv: string[];
  cwd?: string;
  auth?: { methodId: string; meta?: Record<string, unknown> };
  clientCapabilities: { fs: { readTextFile: boolean; writeTextFile: boolean }; meta?: Record<string, unknown> };
  watchdogs: ResolvedWatchdogs;
  initializeTimeoutMs: number;
  preset: Required<Pick<AcpPresetTraits, "id" | "name">> & AcpPresetTraits & AcpLoadQuirks;
}

function bound(value: number | undefined, fallback: number, max: number, what: string): number {
  if (value === undefined || value < 0) return fallback;
  if (!Number.isFinite(value)) throw new ConfigError(`acp: watchdogs.${what} must be a finite number`);
  return Math.min(Math.floor(value), max);
}

/** Only the layers the config sets run in the driver (deprecated); core's watchdogs cover every run. */
export function resolveWatchdogs(w: AcpWatchdogs | undefined): ResolvedWatchdogs {
  const set = (value: number | undefined, fallback: number, max: number, what: string) => (value === undefined ? 0 : bound(value, fallback, max, what));
  return {
    idleMs: set(w?.idleMs, DEFAULT_IDLE_MS, MAX_IDLE_MS, "idleMs"),
    hardCapMs: set(w?.hardCapMs, DEFAULT_HARD_CAP_MS, MAX_HARD_CAP_MS, "hardCapMs"),
    repeatToolLimit: set(w?.repeatToolLimit, DEFAULT_REPEAT_TOOL_LIMIT, MAX_REPEAT_TOOL_LIMIT, "repeatToolLimit"),
  };
}

export function resolveAcpConfig(config: AcpConfig): ResolvedAcpConfig {
  parseOrThrow(acpConfigSchema, config, "acp: ");
  const fs = config.clientCapabilities?.fs;
  const resolved: ResolvedAcpConfig = {
    command: config.command,
    args: [...(config.args ?? [])],
    env: { ...(config.env ?? {}) },
    inheritEnv: [...(config.inheritEnv ?? [])],
    clientCapabilities: { fs: { readTextFile: fs?.readTextFile === true, writeTextFile: fs?.writeTextFile === true } },
    watchdogs: resolveWatchdogs(config.watchdogs),
    initializeTimeoutMs: config.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
    preset: { id: "acp", name: "Agent Client Protocol agent", ...(config.preset ?? {}) },
  };
  if (config.clientCapabilities?.meta !== undefined) resolved.clientCapabilities.meta = { ...config.clientCapabilities.meta };
  if (config.cwd !== undefined) resolved.cwd = config.cwd;
  if (config.auth !== undefined) {
    resolved.auth = { methodId: config.auth.methodId };
    if (config.auth.meta !== undefined) resolved.auth.meta = structuredClone(config.auth.meta);
  }
  return resolved;
}

/**
 * Refuses a policy the driver cannot make an ACP agent honour, rather than widening it: the agent
 * runs in whatever mode it was configured with, so the driver can neither confine its writes nor
 * withhold the network, and cannot make it ask before every command (`untrusted`) or only after a
 * sandbox failure (`on-failure`). What it can honour: `full-access`, the network, and approvals
 * asked when the agent decides (`on-request`, `never`): a request still reaches the host's
 * handler, or is denied without one, so the agent never gets more than the host grants.
 */
export function validateAcpPolicy(driver: string, policy: Policy): void {
  const refuse = (field: string, value: unknown, why: string): never => {
    throw new ConfigError(`${driver}: policy.${field} ${JSON.stringify(value)} cannot be honoured (${why})`);
  };
  if (policy.sandbox === "read-only" || policy.sandbox === "workspace-write") {
    refuse("sandbox", policy.sandbox, 'the driver cannot confine an ACP agent\'s writes; use "full-access" or leave it unset');
  }
  if (policy.network === false) refuse("network", false, "the driver cannot withhold the network from an ACP agent");
  if (policy.approval === "untrusted" || policy.approval === "on-failure") {
    refuse("approval", policy.approval, 'an ACP agent asks when it decides; use "on-request" or "never"');
  }
}

const digest = (value: string): string => createHash("sha256").update(value).digest("hex").slice(0, 16);

/** Identity of everything in the config that changes how the agent behaves; secrets only as digests. */
export function configFingerprint(config: ResolvedAcpConfig): string {
  return JSON.stringify({
    driver: config.preset.id,
    command: config.command,
    args: config.args,
    env: Object.fromEntries(
      Object.keys(config.env)
        .sort()
        .map((k) => [k, config.env[k] === undefined ? null : digest(config.env[k]!)]),
    ),
    inheritEnv: [...config.inheritEnv].sort(),
    cwd: config.cwd ?? null,
    auth: config.auth ? { methodId: config.auth.methodId, meta: config.auth.meta ? digest(JSON.stringify(config.auth.meta)) : null } : null,
    fs: config.clientCapabilities.fs,
  });
}

/**
 * The settings a stored thread depends on (see `Driver.compatibility`): which agent (for a
 * generic `acp()` only: the command's name; a preset's id is the driver id), its arguments with
 * the start script of a Node-run agent dropped and endpoints masked, the child variables that are
 * not credentials, endpoints or locations (so a preset's model variable or `--model` stays), and
 * the file-system capabilities offered. Left out: the command's directory and script path (they
 * locate the agent), `inheritEnv` (names of host variables: credentials and connection), `cwd`
 * (where the process starts; the session's directory is the workspace), `auth` (how it signs
 * in), watchdogs, `initializeTimeoutMs` and the capabilities' `_meta`.
 */
export function configCompatibility(config: ResolvedAcpConfig): Record<string, string> {
  const node = isNodeCommand(config.command) && config.args.length > 0 && !config.args[0]!.startsWith("-");
  const out: Record<string, string> = {};
  if (config.preset.id === "acp") out.agent = basename(node ? config.args[0]! : config.command);
  const args = compatibleArgs(node ? config.args.slice(1) : config.args);
  if (args !== undefined) out.args = args;
  const fs = config.clientCapabilities.fs;
  if (fs.readTextFile || fs.writeTextFile) {
    out["clientCapabilities.fs"] = [fs.readTextFile ? "readTextFile" : "", fs.writeTextFile ? "writeTextFile" : ""].filter(Boolean).join(", ");
  }
  // IS_SANDBOX only tells claude-agent-acp that a root user may skip permission prompts.
  return { ...out, ...compatibleEnv(config.env, ["IS_SANDBOX"], configSecrets(config)) };
}

/** Values in the config that must never appear in events, results or errors. */
export function configSecrets(config: ResolvedAcpConfig): string[] {
  const out: string[] = [];
  // The shared rule for secret names, not any name containing AUTH: `X_AUTH_STATUS=malformed` is
  // no key, and registering it would blank that word wherever it appears (even in reason codes).
  for (const [name, value] of Object.entries(config.env)) {
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH && isSecretEnvName(name)) out.push(value);
  }
  return out;
}
