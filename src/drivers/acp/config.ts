/**
 * The ACP driver's captured configuration: how to start the agent, which client capabilities to
 * advertise, an optional non-interactive `authenticate` method, watchdog bounds, and the preset
 * traits (where the agent reports usage, which quirks to expect).
 */
import { createHash } from "node:crypto";
import { isAbsolute } from "node:path";
import type { JsonSchema } from "../../agent/options.js";
import { ConfigError } from "../../errors/index.js";

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
}

/** Client capabilities the driver advertises in `initialize`. */
export interface AcpClientCapabilities {
  /** `fs/read_text_file` and `fs/write_text_file`, served inside the workspace only. Default: both off. */
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  /** Extra `_meta` for the capabilities object (e.g. `{ "terminal-auth": true }`). */
  meta?: Record<string, unknown>;
}

/** Watchdogs of one ACP run (zero disables a layer, negative selects the default). */
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
  watchdogs?: AcpWatchdogs;
  /** How long spawn + `initialize` may take. Default 60 s. */
  startupTimeoutMs?: number;
  /** Preset traits; set by the presets, optional for a generic agent. */
  preset?: AcpPresetTraits;
}

export const ACP_CONFIG_SCHEMA: JsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  additionalProperties: false,
  required: ["command"],
  properties: {
    command: { type: "string", minLength: 1 },
    args: { type: "array", items: { type: "string" } },
    env: { type: "object", additionalProperties: { type: ["string", "null"] } },
    inheritEnv: { type: "array", items: { type: "string" } },
    cwd: { type: "string" },
    auth: {
      type: "object",
      required: ["methodId"],
      properties: { methodId: { type: "string", minLength: 1 }, meta: { type: "object" } },
    },
    clientCapabilities: { type: "object" },
    watchdogs: {
      type: "object",
      properties: { idleMs: { type: "number" }, hardCapMs: { type: "number" }, repeatToolLimit: { type: "number" } },
    },
    startupTimeoutMs: { type: "number" },
    preset: { type: "object" },
  },
};

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
  startupTimeoutMs: number;
  preset: Required<Pick<AcpPresetTraits, "id" | "name">> & AcpPresetTraits & AcpLoadQuirks;
}

function bound(value: number | undefined, fallback: number, max: number, what: string): number {
  if (value === undefined || value < 0) return fallback;
  if (!Number.isFinite(value)) throw new ConfigError(`acp: watchdogs.${what} must be a finite number`);
  return Math.min(Math.floor(value), max);
}

export function resolveWatchdogs(w: AcpWatchdogs | undefined): ResolvedWatchdogs {
  return {
    idleMs: bound(w?.idleMs, DEFAULT_IDLE_MS, MAX_IDLE_MS, "idleMs"),
    hardCapMs: bound(w?.hardCapMs, DEFAULT_HARD_CAP_MS, MAX_HARD_CAP_MS, "hardCapMs"),
    repeatToolLimit: bound(w?.repeatToolLimit, DEFAULT_REPEAT_TOOL_LIMIT, MAX_REPEAT_TOOL_LIMIT, "repeatToolLimit"),
  };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function resolveAcpConfig(config: AcpConfig): ResolvedAcpConfig {
  if (typeof config !== "object" || config === null) throw new ConfigError("acp: the config must be an object");
  const known = new Set(Object.keys(ACP_CONFIG_SCHEMA.properties as object));
  for (const key of Object.keys(config)) if (!known.has(key)) throw new ConfigError(`acp: unknown config key ${key}`);
  if (typeof config.command !== "string" || config.command === "") throw new ConfigError("acp: command must be a non-empty string");
  if (config.args !== undefined && (!Array.isArray(config.args) || config.args.some((a) => typeof a !== "string"))) {
    throw new ConfigError("acp: args must be an array of strings");
  }
  for (const name of Object.keys(config.env ?? {})) if (!ENV_NAME.test(name)) throw new ConfigError(`acp: invalid env variable name ${name}`);
  for (const name of config.inheritEnv ?? []) if (!ENV_NAME.test(name)) throw new ConfigError(`acp: invalid inheritEnv name ${name}`);
  if (config.cwd !== undefined && !isAbsolute(config.cwd)) throw new ConfigError("acp: cwd must be an absolute path");
  if (config.auth !== undefined && (typeof config.auth.methodId !== "string" || config.auth.methodId === "")) {
    throw new ConfigError("acp: auth.methodId must be a non-empty string");
  }
  const fs = config.clientCapabilities?.fs;
  const resolved: ResolvedAcpConfig = {
    command: config.command,
    args: [...(config.args ?? [])],
    env: { ...(config.env ?? {}) },
    inheritEnv: [...(config.inheritEnv ?? [])],
    clientCapabilities: { fs: { readTextFile: fs?.readTextFile === true, writeTextFile: fs?.writeTextFile === true } },
    watchdogs: resolveWatchdogs(config.watchdogs),
    startupTimeoutMs: config.startupTimeoutMs !== undefined && config.startupTimeoutMs > 0 ? config.startupTimeoutMs : 60_000,
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

/** Values in the config that must never appear in events, results or errors. */
export function configSecrets(config: ResolvedAcpConfig): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(config.env)) {
    if (value !== undefined && value.length >= 4 && /KEY|TOKEN|SECRET|PASSWORD|AUTH/i.test(name)) out.push(value);
  }
  return out;
}
