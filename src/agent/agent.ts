/**
 * `createAgent`: an immutable Agent over one configured driver (DESIGN §2–§3, §6–§7). It owns
 * every process its driver starts for it and reclaims them on `close()`.
 */
import { randomUUID } from "node:crypto";
import type { Driver, InspectRequest, StandbyHandle, StandbyUse } from "../driver/types.js";
import { AgentClosedError, ConfigError, DriverContractError } from "../errors/index.js";
import { mapInspection } from "../inspect/map.js";
import { createRedactor, isSecretKey, secretEnvValues } from "../redact/redact.js";
import type { DriverInfo, Inspection, PrepareReport } from "../inspect/types.js";
import { resolveInputLimits } from "../input/limits.js";
import { sweepStaleInputDirectoriesOnce } from "../input/stale.js";
import { resolveResources } from "../resources/resolve.js";
import { startExecution, type EffectiveCallOptions, type ExecutionContext, type ThreadRunHooks } from "./execute.js";
import { DEFAULT_STARTUP_TIMEOUT_MS } from "./startup-deadline.js";
import type { AgentOptions, CallOptions } from "./options.js";
import type { JsonSchema } from "../driver/vocabulary.js";
import { PrepareCoordinator, raceAbort, StandbySlot } from "./prepare.js";
import type { Result } from "../events/types.js";
import type { RunStream } from "./run-stream.js";
import { checkAgentOptions, checkCallOptions } from "./scope.js";
import { signatureOf } from "../driver/signature.js";
import { threadFingerprint } from "../thread/fingerprint.js";
import { memoryThreadStore } from "../thread/stores/memory.js";
import { resumeThreadHandle, startThreadHandle, type Thread, type ThreadHost } from "./thread.js";

export interface Agent extends AsyncDisposable {
  readonly driver: DriverInfo;
  /** A live, read-only, redacted snapshot of what the provider offers. */
  inspect(options?: { signal?: AbortSignal }): Promise<Inspection>;
  /** Optional: initialize the provider and keep one unbound standby process when the driver can. */
  prepare(options?: { signal?: AbortSignal }): Promise<PrepareReport>;
  /** `stream()` drained to its result. */
  run(prompt: string, options?: CallOptions): Promise<Result>;
  stream(prompt: string, options?: CallOptions): RunStream;
  /** Start a durable conversation; `id` may be a host-owned key such as `"tenant-42/issue-123"`. */
  startThread(options?: { id?: string; metadata?: Record<string, string> }): Promise<Thread>;
  /** Open a stored conversation; rejects with `ThreadIncompatibleError` before any process starts. */
  resumeThread(id: string): Promise<Thread>;
  /** Cancel runs and preparation, reclaim every process. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_BUFFER_SIZE = 1024;
const LEASE_TTL_MS = 30_000;

/**
 * Create an Agent. Construction-only options are fixed here; call options may be given per
 * call or as `defaults`.
 *
 * @example
 * ```ts
 * await using agent = createAgent(driver, { workspace: "/repo" });
 * const result = await agent.run("Fix the failing test");
 * ```
 */
export function createAgent(driver: Driver, options: AgentOptions = {}): Agent {
  checkAgentOptions(options);
  if (!isDriver(driver)) throw new ConfigError("createAgent needs a Driver");
  driver.validatePolicy?.({ ...options.defaults?.policy });
  const descriptor = driver.descriptor();
  const info: DriverInfo = { id: descriptor.id, name: descriptor.name, transport: descriptor.transport };
  const workspace = options.workspace ?? process.cwd();
  const resources = resolveResources(options);
  if (options.inputLimits) resolveInputLimits(options.inputLimits); // invalid limits fail at construction
  // Input copies a SIGKILLed host left behind are removed in the background, once per process.
  void sweepStaleInputDirectoriesOnce();
  const defaults = structuredClone({ ...options.defaults, onApproval: undefined, onUserInput: undefined });
  const handlers = { onApproval: options.defaults?.onApproval, onUserInput: options.defaults?.onUserInput };
  const redactor = createRedactor({ env: process.env });
  /** The driver's own keys (its `env`, the provider key) are redacted like the host's environment. */
  const registerDriverSecrets = () => {
    for (const secret of driver.secrets?.() ?? []) if (typeof secret === "string") redactor.addSecret(secret);
  };
  // So are the MCP servers' secret-looking env values and credential headers.
  for (const server of resources.mcp) {
    const values = "command" in server
      ? secretEnvValues(server.env)
      : Object.entries(server.headers ?? {}).filter(([name]) => isSecretKey(name)).map(([, value]) => value);
    for (const value of values) redactor.addSecret(value);
  }
  registerDriverSecrets();
  const slot = new StandbySlot();
  const activeRuns = new Set<{ cancel(reason: unknown): void; settled: Promise<void> }>();
  const activeInspections = new Set<AbortController>();
  let closing: Promise<void> | undefined;
  const ownsStore = options.threadStore === undefined;
  const store = options.threadStore ?? memoryThreadStore();

  /** A driver's error may quote a key; the caller's own abort reason is handed back as it was. */
  const redactedUnlessReason = (error: unknown, signal: AbortSignal | undefined): unknown =>
    signal?.aborted && error === signal.reason ? error : redactor.redactValue(error);

  const assertOpen = () => {
    if (closing) throw new AgentClosedError();
  };

  /** The call's settings over the defaults, copied now: the caller may reuse its arrays and objects. */
  const effective = (call: CallOptions = {}): EffectiveCallOptions => {
    const { signal: _signal, ...rest } = call;
    const merged: EffectiveCallOptions = { ...defaults, ...handlers, ...rest, policy: { ...defaults.policy, ...rest.policy } };
    if (rest.inputs !== undefined) merged.inputs = [...rest.inputs];
    if (rest.metadata !== undefined) merged.metadata = { ...rest.metadata };
    if (rest.outputSchema !== undefined) merged.outputSchema = copyOutputSchema(rest.outputSchema);
    for (const key of Object.keys(merged) as (keyof EffectiveCallOptions)[]) {
      if (merged[key] === undefined) delete merged[key];
    }
    return merged;
  };

  /** Everything that affects whether a provider process can be reused. */
  const signatureFor = (call: EffectiveCallOptions) =>
    signatureOf({
      driver: info.id,
      driverConfig: driver.fingerprint?.() ?? null,
      workspace,
      resources,
      model: call.model,
      effort: call.effort,
      policy: call.policy,
    });

  const inspectRequest = (): InspectRequest => ({ workspace, resources: structuredClone(resources) });

  const context: ExecutionContext = {
    driver,
    driverId: info.id,
    workspace,
    resources,
    events: { bufferSize: options.events?.bufferSize ?? DEFAULT_BUFFER_SIZE, overflow: options.events?.overflow ?? "block" },
    redactor,
    inputs: {
      capabilities: structuredClone(descriptor.inputs),
      ...(options.inputLimits ? { limits: { ...options.inputLimits } } : {}),
      ...(options.onInputDiagnostic ? { onDiagnostic: options.onInputDiagnostic } : {}),
    },
    structuredOutput: descriptor.features.structuredOutput,
    startupTimeoutMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
    claimStandby: (call, thread) => {
      const use: StandbyUse = { policy: structuredClone(call.policy) };
      if (thread) use.thread = { ...thread };
      if (call.model !== undefined) use.model = call.model;
      if (call.effort !== undefined) use.effort = call.effort;
      return slot.claim(signatureFor(call), (standby) => standbyServes(driver, use, standby));
    },
    track: (run) => {
      activeRuns.add(run);
      return () => activeRuns.delete(run);
    },
  };

  const coordinator = new PrepareCoordinator(slot, async (signal) => {
    assertOpen();
    driver.validateConfig();
    registerDriverSecrets();
    const call = effective();
    driver.validatePolicy?.(call.policy);
    const signature = signatureFor(call);
    const request = { ...inspectRequest(), policy: call.policy, signature } as Parameters<Driver["prepare"]>[0];
    if (call.model !== undefined) request.model = call.model;
    if (call.effort !== undefined) request.effort = call.effort;
    const response = await driver.prepare(request, signal);
    const standby: StandbyHandle | undefined = response?.standby;
    try {
      if (response?.process !== "unsupported" && response?.process !== "transient" && response?.process !== "ready") {
        throw new DriverContractError(info.id, "prepare returned an unknown process state");
      }
      if ((response.process === "ready") !== (standby !== undefined)) {
        throw new DriverContractError(info.id, `prepare reported process "${response.process}" ${standby ? "with" : "without"} a standby`);
      }
      signal.throwIfAborted();
      assertOpen();
      const report: PrepareReport = { inspection: mapInspection(info, response.inspection, redactor), process: response.process };
      if (standby) await slot.put(signature, standby);
      return standby ? { report, standby } : { report };
    } catch (error) {
      await standby?.close();
      throw error;
    }
  });

  /** The single entry to execution, for agent and thread runs alike. */
  const startChecked = (prompt: string, call: CallOptions | undefined, hooks?: ThreadRunHooks): RunStream => {
    assertOpen();
    if (typeof prompt !== "string") throw new ConfigError("prompt must be a string");
    checkCallOptions(call);
    driver.validateConfig();
    registerDriverSecrets();
    const settings = effective(call);
    driver.validatePolicy?.(settings.policy);
    return startExecution(context, prompt, settings, call?.signal, hooks);
  };

  const threadHost: ThreadHost = {
    store,
    driverId: info.id,
    workspace,
    fingerprint: threadFingerprint(driver, info.id, workspace, resources),
    forkSupported: descriptor.features.fork === "native",
    instanceId: `agent_${process.pid}_${randomUUID()}`,
    leaseTtlMs: LEASE_TTL_MS,
    start: startChecked,
    assertOpen,
  };

  const agent: Agent = {
    driver: { ...info },

    async inspect(call = {}) {
      assertOpen();
      call.signal?.throwIfAborted();
      driver.validateConfig();
      registerDriverSecrets();
      const controller = new AbortController();
      const stop = () => controller.abort(call.signal?.reason);
      call.signal?.addEventListener("abort", stop, { once: true });
      activeInspections.add(controller);
      try {
        const response = await raceAbort(driver.inspect(inspectRequest(), controller.signal), call.signal);
        assertOpen();
        return mapInspection(info, response, redactor);
      } catch (error) {
        throw redactedUnlessReason(error, call.signal);
      } finally {
        activeInspections.delete(controller);
        call.signal?.removeEventListener("abort", stop);
      }
    },

    async prepare(call = {}) {
      assertOpen();
      return coordinator.prepare(call.signal).catch((error: unknown) => {
        throw redactedUnlessReason(error, call.signal);
      });
    },

    stream(prompt, call) {
      return startChecked(prompt, call);
    },

    startThread(threadOptions) {
      return startThreadHandle(threadHost, threadOptions);
    },

    resumeThread(id) {
      return resumeThreadHandle(threadHost, id);
    },

    async run(prompt, call) {
      const stream = agent.stream(prompt, call);
      for await (const _event of stream) {
        // Draining is what lets the run make progress under the `block` overflow policy.
      }
      return stream.result;
    },

    close() {
      closing ??= (async () => {
        const closed = new AgentClosedError("the agent was closed");
        coordinator.abort(closed);
        for (const controller of activeInspections) controller.abort(closed);
        const runs = [...activeRuns];
        for (const run of runs) run.cancel("the agent was closed");
        await Promise.allSettled(runs.map((run) => run.settled));
        await slot.clear();
        await driver.close();
        if (ownsStore) await store.close();
      })();
      return closing;
    },

    [Symbol.asyncDispose]() {
      return agent.close();
    },
  };
  return agent;
}

/** The driver's answer, or by default: an unbound process serves only runs that open a new session. */
function standbyServes(driver: Driver, use: StandbyUse, standby: StandbyHandle): boolean {
  if (driver.canUseStandby) return driver.canUseStandby(use, standby) === true;
  return use.thread?.providerSessionId === undefined;
}

function copyOutputSchema(schema: JsonSchema): JsonSchema {
  try {
    return structuredClone(schema);
  } catch {
    throw new ConfigError("outputSchema must be a JSON Schema object");
  }
}

function isDriver(value: unknown): value is Driver {
  const d = value as Partial<Driver> | null;
  return (
    typeof d === "object" && d !== null &&
    typeof d.descriptor === "function" && typeof d.validateConfig === "function" &&
    typeof d.inspect === "function" && typeof d.prepare === "function" &&
    typeof d.run === "function" && typeof d.close === "function"
  );
}
