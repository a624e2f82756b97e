/**
 * Starts and tracks the CLI processes of one driver: the child environment (scrubbed, quietened,
 * provider credentials only here), the command line, the zero-prompt `initialize`, and the set of
 * live processes that `close()` reaps.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { DEFAULT_INITIALIZE_TIMEOUT_MS, withinInitializeTimeout } from "../../driver/initialize-timeout.js";
import { OwnedProcesses, type ProcessStats } from "../../driver/kit/processes.js";
import { traceEnv } from "../../driver/kit/env.js";
import { createRedactor, type Redactor } from "../../redact/redact.js";
import { buildArgs, commandFor, type LaunchSettings } from "./argv.js";
import { providerKey, type StreamJsonDriverConfig } from "./config.js";
import type { StreamJsonDialect } from "./dialect.js";
import { StreamJsonProcess } from "./process.js";
import { createProcessResources } from "./process-dir.js";
import type { Json } from "./wire.js";
import { mcpSecretValues } from "../../resources/secrets.js";

export class Launcher {
  readonly dialect: StreamJsonDialect;
  readonly config: StreamJsonDriverConfig;
  readonly executable: string;
  readonly redactor: Redactor;
  readonly #processes: OwnedProcesses<StreamJsonProcess>;
  readonly #secrets: string[];

  constructor(dialect: StreamJsonDialect, config: StreamJsonDriverConfig, executable: string) {
    this.dialect = dialect;
    this.config = config;
    this.executable = executable;
    this.#processes = new OwnedProcesses(dialect.id, dialect.install);
    const key = providerKey(config);
    this.#secrets = key === undefined ? [] : [key];
    // The driver's env too: the values of its secret-looking names reach the child, and the
    // driver cuts tool outputs after redacting them with this redactor.
    this.redactor = createRedactor({ env: { ...process.env, ...config.env }, secrets: this.#secrets });
  }

  /** Secrets the driver put into the child's environment. */
  get secrets(): string[] {
    return [...this.#secrets];
  }

  /** Registers a secret learned at run time (e.g. a key the CLI echoed). */
  addSecret(secret: string): void {
    if (this.#secrets.includes(secret)) return;
    this.#secrets.push(secret);
    this.redactor.addSecret(secret);
  }

  /** Literal-only redaction for model output, where secret-shaped patterns are legitimate text. */
  redactLiterals(text: string): string {
    let out = text;
    for (const secret of this.#secrets) if (secret.length >= 4) out = out.split(secret).join("[REDACTED]");
    return out;
  }

  /** The child's explicit variables: quietening defaults, config dir, provider binding, then the config's `env`. */
  childEnv(): Record<string, string | undefined> {
    const env: Record<string, string | undefined> = { ...this.dialect.defaultEnv };
    if (this.config.configDir !== undefined) env[this.dialect.configDirEnv] = this.config.configDir;
    if (this.config.provider !== undefined) Object.assign(env, this.dialect.providerEnv(this.config.provider, providerKey(this.config)));
    return { ...env, ...this.config.env };
  }

  /** Where the CLI keeps its sessions, when it can be known. */
  configDir(): string | undefined {
    const name = this.dialect.configDirEnv;
    const explicit = this.config.configDir ?? this.config.env?.[name] ?? process.env[name];
    if (explicit) return explicit;
    const home = this.config.env?.HOME ?? process.env.HOME ?? safeHomedir();
    return home ? join(home, this.dialect.defaultConfigDirName) : undefined;
  }

  /** The processes this driver started that have not been reaped, and how many it started. */
  processes(): ProcessStats {
    return this.#processes.stats();
  }

  /**
   * Starts one process with its own directory (MCP config, skills plugin) and host-tools
   * endpoint; both are released when the process has exited, or at once when it cannot start.
   */
  async start(cwd: string, launch: LaunchSettings): Promise<StreamJsonProcess> {
    const { command, prefix } = commandFor(this.executable);
    for (const value of mcpSecretValues(launch.mcp ?? [])) this.addSecret(value);
    const resources = await createProcessResources({
      mcp: launch.mcp ?? [],
      skills: launch.skills ?? [],
      ...(launch.hostTools !== undefined ? { hostTools: launch.hostTools } : {}),
      userMcpServers: this.config.userMcpServers === true && launch.inspection !== true,
    });
    try {
      return await this.#processes.open(async (track) => {
        const proc = await StreamJsonProcess.start({
          command,
          args: [...prefix, ...buildArgs(this.dialect, this.config, launch, resources.args)],
          cwd,
          env: { ...this.childEnv(), ...traceEnv(launch.traceContext) },
          inheritEnv: this.dialect.inheritEnv,
          redactor: this.redactor,
          release: resources.dispose,
          ...(resources.hostTools !== undefined ? { hostTools: resources.hostTools } : {}),
        });
        track(proc);
        return proc;
      });
    } catch (error) {
      await resources.dispose();
      throw error;
    }
  }

  /** Sends the zero-prompt `initialize` and resolves with its reply. */
  initialize(proc: StreamJsonProcess, options: { appendSystemPrompt?: string; hasPrompt?: boolean; signal?: AbortSignal }): Promise<Json> {
    const request = this.dialect.initializeRequest({
      ...(options.appendSystemPrompt === undefined ? {} : { appendSystemPrompt: options.appendSystemPrompt }),
      ...(options.hasPrompt ? { hasPrompt: true } : {}),
    });
    const timeoutMs = this.config.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
    return withinInitializeTimeout(this.dialect.name, timeoutMs, options.signal, (signal) => proc.request(request, { signal }));
  }

  /** Closes stdin and lets the CLI exit on its own for up to `graceMs`, then stops the group. */
  async retire(proc: StreamJsonProcess, graceMs = 3_000): Promise<void> {
    proc.closeInput();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([proc.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    await proc.stop();
  }

  closeAll(): Promise<void> {
    return this.#processes.close();
  }
}

function safeHomedir(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}
