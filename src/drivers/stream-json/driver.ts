/**
 * The Driver over a stream-json dialect: static descriptor, config validation, inspection through
 * `initialize`, preparation of one unbound standby when provably no conversation exists, runs, and
 * reaping of every process on `close()`.
 */
import type { Descriptor, Driver, InspectResponse, PrepareResponse } from "../../driver/types.js";
import type { ProcessStats } from "../../driver/kit/processes.js";
import { secretEnvValues } from "../../redact/redact.js";
import { mcpProblems } from "./argv.js";
import { configFingerprint, STREAM_JSON_CONFIG_SCHEMA, validateStreamJsonConfig, validateStreamJsonPolicy, type StreamJsonDriverConfig } from "./config.js";
import type { StreamJsonDialect } from "./dialect.js";
import { inspectTransient, observeProcess, startFailure } from "./inspect.js";
import { Launcher } from "./launcher.js";
import type { StreamJsonProcess } from "./process.js";
import { runTurn } from "./run.js";
import { listSessionFiles, newFiles } from "./sessions.js";
import { StreamJsonStandby, StreamJsonWriter } from "./standby.js";

/** A stream-json driver, plus the processes it owns (for diagnostics and tests). */
export interface StreamJsonDriver extends Driver {
  /** Pids of CLI processes this driver started that are not yet reaped (`processes().live`). */
  livePids(): number[];
  /** The CLI processes this driver owns now and how many it started. */
  processes(): ProcessStats;
}

export function createStreamJsonDriver(dialect: StreamJsonDialect, config: StreamJsonDriverConfig): StreamJsonDriver {
  const captured: StreamJsonDriverConfig = structuredClone(config ?? {});
  // Fail at construction; core calls validateConfig() again before every verb.
  validateStreamJsonConfig(dialect.id, captured);
  let launcher: Launcher | undefined;
  const owner = {};
  const getLauncher = () => (launcher ??= new Launcher(dialect, captured, captured.executable ?? dialect.defaultExecutable()));
  const descriptor: Descriptor = {
    id: dialect.id,
    name: dialect.name,
    transport: dialect.transport,
    inputs: structuredClone(dialect.inputs),
    features: { ...dialect.features },
    configSchema: STREAM_JSON_CONFIG_SCHEMA,
  };

  const driver: StreamJsonDriver = {
    descriptor: () => structuredClone(descriptor),

    validateConfig() {
      validateStreamJsonConfig(dialect.id, captured);
    },

    validatePolicy(policy) {
      validateStreamJsonPolicy(dialect.id, policy);
    },

    fingerprint() {
      return configFingerprint(dialect.id, getLauncher().executable, captured);
    },

    /** The config's model and effort; core folds them under the call's (see `Driver.defaults`). */
    defaults() {
      return { ...(captured.model !== undefined ? { model: captured.model } : {}), ...(captured.effort !== undefined ? { effort: captured.effort } : {}) };
    },

    secrets() {
      return [...secretEnvValues(captured.env, [captured.provider?.apiKeyEnv]), ...(launcher?.secrets ?? [])];
    },

    inspect(request, signal) {
      return inspectTransient(getLauncher(), request, signal);
    },

    async prepare(request, signal): Promise<PrepareResponse> {
      signal.throwIfAborted();
      const l = getLauncher();
      // A process whose command line could not carry the MCP servers is never kept.
      if (mcpProblems(request.resources.mcp).length > 0) return { inspection: await inspectTransient(l, request, signal), process: "transient" };
      const configDir = l.configDir();
      const before = configDir === undefined ? undefined : await listSessionFiles(configDir);
      let proc: StreamJsonProcess;
      try {
        proc = await l.start(request.workspace, {
          ...(request.model !== undefined ? { model: request.model } : {}),
          ...(request.effort !== undefined ? { effort: request.effort } : {}),
          policy: request.policy,
          mcp: request.resources.mcp,
        });
      } catch (error) {
        return { inspection: startFailure(error), process: "transient" };
      }
      let keep = false;
      try {
        const inspection: InspectResponse = await observeProcess(l, proc, signal, request.resources.instructions, true);
        // Ready only when provable: the CLI answered initialize, is still running, and no
        // session transcript appeared since it started.
        const answered = inspection.environment.status === "observed";
        const created = configDir === undefined || before === undefined ? undefined : newFiles(before, await listSessionFiles(configDir));
        signal.throwIfAborted();
        if (answered && proc.alive && created !== undefined && created.length === 0) {
          keep = true;
          return { inspection, process: "ready", standby: new StreamJsonStandby(proc, owner) };
        }
        return { inspection, process: "transient" };
      } finally {
        if (!keep) await l.retire(proc, 1_000);
      }
    },

    canUseStandby(use, standby) {
      // A warm writer is in its session already: it serves that session's next turn, not a fork.
      if (standby instanceof StreamJsonWriter) return use.thread?.providerSessionId === standby.session && use.thread.fork !== true;
      // A session to resume or fork is chosen at spawn (`--resume`, `--fork-session`), so an
      // unbound process serves only a run that opens a new session.
      return standby instanceof StreamJsonStandby && use.thread?.providerSessionId === undefined;
    },

    run(request, sink, signal) {
      return runTurn(getLauncher(), owner, request, sink, signal);
    },

    livePids() {
      return launcher?.processes().live ?? [];
    },

    processes() {
      return launcher?.processes() ?? { live: [], started: 0 };
    },

    async close() {
      await launcher?.closeAll();
    },
  };
  return driver;
}
