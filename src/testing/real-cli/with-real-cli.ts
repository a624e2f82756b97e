/**
 * `withRealCli`: one isolated run of a real provider CLI against the scripted model server.
 * Everything it creates — the server, a temporary root holding the CLI's home, temp dir and
 * workspace, and every process spawned through the context — is torn down on every ending.
 */
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildChildEnv } from "../../process/index.js";
import { startModelServer, type ModelScript, type ModelServer } from "../model-server/index.js";
import { realCliAvailability } from "./availability.js";
import { CliProcess } from "./cli-process.js";
import { spawnJsonRpcCli, type JsonRpcCli, type JsonRpcCliOptions } from "./json-rpc.js";
import { realCliSpec, type RealCliName, type RealCliSpec } from "./registry.js";
import { writeRealCliSettings, type RealCliDirs } from "./settings.js";

/** The scripted model server as the lane uses it. */
export type RealCliModelServer = ModelServer;

/** The script accepted by the scripted model server. */
export type RealCliScript = ModelScript;

/** Options of {@link withRealCli}. */
export interface WithRealCliOptions {
  /** Model id configured in the CLI (default: the registry's unknown-to-the-CLI id). */
  readonly model?: string;
  /** Port for the model server (default: an ephemeral port). */
  readonly port?: number;
  /** Dummy key written into the CLI's settings. */
  readonly apiKey?: string;
}

/** Options of {@link RealCliContext.spawn}. */
export interface RealCliSpawnOptions {
  /** Arguments appended after the base args. */
  readonly extraArgs?: readonly string[];
  /** Replace the base args entirely (the executable prefix is kept). */
  readonly args?: readonly string[];
  /** Working directory (default: the workspace). */
  readonly cwd?: string;
  /** Variables added to (or, with `undefined`, removed from) the CLI env. */
  readonly env?: Record<string, string | undefined>;
}

/** What {@link withRealCli} hands to its callback. */
export interface RealCliContext {
  readonly cli: RealCliName;
  readonly spec: RealCliSpec;
  /** The scripted model server the CLI is pointed at; `server.requests` is what the CLI sent. */
  readonly server: RealCliModelServer;
  /** The temporary root holding `home`, `tmp` and `workspace`; removed afterwards. */
  readonly root: string;
  /** The CLI's isolated HOME. */
  readonly home: string;
  /** The CLI's own config/state dir inside `home` (CODEX_HOME, CLAUDE_CONFIG_DIR, ...). */
  readonly configDir: string;
  /** The CLI's TMPDIR (a sibling of `home`). */
  readonly tmp: string;
  /** An empty working directory for the CLI. */
  readonly workspace: string;
  /** The complete environment the CLI is spawned with: the scrubbed allowlist plus the CLI's settings. */
  readonly env: Record<string, string>;
  /** What to spawn: the native binary, or Node for JavaScript CLIs. */
  readonly executable: string;
  /** Base args: the executable prefix (script path for JavaScript CLIs), then the protocol-mode args. */
  readonly args: readonly string[];
  /** The CLI's own entry file. */
  readonly entry: string;
  /** Model id the CLI was configured with. */
  readonly model: string;
  /** What the CLI's version command printed. */
  readonly version: string;
  /** Spawns the CLI in its own process group; it is stopped automatically when the run ends. */
  spawn(options?: RealCliSpawnOptions): Promise<CliProcess>;
  /** Like {@link spawn}, with the library's JSON-RPC peer on stdio (codex app-server, ACP agents). */
  spawnJsonRpc(rpc: JsonRpcCliOptions, options?: RealCliSpawnOptions): Promise<JsonRpcCli>;
}

/** Thrown when the CLI cannot run here; `reason` says why. */
export class RealCliUnavailableError extends Error {
  constructor(
    readonly cli: RealCliName,
    readonly reason: string,
  ) {
    super(`real CLI ${cli} is unavailable: ${reason}`);
    this.name = "RealCliUnavailableError";
  }
}

/**
 * Starts the scripted model server with `script` (or with the script `script(dirs)` returns, for
 * scripts that name absolute paths in the workspace), prepares an isolated home, temp dir and
 * workspace for CLI `name`, writes the settings that point it at the server (telemetry and
 * auto-update off), calls `fn`, and cleans everything up however `fn` ends.
 *
 * @example
 * await withRealCli("codex", { turns: [{ reply: { text: "hi" } }] }, async (ctx) => {
 *   const proc = ctx.spawn();            // `codex app-server` speaking JSON-RPC on stdio
 *   // ... drive it, then assert on ctx.server.requests
 * });
 */
export async function withRealCli<T>(
  name: RealCliName,
  script: RealCliScript | ((dirs: RealCliDirs) => RealCliScript),
  fn: (ctx: RealCliContext) => Promise<T>,
  options: WithRealCliOptions = {},
): Promise<T> {
  const availability = realCliAvailability(name);
  if (!availability.available) throw new RealCliUnavailableError(name, availability.reason);
  const spec = realCliSpec(name);
  const located = availability.located;

  const processes: CliProcess[] = [];
  let server: RealCliModelServer | undefined;
  let root: string | undefined;
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    // realpath: CLIs report resolved paths (macOS /tmp is a symlink).
    root = await realpath(await mkdtemp(join(tmpdir(), `agent-adaptor-real-cli-${name}-`)));
    const dirs: RealCliDirs = { home: join(root, "home"), tmp: join(root, "tmp"), workspace: join(root, "workspace") };
    for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
    const resolvedScript = typeof script === "function" ? script(dirs) : script;
    server = await startModelServer({
      script: resolvedScript,
      ...(options.port === undefined ? {} : { port: options.port }),
    });
    const model = options.model ?? spec.defaultModel;
    const settings = await writeRealCliSettings(name, {
      dirs,
      serverUrl: server.url.replace(/\/+$/, ""),
      model,
      apiKey: options.apiKey ?? "sk-scripted-dummy",
      pathDirs: located.pathDirs,
    });
    const baseArgs = [...located.prefixArgs, ...settings.args];
    await mkdir(settings.env.XDG_RUNTIME_DIR ?? join(dirs.tmp, "xdg-runtime"), { recursive: true, mode: 0o700 });
    const env = buildChildEnv(process.env, { env: settings.env });
    const spawnOptions = (options: RealCliSpawnOptions) => ({
      command: located.command,
      args: [...(options.args ? [...located.prefixArgs, ...options.args] : baseArgs), ...(options.extraArgs ?? [])],
      cwd: options.cwd ?? dirs.workspace,
      // Overrides win; `undefined` removes a variable (it is not re-inherited).
      env: { ...env, ...(options.env ?? {}) },
      label: name,
    });
    const ctx: RealCliContext = {
      cli: name,
      spec,
      server,
      root,
      home: dirs.home,
      configDir: settings.configDir,
      tmp: dirs.tmp,
      workspace: dirs.workspace,
      env,
      executable: located.command,
      args: baseArgs,
      entry: located.entry,
      model,
      version: availability.version,
      async spawn(options = {}) {
        const proc = await CliProcess.spawn(spawnOptions(options));
        processes.push(proc);
        return proc;
      },
      async spawnJsonRpc(rpc, options = {}) {
        const cli = await spawnJsonRpcCli(spawnOptions(options), rpc);
        processes.push(cli.process);
        return cli;
      },
    };
    outcome = { ok: true, value: await fn(ctx) };
  } catch (error) {
    outcome = { ok: false, error };
  }

  const cleanupErrors = await cleanUp(processes, server, root);
  if (!outcome.ok) throw outcome.error;
  if (cleanupErrors.length > 0) throw cleanupErrors[0];
  return outcome.value;
}

/** Stop every process, close the server and remove the scratch root; returns what failed. */
async function cleanUp(processes: CliProcess[], server: RealCliModelServer | undefined, root: string | undefined): Promise<unknown[]> {
  const cleanupErrors: unknown[] = [];
  await Promise.all(processes.map((p) => p.stop().catch((e: unknown) => cleanupErrors.push(e))));
  if (server) await server.close().catch((e: unknown) => cleanupErrors.push(e));
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 5 }).catch((e: unknown) => cleanupErrors.push(e));
  return cleanupErrors;
}
