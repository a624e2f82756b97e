/**
 * The provider CLIs the real-CLI lane knows: which npm package carries each one, how its
 * executable is found in `node_modules`, how to ask its version, which machine protocol it
 * speaks and which model-API dialect it sends to the scripted model server.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ModelDialect } from "../model-server/index.js";
import { fileInPackage, findPackageDir, isMuslLinux, supportedArch } from "./locate.js";

/** Names of the CLIs the lane can drive. */
export type RealCliName = "codex" | "claude" | "gemini" | "qwen" | "copilot" | "codex-acp" | "claude-agent-acp" | "codebuddy" | "pi";

/** Every known CLI name, in a stable order. */
export const REAL_CLI_NAMES: readonly RealCliName[] = [
  "codex",
  "claude",
  "gemini",
  "qwen",
  "copilot",
  "codex-acp",
  "claude-agent-acp",
  "codebuddy",
  "pi",
];

/** The machine protocol a CLI is driven through (what its base args select). */
export type RealCliProtocol =
  | "codex-app-server"
  | "claude-stream-json"
  | "codebuddy-stream-json"
  | "acp"
  | "pi-rpc";

/** How the executable is started. */
export interface LocatedExecutable {
  /** What to spawn: a native binary, or the Node binary for JavaScript CLIs. */
  readonly command: string;
  /** Arguments that come before any CLI argument (the script path for JavaScript CLIs). */
  readonly prefixArgs: readonly string[];
  /** The CLI's own entry file (native binary or JavaScript entry), for messages. */
  readonly entry: string;
  /** Directories the CLI expects on PATH (e.g. codex's bundled ripgrep). */
  readonly pathDirs: readonly string[];
}

/** One known CLI. */
export interface RealCliSpec {
  readonly name: RealCliName;
  /** npm package that carries the CLI (the one a project installs). */
  readonly packageName: string;
  readonly protocol: RealCliProtocol;
  /** The model API the CLI calls, in the scripted model server's dialect names. */
  readonly dialect: ModelDialect;
  /** Model id used when the caller names none; unknown to every CLI on purpose, so none switches to model-specific behaviour. */
  readonly defaultModel: string;
  /** Arguments that print the version (or, with `versionFromPackage`, just prove the binary runs) and exit. */
  readonly versionArgs: readonly string[];
  /** The CLI has no version flag: report the package version once `versionArgs` succeed. */
  readonly versionFromPackage?: boolean;
  /** A faster entry for the version probe than {@link locate} (e.g. a wrapper with a fast path). */
  locateVersionCommand?(): LocatedExecutable | undefined;
  /** Why the package may legitimately be absent from this project's devDependencies. */
  readonly absenceNote?: string;
  /** Finds the executable; undefined when the package or its platform payload is missing. */
  locate(): LocatedExecutable | undefined;
}

function node(entry: string | undefined): LocatedExecutable | undefined {
  return entry === undefined ? undefined : { command: process.execPath, prefixArgs: [entry], entry, pathDirs: [] };
}

function native(entry: string | undefined, pathDirs: string[] = []): LocatedExecutable | undefined {
  return entry === undefined ? undefined : { command: entry, prefixArgs: [], entry, pathDirs };
}

const exe = process.platform === "win32" ? ".exe" : "";

function codexTargetTriple(): string | undefined {
  const arch = supportedArch();
  if (arch === undefined) return undefined;
  const cpu = arch === "x64" ? "x86_64" : "aarch64";
  if (process.platform === "linux") return `${cpu}-unknown-linux-musl`;
  if (process.platform === "darwin") return `${cpu}-apple-darwin`;
  if (process.platform === "win32") return `${cpu}-pc-windows-msvc`;
  return undefined;
}

/** `vendor/<triple>` dirs of the installed codex package, platform package first. */
function codexVendorDirs(): string[] {
  const triple = codexTargetTriple();
  const arch = supportedArch();
  if (triple === undefined || arch === undefined || findPackageDir("@openai/codex") === undefined) return [];
  return [findPackageDir(`@openai/codex-${process.platform}-${arch}`), findPackageDir("@openai/codex")]
    .filter((d): d is string => d !== undefined)
    .map((d) => join(d, "vendor", triple))
    .filter((d) => existsSync(d));
}

/** codex: the npm wrapper only re-spawns the native binary; spawn it directly, as the official SDK does. */
function locateCodex(): LocatedExecutable | undefined {
  for (const dir of codexVendorDirs()) {
    const binary = join(dir, "bin", `codex${exe}`);
    // codex-path holds the bundled ripgrep the CLI expects on PATH.
    if (existsSync(binary)) return native(binary, [join(dir, "codex-path")]);
  }
  return undefined;
}

/** claude: the Agent SDK ships the native Claude Code binary in a per-platform optional package. */
function locateClaude(): LocatedExecutable | undefined {
  const arch = supportedArch();
  if (arch === undefined || findPackageDir("@anthropic-ai/claude-agent-sdk") === undefined) return undefined;
  const base = `@anthropic-ai/claude-agent-sdk-${process.platform}-${arch}`;
  const candidates = isMuslLinux() ? [`${base}-musl`, base] : [base, `${base}-musl`];
  for (const pkg of candidates) {
    const binary = fileInPackage(pkg, `claude${exe}`);
    if (binary !== undefined) return native(binary);
  }
  return undefined;
}

function locateCopilot(): LocatedExecutable | undefined {
  const arch = supportedArch();
  if (arch === undefined || findPackageDir("@github/copilot") === undefined) return undefined;
  const platforms = process.platform === "linux" ? (isMuslLinux() ? ["linuxmusl", "linux"] : ["linux"]) : [process.platform];
  for (const platform of platforms) {
    const binary = fileInPackage(`@github/copilot-${platform}-${arch}`, `copilot${exe}`);
    if (binary !== undefined) return native(binary);
  }
  return undefined;
}

/**
 * codex-acp 0.16.0 ships no bubblewrap: every sandboxed command panics with "bubblewrap is
 * unavailable: no system bwrap was found on PATH and no bundled codex-resources/bwrap binary was
 * found next to the Codex executable". When @openai/codex is installed, its bundled bwrap is put
 * on PATH, where codex-acp takes it for a system bwrap.
 */
function locateCodexAcp(): LocatedExecutable | undefined {
  const arch = supportedArch();
  if (arch === undefined || findPackageDir("@zed-industries/codex-acp") === undefined) return undefined;
  const bwrapDirs = codexVendorDirs()
    .map((d) => join(d, "codex-resources"))
    .filter((d) => existsSync(join(d, "bwrap")));
  return native(fileInPackage(`@zed-industries/codex-acp-${process.platform}-${arch}`, "bin", `codex-acp${exe}`), bwrapDirs.slice(0, 1));
}

const specs: Record<RealCliName, RealCliSpec> = {
  codex: {
    name: "codex",
    packageName: "@openai/codex",
    protocol: "codex-app-server",
    dialect: "responses",
    // An unknown slug keeps plain function tools (exec_command); a catalog slug switches to code-mode tools.
    defaultModel: "scripted-model",
    versionArgs: ["--version"],
    locate: locateCodex,
  },
  claude: {
    name: "claude",
    packageName: "@anthropic-ai/claude-agent-sdk",
    protocol: "claude-stream-json",
    dialect: "anthropic",
    // Unknown ids pass through unchanged; known aliases would be remapped to the build's model names.
    defaultModel: "scripted-model",
    versionArgs: ["--version"],
    locate: locateClaude,
  },
  gemini: {
    name: "gemini",
    packageName: "@google/gemini-cli",
    protocol: "acp",
    dialect: "gemini",
    defaultModel: "scripted-model",
    versionArgs: ["--version"],
    locate: () => node(fileInPackage("@google/gemini-cli", "bundle", "gemini.js")),
  },
  qwen: {
    name: "qwen",
    packageName: "@qwen-code/qwen-code",
    protocol: "acp",
    dialect: "chat",
    defaultModel: "scripted-model",
    versionArgs: ["--version"],
    absenceNote: "its package declares engines.node >=22, so it is not a devDependency of a Node 20 project",
    locate: () => node(fileInPackage("@qwen-code/qwen-code", "cli.js")),
  },
  copilot: {
    name: "copilot",
    packageName: "@github/copilot",
    protocol: "acp",
    dialect: "chat",
    defaultModel: "scripted-model",
    versionArgs: ["--version"],
    locate: locateCopilot,
  },
  "codex-acp": {
    name: "codex-acp",
    packageName: "@zed-industries/codex-acp",
    protocol: "acp",
    dialect: "responses",
    defaultModel: "scripted-model",
    // codex-acp has no --version flag.
    versionArgs: ["--help"],
    versionFromPackage: true,
    locate: locateCodexAcp,
  },
  "claude-agent-acp": {
    name: "claude-agent-acp",
    packageName: "@zed-industries/claude-agent-acp",
    protocol: "acp",
    dialect: "anthropic",
    defaultModel: "scripted-model",
    // The adapter has no version flag; `--cli` runs the Claude Code CLI it bundles, which has one.
    versionArgs: ["--cli", "--version"],
    versionFromPackage: true,
    locate: () => node(fileInPackage("@zed-industries/claude-agent-acp", "dist", "index.js")),
  },
  codebuddy: {
    name: "codebuddy",
    packageName: "@tencent-ai/agent-sdk",
    protocol: "codebuddy-stream-json",
    dialect: "chat",
    defaultModel: "scripted-model",
    versionArgs: ["--version"],
    // The SDK runs the headless bundle directly; bin/codebuddy only switches to it.
    locate: () => node(fileInPackage("@tencent-ai/agent-sdk", "cli", "dist", "codebuddy-headless.js")),
    // bin/codebuddy answers --version without loading the 16 MB bundle.
    locateVersionCommand: () => node(fileInPackage("@tencent-ai/agent-sdk", "cli", "bin", "codebuddy")),
  },
  pi: {
    name: "pi",
    packageName: "@mariozechner/pi-coding-agent",
    protocol: "pi-rpc",
    dialect: "chat",
    defaultModel: "scripted-model",
    versionArgs: ["--version"],
    locate: () => node(fileInPackage("@mariozechner/pi-coding-agent", "dist", "cli.js")),
  },
};

/** The spec of one CLI. */
export function realCliSpec(name: RealCliName): RealCliSpec {
  return specs[name];
}

/** Whether a string names a known CLI. */
export function isRealCliName(value: string): value is RealCliName {
  return Object.hasOwn(specs, value);
}
