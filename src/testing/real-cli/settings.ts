/**
 * Per-CLI settings that point a real CLI at the scripted model server, inside an isolated home,
 * with telemetry, auto-update and other non-essential traffic switched off. Every fact used here
 * was observed on the pinned versions; each quirk is named where it is handled.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { RealCliName } from "./registry.js";

/** Where the isolated CLI lives. */
export interface RealCliDirs {
  /** The CLI's `HOME` (and XDG dirs); never the user's real home. */
  readonly home: string;
  /** The CLI's `TMPDIR`; a sibling of `home`, never its parent (see codex). */
  readonly tmp: string;
  /** The working directory the CLI operates on. */
  readonly workspace: string;
}

/** Input of a settings writer. */
export interface RealCliSettingsInput {
  readonly dirs: RealCliDirs;
  /** Base URL of the scripted model server, e.g. `http://127.0.0.1:PORT` (no path). */
  readonly serverUrl: string;
  readonly model: string;
  /** A dummy key: the server ignores it, but some CLIs refuse to start without one. */
  readonly apiKey: string;
  /** Directories prepended to PATH (e.g. codex's bundled ripgrep). */
  readonly pathDirs: readonly string[];
}

/** What a settings writer produced. */
export interface RealCliSettings {
  /**
   * The CLI's variables. The child gets these on top of the library's scrubbed allowlist
   * (`buildChildEnv`), whose home, temp and XDG entries they all replace; no credential is inherited.
   */
  readonly env: Record<string, string>;
  /** Arguments selecting the CLI's machine protocol, after any executable prefix. */
  readonly args: string[];
  /** The CLI's own config/state dir inside `home` (CODEX_HOME, CLAUDE_CONFIG_DIR, ...). */
  readonly configDir: string;
}

/** Name of the env var that carries the dummy key where a CLI reads the key from a named var. */
export const SCRIPTED_KEY_ENV = "SCRIPTED_MODEL_API_KEY";

/** Variables shared by every CLI: isolated home, temp and XDG dirs, no colour, no proxy for loopback. */
function baseEnv(input: RealCliSettingsInput): Record<string, string> {
  const { home, tmp } = input.dirs;
  const path = [...input.pathDirs, process.env.PATH ?? ""].filter((p) => p !== "").join(delimiter);
  const env: Record<string, string> = {
    PATH: path,
    HOME: home,
    USERPROFILE: home,
    TMPDIR: tmp,
    TMP: tmp,
    TEMP: tmp,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_RUNTIME_DIR: join(tmp, "xdg-runtime"),
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    NO_UPDATE_NOTIFIER: "1",
    // Traffic to the scripted server must never be routed through a proxy.
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
  return env;
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(join(file, ".."), { recursive: true });
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`, "utf8");
}

const tomlString = (s: string): string => JSON.stringify(s);

/**
 * codex and codex-acp: `config.toml` in CODEX_HOME with a custom Responses provider.
 * - CODEX_HOME must not be under TMPDIR: codex then refuses to create its `codex-linux-sandbox`
 *   helper and, once a system bwrap exists, every sandboxed command fails. TMPDIR is set to a
 *   sibling dir for the child.
 * - `features.plugins = false` stops the plugin-marketplace `git ls-remote` and DNS lookups.
 * - `wire_api = "chat"` is rejected by current codex; only `responses` works.
 * - Default retries turn a failing provider into a ~24 s wait; the lane wants failures at once.
 */
async function codexConfig(input: RealCliSettingsInput, configDir: string): Promise<void> {
  const toml = [
    `model = ${tomlString(input.model)}`,
    `model_provider = "scripted"`,
    `approval_policy = "never"`,
    `sandbox_mode = "workspace-write"`,
    `check_for_update_on_startup = false`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[features]`,
    `plugins = false`,
    ``,
    `[model_providers.scripted]`,
    `name = "Scripted model server"`,
    `base_url = ${tomlString(`${input.serverUrl}/v1`)}`,
    `wire_api = "responses"`,
    `env_key = ${tomlString(SCRIPTED_KEY_ENV)}`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    `stream_idle_timeout_ms = 120000`,
    ``,
  ].join("\n");
  await mkdir(configDir, { recursive: true });
  await writeFile(join(configDir, "config.toml"), toml, "utf8");
}

/**
 * The Claude Code CLI's variables, shared by `claude` and the CLI `claude-agent-acp` bundles.
 * CLAUDE_CONFIG_DIR moves `.claude.json` too; CLAUDE_CODE_TMPDIR moves its `/tmp/claude-<uid>` and
 * `cc-socks` dirs. CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is the one switch that removed every
 * background connection without credentials. Retries default to 10 with backoff, so they are
 * turned off.
 */
function claudeEnv(input: RealCliSettingsInput, configDir: string): Record<string, string> {
  return {
    ...baseEnv(input),
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_TMPDIR: input.dirs.tmp,
    ANTHROPIC_BASE_URL: input.serverUrl,
    ANTHROPIC_API_KEY: input.apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_MAX_RETRIES: "0",
    BUN_ENABLE_CRASH_REPORTING: "0",
  };
}

/** `settings.json` of gemini and its fork qwen: usage statistics and telemetry off, plus `general`. */
async function geminiStyleSettings(configDir: string, general: Record<string, boolean>): Promise<void> {
  await writeJson(join(configDir, "settings.json"), {
    general,
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  });
}

type Writer = (input: RealCliSettingsInput) => Promise<RealCliSettings>;

/** codex and codex-acp: the same CODEX_HOME and provider; only the protocol arguments differ. */
function codexWriter(args: string[]): Writer {
  return async (input) => {
    const configDir = join(input.dirs.home, ".codex");
    await codexConfig(input, configDir);
    const env = { ...baseEnv(input), CODEX_HOME: configDir, [SCRIPTED_KEY_ENV]: input.apiKey };
    return { env, args: [...args], configDir };
  };
}

const writers: Record<RealCliName, Writer> = {
  codex: codexWriter(["app-server"]),
  "codex-acp": codexWriter([]),

  /** claude: everything through env (`claudeEnv`). */
  async claude(input) {
    const configDir = join(input.dirs.home, ".claude");
    await mkdir(configDir, { recursive: true });
    const env = claudeEnv(input, configDir);
    const args = [
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
      // Without --verbose, stream-json output is refused.
      "--verbose",
      "--model",
      input.model,
      // Load no user/project/local settings files: the run sees only what the lane passes.
      "--setting-sources",
      "",
    ];
    return { env, args, configDir };
  },

  /**
   * claude-agent-acp: the Claude Code CLI it bundles (through its Agent SDK) reads the same env as
   * `claude` above. As root that CLI refuses to run unless IS_SANDBOX=1 (the `claudeAcp()` preset
   * sets it too). The adapter takes no arguments.
   */
  async "claude-agent-acp"(input) {
    const configDir = join(input.dirs.home, ".claude");
    await mkdir(configDir, { recursive: true });
    const env: Record<string, string> = { ...claudeEnv(input, configDir), ANTHROPIC_MODEL: input.model };
    if (typeof process.getuid === "function" && process.getuid() === 0) env.IS_SANDBOX = "1";
    return { env, args: [], configDir };
  },

  /**
   * gemini: GOOGLE_GEMINI_BASE_URL + GEMINI_API_KEY select the `gateway` auth type. Without
   * GEMINI_CLI_NO_RELAUNCH the wrapper re-spawns itself (and then ignores SIGTERM).
   */
  async gemini(input) {
    const configDir = join(input.dirs.home, ".gemini");
    await geminiStyleSettings(configDir, { enableAutoUpdate: false, enableAutoUpdateNotification: false });
    const env = {
      ...baseEnv(input),
      GEMINI_CLI_HOME: input.dirs.home,
      GOOGLE_GEMINI_BASE_URL: input.serverUrl,
      GEMINI_API_KEY: input.apiKey,
      GEMINI_CLI_NO_RELAUNCH: "true",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    };
    return { env, args: ["--acp", "--model", input.model], configDir };
  },

  /** qwen: OpenAI-compatible env; no `authenticate` call needed. */
  async qwen(input) {
    const configDir = join(input.dirs.home, ".qwen");
    await geminiStyleSettings(configDir, { disableAutoUpdate: true, disableUpdateNag: true });
    const env = {
      ...baseEnv(input),
      OPENAI_API_KEY: input.apiKey,
      OPENAI_BASE_URL: `${input.serverUrl}/v1`,
      OPENAI_MODEL: input.model,
      QWEN_CODE_NO_RELAUNCH: "true",
    };
    return { env, args: ["--acp"], configDir };
  },

  /** copilot: BYOK provider through env; COPILOT_OFFLINE turns off login, telemetry and auto-update. */
  async copilot(input) {
    const configDir = join(input.dirs.home, ".copilot");
    await mkdir(configDir, { recursive: true });
    const env = {
      ...baseEnv(input),
      COPILOT_HOME: configDir,
      COPILOT_OFFLINE: "true",
      COPILOT_AUTO_UPDATE: "false",
      COPILOT_PROVIDER_BASE_URL: `${input.serverUrl}/v1`,
      COPILOT_PROVIDER_TYPE: "openai",
      COPILOT_PROVIDER_WIRE_API: "completions",
      COPILOT_PROVIDER_API_KEY: input.apiKey,
      COPILOT_MODEL: input.model,
      USE_TGREP: "false",
    };
    return { env, args: ["--acp"], configDir };
  },

  /**
   * codebuddy: a custom model in `models.json` under CODEBUDDY_CONFIG_DIR. Telemetry adds ~3 s to a
   * default initialize; the built-in marketplace is a git clone at startup. On Node 20 loading the
   * 16 MB headless bundle alone takes several seconds (no V8 compile cache before Node 22).
   */
  async codebuddy(input) {
    const configDir = join(input.dirs.home, ".codebuddy");
    await writeJson(join(configDir, "models.json"), [
      {
        id: input.model,
        name: "Scripted model",
        vendor: "OpenAI",
        url: `${input.serverUrl}/v1/chat/completions`,
        apiKey: input.apiKey,
        supportsToolCall: true,
        maxInputTokens: 128000,
        maxOutputTokens: 4096,
      },
    ]);
    const env = {
      ...baseEnv(input),
      CODEBUDDY_CONFIG_DIR: configDir,
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      CODEBUDDY_SKIP_BUILTIN_MARKETPLACE: "1",
      CODEBUDDY_REMOTE_CONFIG_DISABLED: "1",
      CODEBUDDY_DISABLE_AUTO_MEMORY: "1",
      // Otherwise it initialises a cloud audit client for sandboxed commands and an OTel exporter.
      CODEBUDDY_SANDBOX_CLOUD_AUDIT_DISABLED: "1",
      DISABLE_GALILEO: "1",
      // No background model calls besides the conversation.
      CODEBUDDY_MEMORY_EXTRACTION_DISABLED: "1",
      CODEBUDDY_MEMORY_RELEVANCE_DISABLED: "1",
      CODEBUDDY_CODE_DISABLE_SESSION_SUMMARY: "1",
    };
    const args = ["--input-format=stream-json", "--output-format=stream-json", "--verbose", "--model", input.model];
    return { env, args, configDir };
  },

  /**
   * pi: a custom provider in `models.json` under PI_CODING_AGENT_DIR. An `apiKey` string that names
   * an env var is dereferenced, so the key is passed by variable name on purpose.
   */
  async pi(input) {
    const configDir = join(input.dirs.home, ".pi", "agent");
    await writeJson(join(configDir, "models.json"), {
      providers: {
        scripted: {
          baseUrl: `${input.serverUrl}/v1`,
          api: "openai-completions",
          apiKey: SCRIPTED_KEY_ENV,
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: input.model, name: "Scripted model", input: ["text", "image"], contextWindow: 128000, maxTokens: 8000 }],
        },
      },
    });
    const env = {
      ...baseEnv(input),
      PI_CODING_AGENT_DIR: configDir,
      PI_OFFLINE: "1",
      PI_SKIP_VERSION_CHECK: "1",
      PI_TELEMETRY: "0",
      [SCRIPTED_KEY_ENV]: input.apiKey,
    };
    return { env, args: ["--mode", "rpc", "--provider", "scripted", "--model", input.model], configDir };
  },
};

/** Writes the CLI's settings into its isolated home and returns its env and base args. */
export function writeRealCliSettings(name: RealCliName, input: RealCliSettingsInput): Promise<RealCliSettings> {
  return writers[name](input);
}

/** Environment for a version probe: isolated dirs, no server. */
export function probeEnv(dirs: RealCliDirs, pathDirs: readonly string[]): Record<string, string> {
  const env = baseEnv({ dirs, serverUrl: "http://127.0.0.1:9", model: "none", apiKey: "none", pathDirs });
  return {
    ...env,
    CODEX_HOME: join(dirs.home, ".codex"),
    CLAUDE_CONFIG_DIR: join(dirs.home, ".claude"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    GEMINI_CLI_HOME: dirs.home,
    GEMINI_CLI_NO_RELAUNCH: "true",
    QWEN_CODE_NO_RELAUNCH: "true",
    COPILOT_HOME: join(dirs.home, ".copilot"),
    COPILOT_OFFLINE: "true",
    COPILOT_AUTO_UPDATE: "false",
    CODEBUDDY_CONFIG_DIR: join(dirs.home, ".codebuddy"),
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    PI_CODING_AGENT_DIR: join(dirs.home, ".pi", "agent"),
    PI_OFFLINE: "1",
  };
}
