/**
 * Presets for known ACP agents: how each is found and started, how it is pointed at an external
 * model endpoint (`provider: { baseUrl, apiKeyEnv, model }`), the start-up environment that
 * avoids a self-relaunch, and its traits (where it reports usage, its quirks).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import { ConfigError } from "../../errors/index.js";
import { parseOrThrow } from "../../driver/validate-schema.js";
import { acpPresetOptionsSchema, type AcpClientCapabilities, type AcpPresetOptions, type AcpProviderBinding, type AcpConfig, type AcpLoadQuirks, type AcpPresetTraits, type AcpWatchdogs } from "./config.js";
import { acp, type AcpDriver } from "./driver.js";

const require = createRequire(import.meta.url);

/** A package's directory, searched the way Node resolves it from here and from the cwd. */
function packageDir(name: string): string | undefined {
  const bases = [...(require.resolve.paths(name) ?? []), join(process.cwd(), "node_modules")];
  for (const base of bases) {
    const dir = join(base, name);
    if (existsSync(join(dir, "package.json"))) return dir;
  }
  return undefined;
}

function fileIn(name: string, ...segments: string[]): string | undefined {
  const dir = packageDir(name);
  if (dir === undefined) return undefined;
  const file = join(dir, ...segments);
  return existsSync(file) ? file : undefined;
}

function packageVersion(name: string): string | undefined {
  const dir = packageDir(name);
  if (dir === undefined) return undefined;
  try {
    const v = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: unknown }).version;
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

const arch = (): string | undefined => (process.arch === "x64" || process.arch === "arm64" ? process.arch : undefined);
const exe = process.platform === "win32" ? ".exe" : "";

/** How to start a preset's agent. */
interface Launch {
  command: string;
  args: string[];
}

/** A JavaScript CLI started with this Node (no shell wrapper, no relaunch), or `fallback` on PATH. */
function nodeEntry(pkg: string, segments: string[], fallback: string): Launch {
  const entry = fileIn(pkg, ...segments);
  return entry !== undefined ? { command: process.execPath, args: [entry] } : { command: fallback, args: [] };
}

/** The variable codex-acp reads the provider key from. */
const CODEX_ACP_KEY_ENV = "AGENT_ADAPTOR_PROVIDER_API_KEY";

function apiKey(options: AcpPresetOptions, preset: string): string | undefined {
  const name = options.provider?.apiKeyEnv;
  if (name === undefined) return undefined;
  const value = options.env?.[name] ?? process.env[name];
  if (value === undefined || value === "") throw new ConfigError(`${preset}: provider.apiKeyEnv names ${name}, which is not set`);
  return value;
}

/** Throws `ConfigError` naming the bad field for an unknown option or a malformed value. */
function checkProvider(options: AcpPresetOptions, preset: string): void {
  parseOrThrow(acpPresetOptionsSchema, options, `${preset}: `);
}

function build(options: AcpPresetOptions, launch: Launch, presetArgs: string[], env: Record<string, string | undefined>, traits: AcpPresetTraits & AcpLoadQuirks): AcpDriver {
  const config: AcpConfig = {
    command: options.executable ?? launch.command,
    args: [...(options.executable !== undefined ? [] : launch.args), ...presetArgs, ...(options.args ?? [])],
    env: { ...env, ...(options.env ?? {}) },
    preset: traits,
  };
  if (options.inheritEnv !== undefined) config.inheritEnv = options.inheritEnv;
  if (options.cwd !== undefined) config.cwd = options.cwd;
  if (options.auth !== undefined) config.auth = options.auth;
  if (options.clientCapabilities !== undefined) config.clientCapabilities = options.clientCapabilities;
  if (options.watchdogs !== undefined) config.watchdogs = options.watchdogs;
  if (options.initializeTimeoutMs !== undefined) config.initializeTimeoutMs = options.initializeTimeoutMs;
  return acp(config);
}

/**
 * Gemini CLI (`gemini --acp`). `provider` sets `GOOGLE_GEMINI_BASE_URL` + `GEMINI_API_KEY`
 * (the `gateway` auth type) and `--model`. `GEMINI_CLI_NO_RELAUNCH=true` stops the wrapper from
 * re-spawning itself (the re-spawned wrapper ignores SIGTERM). Do not advertise
 * `fs.readTextFile`: Gemini's write tool then fails on new files.
 */
export function gemini(options: AcpPresetOptions = {}): AcpDriver {
  checkProvider(options, "gemini");
  const env: Record<string, string | undefined> = { GEMINI_CLI_NO_RELAUNCH: "true" };
  const args = ["--acp"];
  const p = options.provider;
  if (p !== undefined) {
    env.GOOGLE_GEMINI_BASE_URL = p.baseUrl;
    const key = apiKey(options, "gemini");
    if (key !== undefined) env.GEMINI_API_KEY = key;
    if (p.model !== undefined) args.push("--model", p.model);
  }
  return build(options, nodeEntry("@google/gemini-cli", ["bundle", "gemini.js"], "gemini"), args, env, {
    id: "gemini",
    name: "Gemini CLI (ACP)",
    install: "npm install -g @google/gemini-cli",
    login: "run `gemini` and choose a sign-in method with /auth, or set GEMINI_API_KEY",
    usage: ["meta_quota", "prompt_response"],
    fork: false,
    // Gemini CLI starts the MCP servers of the user's settings at launch; an allow-list naming no
    // real server keeps an inspection free of them.
    inspectArgs: ["--allowed-mcp-server-names", "agent-adaptor-inspect-allows-none"],
    loadAfterCreationMinute: true,
    replayTrailsLoad: true,
  });
}

/**
 * Qwen Code (`qwen --acp`), started as `node cli.js --acp` with `QWEN_CODE_NO_RELAUNCH=true`.
 * `provider` sets `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `OPENAI_MODEL` (OpenAI-compatible).
 * Usage arrives on an empty `agent_message_chunk`'s `_meta.usage`.
 */
export function qwen(options: AcpPresetOptions = {}): AcpDriver {
  checkProvider(options, "qwen");
  const env: Record<string, string | undefined> = { QWEN_CODE_NO_RELAUNCH: "true" };
  const p = options.provider;
  if (p !== undefined) {
    env.OPENAI_BASE_URL = p.baseUrl;
    const key = apiKey(options, "qwen");
    if (key !== undefined) env.OPENAI_API_KEY = key;
    if (p.model !== undefined) env.OPENAI_MODEL = p.model;
  }
  return build(options, nodeEntry("@qwen-code/qwen-code", ["cli.js"], "qwen"), ["--acp"], env, {
    id: "qwen",
    name: "Qwen Code (ACP)",
    install: "npm install -g @qwen-code/qwen-code",
    login: "run `qwen` and sign in with /auth, or set OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL",
    usage: ["chunk_meta", "prompt_response"],
    fork: false,
  });
}

/**
 * GitHub Copilot CLI (`copilot --acp`), its native binary when installed. `provider` selects
 * bring-your-own-key mode: `COPILOT_PROVIDER_BASE_URL`, `COPILOT_PROVIDER_API_KEY`,
 * `COPILOT_MODEL`, `COPILOT_PROVIDER_TYPE=openai` and `COPILOT_PROVIDER_WIRE_API` (default
 * `completions`). Copilot reports upstream failures as agent text with `end_turn`.
 */
export function copilot(options: AcpPresetOptions = {}): AcpDriver {
  checkProvider(options, "copilot");
  const a = arch();
  const platform = process.platform === "linux" ? "linux" : process.platform;
  const native = a === undefined ? undefined : fileIn(`@github/copilot-${platform}-${a}`, `copilot${exe}`);
  const launch: Launch = native !== undefined ? { command: native, args: [] } : { command: "copilot", args: [] };
  const env: Record<string, string | undefined> = {};
  const p = options.provider;
  if (p !== undefined) {
    env.COPILOT_PROVIDER_BASE_URL = p.baseUrl;
    env.COPILOT_PROVIDER_TYPE = "openai";
    env.COPILOT_PROVIDER_WIRE_API = p.wireApi ?? "completions";
    env.COPILOT_OFFLINE = "true";
    const key = apiKey(options, "copilot");
    if (key !== undefined) env.COPILOT_PROVIDER_API_KEY = key;
    if (p.model !== undefined) env.COPILOT_MODEL = p.model;
  }
  return build(options, launch, ["--acp"], env, {
    id: "copilot",
    name: "GitHub Copilot CLI (ACP)",
    install: "npm install -g @github/copilot",
    login: "run `copilot` and sign in with /login, or set GH_TOKEN or GITHUB_TOKEN",
    usage: ["prompt_response", "usage_update"],
    fork: false,
    // "Rejecting non-http/sse MCP server … from client" (its log): HTTP MCP only, host tools included.
    stdioMcp: false,
    instructions: "copilot_instructions_dir",
  });
}

/** `codex-resources` of an installed @openai/codex (its bundled bubblewrap), for codex-acp's sandbox. */
function codexResourcesDir(): string | undefined {
  const a = arch();
  if (a === undefined || process.platform !== "linux") return undefined;
  const triple = `${a === "x64" ? "x86_64" : "aarch64"}-unknown-linux-musl`;
  for (const pkg of [`@openai/codex-linux-${a}`, "@openai/codex"]) {
    const dir = fileIn(pkg, "vendor", triple, "codex-resources");
    if (dir !== undefined && existsSync(join(dir, "bwrap"))) return dir;
  }
  return undefined;
}

const toml = (s: string): string => JSON.stringify(s);

/**
 * codex-acp (Zed's ACP adapter for Codex), its native binary when installed. `provider` becomes a
 * custom Responses provider through `-c` overrides (no `authenticate`, nothing written to
 * `auth.json`). The process group is always killed: codex-acp ignores stdin EOF and its native
 * binary outlives the Node wrapper.
 */
export function codexAcp(options: AcpPresetOptions = {}): AcpDriver {
  checkProvider(options, "codexAcp");
  const a = arch();
  const native = a === undefined ? undefined : fileIn(`@zed-industries/codex-acp-${process.platform}-${a}`, "bin", `codex-acp${exe}`);
  const launch: Launch = native !== undefined ? { command: native, args: [] } : { command: "codex-acp", args: [] };
  const args: string[] = [];
  const env: Record<string, string | undefined> = {};
  const p = options.provider;
  if (p !== undefined) {
    args.push("-c", `model_provider=${toml("adaptor")}`);
    args.push("-c", `model_providers.adaptor.name=${toml("agent-adaptor provider")}`);
    args.push("-c", `model_providers.adaptor.base_url=${toml(p.baseUrl)}`);
    args.push("-c", `model_providers.adaptor.wire_api=${toml(p.wireApi ?? "responses")}`);
    if (p.apiKeyEnv !== undefined) {
      // The child reads the key under a secret-looking name, whatever the host's variable is
      // called, so the driver knows to redact it.
      args.push("-c", `model_providers.adaptor.env_key=${toml(CODEX_ACP_KEY_ENV)}`);
      env[CODEX_ACP_KEY_ENV] = apiKey(options, "codexAcp");
    }
    if (p.model !== undefined) args.push("-c", `model=${toml(p.model)}`);
  }
  // Without a system bwrap, codex-acp's sandboxed commands need the one @openai/codex bundles.
  const resources = codexResourcesDir();
  if (resources !== undefined && options.env?.PATH === undefined) env.PATH = [resources, process.env.PATH ?? ""].filter((x) => x !== "").join(delimiter);
  return build(options, launch, args, env, {
    id: "codex-acp",
    name: "Codex (codex-acp)",
    install: "npm install -g @zed-industries/codex-acp",
    login: "run `codex login`, or set OPENAI_API_KEY or CODEX_API_KEY",
    eofExitMs: 0,
    usage: ["usage_update", "prompt_response"],
    fork: false,
    diagnosticText: [/^Model metadata for `[^`]*` not found/],
    instructions: "codex_developer_instructions",
  });
}

/**
 * claude-agent-acp (Zed's ACP adapter for Claude Code). `provider` sets `ANTHROPIC_BASE_URL`,
 * `ANTHROPIC_API_KEY` and `ANTHROPIC_MODEL`; `IS_SANDBOX=1` is set when running as root (else
 * every `session/new` fails). Its `usage_update` frames carry `used: null` (schema-invalid; kept).
 */
export function claudeAcp(options: AcpPresetOptions = {}): AcpDriver {
  checkProvider(options, "claudeAcp");
  const env: Record<string, string | undefined> = {};
  if (typeof process.getuid === "function" && process.getuid() === 0) env.IS_SANDBOX = "1";
  const p = options.provider;
  if (p !== undefined) {
    env.ANTHROPIC_BASE_URL = p.baseUrl;
    const key = apiKey(options, "claudeAcp");
    if (key !== undefined) env.ANTHROPIC_API_KEY = key;
    if (p.model !== undefined) env.ANTHROPIC_MODEL = p.model;
  }
  return build(options, nodeEntry("@zed-industries/claude-agent-acp", ["dist", "index.js"], "claude-agent-acp"), [], env, {
    id: "claude-acp",
    name: "Claude Code (claude-agent-acp)",
    install: "npm install -g @zed-industries/claude-agent-acp",
    login: "run `claude` and sign in with /login, or set ANTHROPIC_API_KEY",
    usage: ["prompt_response", "usage_update"],
    fork: true,
    phantomTurnAfterCancel: true,
    instructions: "session_meta_system_prompt",
    skills: "claude_plugin",
  });
}

/**
 * Cursor CLI (`agent acp`). Built from Cursor's documented command; not installable from the npm
 * registry, so it is covered by fake fixtures only. Cursor documents no external model endpoint:
 * `provider` is refused. Authenticate out of band (`agent login`, `CURSOR_API_KEY`).
 */
export function cursor(options: AcpPresetOptions = {}): AcpDriver {
  checkProvider(options, "cursor");
  if (options.provider !== undefined) throw new ConfigError("cursor: Cursor documents no way to point its agent at an external model endpoint");
  return build(options, { command: "agent", args: [] }, ["acp"], {}, {
    id: "cursor",
    name: "Cursor (agent acp)",
    install: "curl https://cursor.com/install -fsS | bash",
    login: "run `agent login`, or set CURSOR_API_KEY",
    usage: [],
    fork: false,
  });
}

/** Installed versions of the preset packages (for reports; undefined when not installed). */
export function presetPackageVersions(): Record<string, string | undefined> {
  return {
    gemini: packageVersion("@google/gemini-cli"),
    qwen: packageVersion("@qwen-code/qwen-code"),
    copilot: packageVersion("@github/copilot"),
    "codex-acp": packageVersion("@zed-industries/codex-acp"),
    "claude-acp": packageVersion("@zed-industries/claude-agent-acp"),
  };
}

