/**
 * `createAgent`: an immutable Agent over one configured driver (DESIGN §2–§3, §6–§7). It owns
 * every process its driver starts for it and reclaims them on `close()`.
 */
import { randomUUID } from "node:crypto";
import { driverGoals } from "./thread-goals.js";
import type { Descriptor, Driver, InspectRequest, InspectResponse, PrepareRequest, ResolvedResources, RewindRequest, StandbyHandle, StandbyUse } from "../driver/types.js";
import { AgentClosedError, ConfigError, DriverContractError } from "../errors/index.js";
import { mapInspection } from "../inspect/map.js";
import { createRedactor, type Redactor } from "../redact/redact.js";
import type { DriverInfo, Inspection, PrepareReport } from "../inspect/types.js";
import { resolveInputLimits } from "../input/limits.js";
import { sweepStaleInputDirectoriesOnce } from "../input/stale.js";
import { resolveResources } from "../resources/resolve.js";
import { mcpSecretValues } from "../resources/secrets.js";
import { checkResourceSupport, checkServiceSupport, resourceSupportOf } from "./resource-support.js";
import { startExecution, type ExecutionContext, type ThreadRunHooks } from "./execute.js";
import { HostTools } from "./host-tools.js";
import { resolveHostTools } from "./host-tool-schemas.js";
import { DEFAULT_STARTUP_TIMEOUT_MS } from "./startup-deadline.js";
import type { AgentOptions, CallOptions } from "./options.js";
import type { OutputOption, StructuredOf } from "./structured/types.js";
import { nativeOutputSchema } from "./structured/delivery.js";
import { PrepareCoordinator, raceAbort, StandbySlot } from "./prepare.js";
import { DEFAULT_THREAD_WRITER_IDLE_MS, ThreadWriters } from "./writer.js";
import type { Result } from "../events/types.js";
import { drainRun, type RunStream } from "./run-stream.js";
import { checkAgentOptions, checkCallOptions } from "./scope.js";
import { observeOperation } from "./observers.js";
import { CallSettings } from "./settings.js";
import { threadFingerprint } from "../thread/fingerprint.js";
import { memoryThreadStore } from "../thread/stores/memory.js";
import type { ThreadStore } from "../thread/store.js";
import { linkAgent } from "../driver/agent-link.js";
import { resumeThreadHandle, startThreadHandle, type Thread, type ThreadHost } from "./thread.js";

export interface Agent extends AsyncDisposable {
  readonly driver: DriverInfo;
  /** A live, read-only, redacted snapshot of what the provider offers. */
  inspect(options?: { signal?: AbortSignal }): Promise<Inspection>;
  /** Optional: initialize the provider and keep one unbound standby process when the driver can. */
  prepare(options?: { signal?: AbortSignal }): Promise<PrepareReport>;
  /** `stream()` drained to its result. */
  run<O extends OutputOption | undefined = undefined>(prompt: string, options?: CallOptions<O>): Promise<Result<StructuredOf<O>>>;
  /** `result.structured` is typed from `options.output` (see `StructuredOf`). */
  stream<O extends OutputOption | undefined = undefined>(prompt: string, options?: CallOptions<O>): RunStream<StructuredOf<O>>;
  /** Start a durable conversation; `id` may be a host-owned key such as `"tenant-42/issue-123"`. */
  startThread(options?: { id?: string; metadata?: Record<string, string> }): Promise<Thread>;
  /** Open a stored conversation; rejects with `ThreadIncompatibleError` before any process starts. */
  resumeThread(id: string): Promise<Thread>;
  /** Cancel runs and preparation, reclaim every process. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_BUFFER_SIZE = 1024;
/** Default of `AgentOptions.threadLeaseTtlMs`. */
const DEFAULT_THREAD_LEASE_TTL_MS = 30_000;

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
// long-function: the Agent's method table over one driver, store and redactor; each method is short
export function createAgent(driver: Driver, options: AgentOptions = {}): Agent {
  const { descriptor, info, workspace, tools, resources } = checkedConstruction(driver, options);
  // Input copies a SIGKILLed host left behind are removed in the background, once per process.
  void sweepStaleInputDirectoriesOnce();
  const settings = new CallSettings(driver, info.id, workspace, resources, options.defaults);
  const { redactor, registerDriverSecrets } = agentRedactor(driver, resources);
  const hostTools = new HostTools(tools, redactor);
  const slot = new StandbySlot();
  const writers = new ThreadWriters(options.threadWriterIdleMs ?? DEFAULT_THREAD_WRITER_IDLE_MS);
  const activeRuns = new Set<{ cancel(reason: unknown): void; settled: Promise<void> }>();
  const activeInspections = new Set<AbortController>();
  let closing: Promise<void> | undefined;
  const ownsStore = options.threadStore === undefined;
  const store = options.threadStore ?? memoryThreadStore();
  const assertOpen = () => {
    if (closing) throw new AgentClosedError();
  };
  /** Open, with a valid config and the driver's current secrets registered: ready to call it. */
  const ready = () => {
    assertOpen();
    driver.validateConfig();
    registerDriverSecrets();
  };
  const inspectRequest = (): InspectRequest => ({ workspace, resources: structuredClone(resources) });
  const deliversHostTools = descriptor.resources?.hostTools === true;
  const context = executionContext({ driver, descriptor, options, workspace, resources, redactor, settings, slot, writers, activeRuns, hostTools: deliversHostTools ? hostTools : undefined });
  const coordinator = new PrepareCoordinator(slot, async (signal) => {
    ready();
    const request: InspectRequest & Pick<PrepareRequest, "hostTools"> = inspectRequest();
    // A standby's process serves the agent's tools too: it keeps an endpoint, bound when a run claims it.
    if (deliversHostTools && hostTools.hasTools) request.hostTools = hostTools.standbyLink();
    return prepareStandby({ driver, info, settings, redactor, slot, request }, signal, assertOpen);
  });

  const startChecked = checkedStart({ driver, descriptor, settings, hostTools, context, assertOpen, ready });

  const threadHost: ThreadHost = {
    store, driverId: info.id, workspace, start: startChecked, assertOpen, writers,
    fingerprint: threadFingerprint(driver, info.id, workspace, resources, settings.driverDefaults(), redactor),
    forkSupported: descriptor.features.fork === "native",
    compact: descriptor.features.compact ?? "unsupported",
    goals: driverGoals({ driver, driverId: info.id, workspace, resources, redactor, ready }),
    ...(typeof driver.rewind === "function" ? { rewind: (request: RewindRequest, signal: AbortSignal) => (ready(), driver.rewind!(request, signal)) } : {}),
    instanceId: `agent_${process.pid}_${randomUUID()}`,
    leaseTtlMs: options.threadLeaseTtlMs ?? DEFAULT_THREAD_LEASE_TTL_MS,
    redactor,
  };

  const agent: Agent = {
    driver: { ...info },
    async inspect(call = {}) {
      assertOpen();
      call.signal?.throwIfAborted();
      ready();
      return observeOperation(options.observers, { operation: "inspect", driver: info.id }, async () => {
        const response = await inspectOnce(driver, inspectRequest(), activeInspections, call.signal, redactor);
        assertOpen();
        return mapInspection(info, response, redactor);
      });
    },
    async prepare(call = {}) {
      assertOpen();
      const prepared = () =>
        coordinator.prepare(call.signal).catch((error: unknown) => {
          throw redactedUnlessReason(redactor, error, call.signal);
        });
      return observeOperation(options.observers, { operation: "prepare", driver: info.id }, prepared);
    },
    stream: <O extends OutputOption | undefined>(prompt: string, call?: CallOptions<O>) => startChecked(prompt, call) as RunStream<StructuredOf<O>>,
    startThread: (threadOptions) => startThreadHandle(threadHost, threadOptions),
    resumeThread: (id) => resumeThreadHandle(threadHost, id),
    // async: a call refused synchronously by stream() rejects instead of throwing.
    run: async <O extends OutputOption | undefined>(prompt: string, call?: CallOptions<O>) => drained(agent.stream(prompt, call)),
    close() {
      closing ??= shutDown({ coordinator, activeInspections, activeRuns, slot, writers, driver, hostTools, ownedStore: ownsStore ? store : undefined });
      return closing;
    },
    [Symbol.asyncDispose]: () => agent.close(),
  };
  // For helpers beside the driver (a transcript import) that need what the Agent surface hides.
  linkAgent(agent, { driver, threadStore: store, closed: () => closing !== undefined });
  return agent;
}

/** The single entry to execution, for agent and thread runs alike: the call checked, its settings and services resolved. */
function checkedStart(agent: {
  driver: Driver;
  descriptor: Descriptor;
  settings: CallSettings;
  hostTools: HostTools;
  context: ExecutionContext;
  assertOpen(): void;
  /** Open, the driver's config valid and its secrets registered. */
  ready(): void;
}) {
  const { driver, descriptor, settings, hostTools, context } = agent;
  return (prompt: string, call: CallOptions | undefined, hooks?: ThreadRunHooks): RunStream => {
    agent.assertOpen();
    if (typeof prompt !== "string") throw new ConfigError("prompt must be a string");
    checkCallOptions(call);
    agent.ready();
    const effective = settings.effective(call);
    driver.validatePolicy?.(effective.policy);
    const services = hostTools.services(call?.services);
    // Services on a driver that cannot offer them are refused, not dropped.
    checkServiceSupport(descriptor.id, resourceSupportOf(descriptor), call?.services);
    if (services.length > 0) effective.services = services;
    return startExecution(context, prompt, effective, call?.signal, hooks);
  };
}

/** `stream()` drained to its result. */
async function drained<T>(stream: RunStream<T>): Promise<Result<T>> {
  return drainRun(stream);
}

/** Everything fixed at construction, checked before any state exists: the driver, the workspace, the host tools and resources. */
function checkedConstruction(driver: Driver, options: AgentOptions) {
  const { descriptor, info } = checkedDriver(driver, options);
  const workspace = options.workspace ?? process.cwd();
  // Host tools resolve first: their JSON Schemas are what the resources (and the identity) carry.
  const tools = resolveHostTools(options.tools, "tools");
  const resources = resolveResources({ ...options, tools: tools.map((tool) => structuredClone(tool.declaration)) });
  // What the driver does not deliver is refused now, before any process starts.
  checkResourceSupport(info.id, resourceSupportOf(descriptor), resources);
  if (options.inputLimits) resolveInputLimits(options.inputLimits); // invalid limits fail at construction
  return { descriptor, info, workspace, tools, resources };
}

/** The options and the driver checked, with its descriptor; throws `ConfigError`. */
function checkedDriver(driver: Driver, options: AgentOptions): { descriptor: Descriptor; info: DriverInfo } {
  checkAgentOptions(options);
  if (!isDriver(driver)) throw new ConfigError("createAgent needs a Driver");
  driver.validatePolicy?.({ ...options.defaults?.policy });
  const descriptor = driver.descriptor();
  return { descriptor, info: { id: descriptor.id, name: descriptor.name, transport: descriptor.transport } };
}

/** Cancel runs and preparation, reclaim every process, close the store the agent owns. */
async function shutDown(agent: {
  coordinator: PrepareCoordinator;
  activeInspections: Set<AbortController>;
  activeRuns: Set<{ cancel(reason: unknown): void; settled: Promise<void> }>;
  slot: StandbySlot;
  writers: ThreadWriters;
  driver: Driver;
  hostTools: HostTools;
  ownedStore: ThreadStore | undefined;
}): Promise<void> {
  const closed = new AgentClosedError("the agent was closed");
  agent.coordinator.abort(closed);
  for (const controller of agent.activeInspections) controller.abort(closed);
  const runs = [...agent.activeRuns];
  for (const run of runs) run.cancel("the agent was closed");
  await Promise.allSettled(runs.map((run) => run.settled));
  await agent.slot.clear();
  await agent.writers.close();
  await agent.driver.close();
  // After every process retired: no provider is left holding an endpoint.
  await agent.hostTools.close();
  await agent.ownedStore?.close();
}

/** The agent's redactor: the host's environment, the MCP servers' secrets and the driver's own. */
function agentRedactor(driver: Driver, resources: ResolvedResources): { redactor: Redactor; registerDriverSecrets(): void } {
  const redactor = createRedactor({ env: process.env });
  /** The driver's own keys (its `env`, the provider key) are redacted like the host's environment. */
  const registerDriverSecrets = () => {
    for (const secret of driver.secrets?.() ?? []) if (typeof secret === "string") redactor.addSecret(secret);
  };
  // So is every MCP env and header value, whatever its name (src/resources/secrets.ts).
  for (const value of mcpSecretValues(resources.mcp)) redactor.addSecret(value);
  registerDriverSecrets();
  return { redactor, registerDriverSecrets };
}

/** A driver's error may quote a key; the caller's own abort reason is handed back as it was. */
function redactedUnlessReason(redactor: Redactor, error: unknown, signal: AbortSignal | undefined): unknown {
  return signal?.aborted && error === signal.reason ? error : redactor.redactValue(error);
}

/** What the execution path needs from the agent. */
function executionContext(agent: {
  driver: Driver;
  descriptor: Descriptor;
  options: AgentOptions;
  workspace: string;
  resources: ResolvedResources;
  redactor: Redactor;
  settings: CallSettings;
  slot: StandbySlot;
  writers: ThreadWriters;
  activeRuns: Set<{ cancel(reason: unknown): void; settled: Promise<void> }>;
  hostTools: HostTools | undefined;
}): ExecutionContext {
  const { driver, descriptor, options } = agent;
  return {
    driver,
    driverId: descriptor.id,
    workspace: agent.workspace,
    resources: agent.resources,
    events: { bufferSize: options.events?.bufferSize ?? DEFAULT_BUFFER_SIZE, overflow: options.events?.overflow ?? "block" },
    redactor: agent.redactor,
    inputs: {
      capabilities: structuredClone(descriptor.inputs),
      ...(options.inputLimits ? { limits: { ...options.inputLimits } } : {}),
      ...(options.onInputDiagnostic ? { onDiagnostic: options.onInputDiagnostic } : {}),
    },
    structuredOutput: descriptor.features.structuredOutput,
    startupTimeoutMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
    claimStandby: (call, thread) => {
      // Nothing kept that the run could take: no signature (a hash of its settings) to compute.
      if (agent.slot.empty && (thread === undefined || !agent.writers.has(thread.id))) return undefined;
      const use: StandbyUse = { policy: structuredClone(call.policy) };
      if (thread) use.thread = { ...thread };
      if (call.model !== undefined) use.model = call.model;
      if (call.effort !== undefined) use.effort = call.effort;
      const outputSchema = nativeOutputSchema(call.output, descriptor.features.structuredOutput);
      if (outputSchema !== undefined) use.outputSchema = outputSchema;
      const signature = agent.settings.signature(call);
      // Services need an endpoint in the process: one prepared without the agent's tools has none.
      const needsEndpoint = (call.services?.length ?? 0) > 0;
      const canServe = (standby: StandbyHandle) => (!needsEndpoint || agent.hostTools?.servesServices(standby) === true) && standbyServes(driver, use, standby);
      // The thread's warm writer first; one that cannot serve this run is retired (writer.ts).
      const writer = thread ? agent.writers.take(thread.id, signature, canServe) : undefined;
      return writer ?? agent.slot.claim(signature, canServe);
    },
    writers: {
      get enabled() {
        return agent.writers.enabled;
      },
      keep: (threadId, call, writer, served) => agent.writers.keep(threadId, writer, { ...served, signature: agent.settings.signature(call) }),
    },
    track: (run) => {
      agent.activeRuns.add(run);
      return () => agent.activeRuns.delete(run);
    },
    ...(agent.hostTools ? { hostTools: agent.hostTools } : {}),
    ...(options.observers && options.observers.length > 0 ? { observers: [...options.observers] } : {}),
  };
}

/** One `driver.prepare()` with the default settings, checked; a ready standby goes into the slot. */
async function prepareStandby(
  agent: { driver: Driver; info: DriverInfo; settings: CallSettings; redactor: Redactor; slot: StandbySlot; request: InspectRequest & Pick<PrepareRequest, "hostTools"> },
  signal: AbortSignal,
  assertOpen: () => void,
): Promise<{ report: PrepareReport; standby?: StandbyHandle }> {
  const { driver, info } = agent;
  const call = agent.settings.effective();
  driver.validatePolicy?.(call.policy);
  const signature = agent.settings.signature(call);
  const request: PrepareRequest = { ...agent.request, policy: call.policy, signature };
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
    const report: PrepareReport = { inspection: mapInspection(info, response.inspection, agent.redactor), process: response.process };
    if (standby) await agent.slot.put(signature, standby);
    return standby ? { report, standby } : { report };
  } catch (error) {
    await standby?.close();
    throw error;
  }
}

/** One live `driver.inspect()`, cancelled by the caller's signal or the agent's close. */
async function inspectOnce(
  driver: Driver,
  request: InspectRequest,
  active: Set<AbortController>,
  signal: AbortSignal | undefined,
  redactor: Redactor,
): Promise<InspectResponse> {
  const controller = new AbortController();
  const stop = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", stop, { once: true });
  active.add(controller);
  try {
    return await raceAbort(driver.inspect(request, controller.signal), signal);
  } catch (error) {
    throw redactedUnlessReason(redactor, error, signal);
  } finally {
    active.delete(controller);
    signal?.removeEventListener("abort", stop);
  }
}

/** The driver's answer, or by default: an unbound process serves only runs that open a new session. */
function standbyServes(driver: Driver, use: StandbyUse, standby: StandbyHandle): boolean {
  if (driver.canUseStandby) return driver.canUseStandby(use, standby) === true;
  return use.thread?.providerSessionId === undefined;
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
