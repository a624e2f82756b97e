/**
 * The Driver over a stream-json dialect: static descriptor, config validation, inspection through
 * `initialize`, preparation of one unbound standby when provably no conversation exists, runs, and
 * reaping of every process on `close()`.
 */
import type { Descriptor, Driver } from "../../driver/types.js";
import type { ProcessStats } from "../../driver/kit/processes.js";
import { secretEnvValues } from "../../redact/redact.js";
import { configCompatibility, configFingerprint, STREAM_JSON_CONFIG_SCHEMA, validateStreamJsonConfig, validateStreamJsonPolicy, type StreamJsonDriverConfig } from "./config.js";
import type { StreamJsonDialect } from "./dialect.js";
import { inspectTransient } from "./inspect.js";
import { Launcher } from "./launcher.js";
import { prepareStandby } from "./prepare.js";
import { runTurn } from "./run.js";
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
  const descriptor = descriptorOf(dialect);

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

    compatibility() {
      return configCompatibility(captured);
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

    async prepare(request, signal) {
      return prepareStandby(getLauncher(), owner, request, signal);
    },

    canUseStandby(use, standby) {
      // `--json-schema` is fixed at spawn: a structured-output run starts its own process.
      if (use.outputSchema !== undefined) return false;
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

/** The dialect's static descriptor. */
function descriptorOf(dialect: StreamJsonDialect): Descriptor {
  return {
    id: dialect.id,
    name: dialect.name,
    transport: dialect.transport,
    inputs: structuredClone(dialect.inputs),
    features: { ...dialect.features },
    resources: structuredClone(dialect.resources),
    configSchema: STREAM_JSON_CONFIG_SCHEMA,
  };
}
