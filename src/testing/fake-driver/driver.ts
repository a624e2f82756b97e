/**
 * A scriptable fake driver for hosts' own tests and for core's. With `process: true` each run
 * (and each standby) is a real `node` child speaking NDJSON, so cancellation, reaping and
 * backpressure are exercised for real.
 */
import { readFile } from "node:fs/promises";
import type { Descriptor, Driver, ResourceSupport, EventSink, HostToolsEndpoint, InspectResponse, PrepareResponse, ResolvedInput, RunRequest, RunResponse, StandbyHandle, StandbyUse } from "../../driver/types.js";
import { malformedFrameCode } from "../../driver/malformed-frames.js";
import { ProviderError } from "../../errors/index.js";
import type { Evidence } from "../../inspect/types.js";
import { readJsonLineBatches, spawnProcess, writeJsonLine, type ProcessHandle } from "../../process/index.js";
import { TextAccumulator } from "../../events/text-accumulator.js";
import { traceEnv } from "../../driver/kit/env.js";
import { FAKE_CHILD_SOURCE } from "./child-source.js";
import { deltaEvent, type FakeRunScript, type FakeStep } from "./script.js";
import { FakeHostToolsClient } from "./host-tools.js";

export interface FakeDriverOptions {
  id?: string;
  /** The script of every run, or a function choosing one per prompt. Default: reply "ok". */
  script?: FakeRunScript | ((prompt: string) => FakeRunScript);
  /** Run each script inside a real child process. */
  process?: boolean;
  /** What `prepare()` proves. Default `"transient"`; `"ready"` keeps a standby (a real child with `process`). */
  prepare?: PrepareResponse["process"];
  /** Override inspection panels (the default observes environment and models). */
  inspect?: Partial<InspectResponse> | (() => InspectResponse | Promise<InspectResponse>);
  /** Wait for an abort inside `prepare()` (to test cancellation of preparation). */
  prepareBlocks?: boolean;
  /** Native resume and fork of fake sessions (default true); thread runs emit `thread.bound`. */
  threads?: boolean;
  /** Input capabilities to declare (default: none). Each run reads its inputs' files. */
  inputs?: Descriptor["inputs"];
  /** The driver's `canUseStandby` answer (default: none, so core's default rule applies). */
  canUseStandby?: (use: StandbyUse) => boolean;
  /** The resource kinds to declare (default: every kind); the agent refuses the others before launch. */
  resources?: ResourceSupport;
}

/** Call counters and live child pids, for assertions. */
export interface FakeDriverProbe {
  calls: { inspect: number; prepare: number; run: number; close: number };
  /** Pids of children currently owned by the driver. */
  livePids(): number[];
  /** Every child pid the driver ever started. */
  startedPids(): number[];
  /** Standbys handed to runs. */
  standbysUsed: number;
  /** Every run request's prompt and thread binding, in order. */
  runs: {
    prompt: string;
    thread?: { id: string; providerSessionId?: string; fork?: boolean };
    /** Inputs as delivered, with the bytes the driver read from each `localPath` during the run. */
    inputs?: (ResolvedInput & { bytes: Buffer })[];
    /** How the run reached the host tools: an endpoint it opened, or its standby's it bound. */
    hostTools?: "opened" | "bound";
  }[];
  /** Every host-tools endpoint the driver opened (one per process that had a link), in order. */
  endpoints: HostToolsEndpoint[];
}

export type FakeDriver = Driver & { probe: FakeDriverProbe };

const FAKE_DESCRIPTOR: Descriptor = {
  id: "fake",
  name: "Fake driver",
  transport: "in-process",
  inputs: { image: { modes: [] }, file: { modes: [] }, audio: { modes: [] } },
  features: { steer: "unsupported", resume: "unsupported", fork: "unsupported", approvals: true, userQuestions: true, structuredOutput: false },
  resources: { instructions: true, hostTools: true, skills: true, mcp: { stdio: true, http: true } },
};

// long-function: the Driver object literal over the fake's shared state (live processes, probe); each method is short
export function fakeDriver(options: FakeDriverOptions = {}): FakeDriver {
  const live = new Map<number, ProcessHandle>();
  const started: number[] = [];
  const probe: FakeDriverProbe = {
    calls: { inspect: 0, prepare: 0, run: 0, close: 0 },
    livePids: () => [...live.keys()],
    startedPids: () => [...started],
    standbysUsed: 0,
    runs: [],
    endpoints: [],
  };
  let sessions = 0;
  const threads = options.threads !== false;
  const descriptor: Descriptor = {
    ...FAKE_DESCRIPTOR,
    id: options.id ?? FAKE_DESCRIPTOR.id,
    transport: options.process ? "ndjson over stdio" : "in-process",
    features: { ...FAKE_DESCRIPTOR.features, ...(threads ? { resume: "native", fork: "native" } : {}) },
    ...(options.inputs ? { inputs: structuredClone(options.inputs) } : {}),
    ...(options.resources ? { resources: structuredClone(options.resources) } : {}),
  };

  const spawnChild = async (cwd: string, traceContext?: RunRequest["traceContext"]): Promise<ProcessHandle> => {
    // A run's trace context reaches the child as a provider's would (TRACEPARENT, TRACESTATE).
    const child = await spawnProcess({ command: process.execPath, args: ["--input-type=module", "-e", FAKE_CHILD_SOURCE], cwd, env: traceEnv(traceContext) });
    live.set(child.pid, child);
    started.push(child.pid);
    void child.exited.then(() => live.delete(child.pid));
    return child;
  };

  const scriptFor = (prompt: string): FakeRunScript => {
    const script = typeof options.script === "function" ? options.script(prompt) : options.script;
    return script ?? { steps: [{ markDelivered: true }, { emit: { type: "message.completed", itemId: "item_1", text: "ok" } }], text: "ok" };
  };

  const driver: FakeDriver = {
    probe,
    descriptor: () => structuredClone(descriptor),
    validateConfig: () => undefined,
    fingerprint: () => JSON.stringify({ id: descriptor.id, process: options.process === true }),

    async inspect(_request, signal) {
      probe.calls.inspect++;
      signal.throwIfAborted();
      return defaultInspection(options);
    },

    async prepare(_request, signal) {
      probe.calls.prepare++;
      if (options.prepareBlocks) await abortedPromise(signal);
      signal.throwIfAborted();
      const inspection = await defaultInspection(options);
      const mode = options.prepare ?? "transient";
      if (mode !== "ready") return { inspection, process: mode };
      const standby = options.process ? childStandby(await spawnChild(_request.workspace)) : inProcessStandby();
      // The process serves the agent's tools: it keeps its endpoint until it retires.
      if (_request.hostTools) {
        const endpoint = await _request.hostTools.open().catch(async (error: unknown) => {
          await standby.close();
          throw error;
        });
        keepEndpoint(standby, endpoint, probe);
      }
      if (signal.aborted) {
        await standby.close();
        signal.throwIfAborted();
      }
      return { inspection, process: "ready", standby };
    },

    async run(request, sink, signal) {
      probe.calls.run++;
      const record: FakeDriverProbe["runs"][number] = { prompt: request.prompt };
      if (request.thread) record.thread = { ...request.thread };
      if (request.inputs.length > 0) {
        record.inputs = await Promise.all(request.inputs.map(async (input) => ({ ...input, bytes: await readFile(input.localPath) })));
      }
      probe.runs.push(record);
      const script = scriptFor(request.prompt);
      let sessionId: string | undefined;
      if (request.thread && threads) {
        const resumes = request.thread.providerSessionId !== undefined && !request.thread.fork;
        sessionId = resumes ? request.thread.providerSessionId! : `fake_session_${++sessions}`;
        await sink.emit({ type: "thread.bound", providerSessionId: sessionId });
      }
      const standby = request.standby as FakeStandby | undefined;
      if (standby) probe.standbysUsed++;
      const child = options.process ? standby?.child ?? (await spawnChild(request.workspace, request.traceContext)) : undefined;
      const endpoint = await runEndpoint(request, standby, record, probe);
      const hostTools = endpoint ? new FakeHostToolsClient(endpoint.view) : undefined;
      let text: string;
      try {
        text = child
          ? await runInChild(child, script, request, sink, signal, hostTools)
          : await runInProcess(script, request, sink, signal, hostTools);
      } finally {
        await hostTools?.close();
        if (endpoint?.owned) await endpoint.view.close();
      }
      const response: RunResponse = { text: script.text ?? text };
      if (script.usage) response.usage = script.usage;
      const providerSessionId = script.providerSessionId ?? sessionId;
      if (providerSessionId) response.providerSessionId = providerSessionId;
      return response;
    },

    ...(options.canUseStandby ? { canUseStandby: (use: StandbyUse) => options.canUseStandby!(structuredClone(use)) } : {}),

    async close() {
      probe.calls.close++;
      await Promise.all([...live.values()].map((child) => child.stop()));
    },
  };
  return driver;
}

type FakeStandby = StandbyHandle & { child?: ProcessHandle; endpoint?: HostToolsEndpoint };

/** A standby keeps the endpoint its prepare opened, and closes it when it retires. */
function keepEndpoint(standby: FakeStandby, endpoint: HostToolsEndpoint, probe: FakeDriverProbe): void {
  probe.endpoints.push(endpoint);
  const close = standby.close.bind(standby);
  standby.endpoint = endpoint;
  standby.close = async () => {
    await close();
    await endpoint.close();
  };
}

/**
 * The run's endpoint, as a real driver gets it: its standby's, bound to the run, or a new one
 * opened for the run's own process (owned: closed when the run's process retires).
 */
async function runEndpoint(
  request: RunRequest,
  standby: FakeStandby | undefined,
  record: FakeDriverProbe["runs"][number],
  probe: FakeDriverProbe,
): Promise<{ view: HostToolsEndpoint; owned: boolean } | undefined> {
  if (!request.hostTools) return undefined;
  if (standby?.endpoint) {
    await request.hostTools.bind(standby.endpoint);
    record.hostTools = "bound";
    return { view: standby.endpoint, owned: false };
  }
  const view = await request.hostTools.open();
  probe.endpoints.push(view);
  record.hostTools = "opened";
  return { view, owned: true };
}

function childStandby(child: ProcessHandle): FakeStandby {
  let alive = true;
  void child.exited.then(() => (alive = false));
  return { pid: child.pid, child, isAlive: () => alive, close: () => child.stop() };
}

function inProcessStandby(): FakeStandby {
  let alive = true;
  return { isAlive: () => alive, close: async () => void (alive = false) };
}

async function defaultInspection(options: FakeDriverOptions): Promise<InspectResponse> {
  if (typeof options.inspect === "function") return options.inspect();
  const evidence = (method: string): Evidence[] => [
    { transport: "fake", method, providerVersion: "0.0.0-fake", scope: "process", observedAt: new Date().toISOString(), durationMs: 0 },
  ];
  const unsupported = { status: "unsupported" as const, reason: { code: "method_unsupported", message: "the fake provider has no such method" }, evidence: [] };
  return {
    environment: { status: "observed", value: { version: "0.0.0-fake", platform: process.platform }, evidence: evidence("fake/initialize") },
    models: { status: "observed", value: [{ id: "fake-model", displayName: "Fake model", isDefault: true }], evidence: evidence("fake/models") },
    commands: unsupported,
    skills: unsupported,
    mcp: unsupported,
    quota: unsupported,
    profile: unsupported,
    configuration: unsupported,
    auth: { status: "unavailable", reason: { code: "auth_required", message: "the fake provider is not signed in" }, evidence: evidence("fake/auth") },
    ...options.inspect,
  };
}

/** What a run has reported so far. */
interface RunState {
  /** `run.completed` was announced: from here on a cancel only retires the process. */
  completed: boolean;
  /** The process's MCP client of the agent's host tools, when the run has an endpoint. */
  hostTools?: FakeHostToolsClient | undefined;
}

/**
 * The late-cancel rule of the real drivers, checked before each step: a cancel that arrives before
 * the terminal wins (even over a completion the provider already wrote); once the terminal is
 * announced, a cancel only retires the process.
 */
function cancelWins(signal: AbortSignal, state: RunState): void {
  if (!state.completed) signal.throwIfAborted();
}

/** Steps core takes part in; both modes handle them the same way. */
async function controlStep(step: FakeStep, request: RunRequest, sink: EventSink, signal: AbortSignal, state: RunState): Promise<string | undefined> {
  if ("markDelivered" in step) request.markDelivered();
  else if ("complete" in step) {
    state.completed = true;
    await sink.emit({ type: "run.completed" });
  } else if ("waitForAbort" in step && state.completed) await abortedPromise(signal).catch(() => undefined);
  else if ("approve" in step) {
    const decision = await request.approve(step.approve);
    await sink.emit({ type: "notice", level: "info", code: "fake_approval", message: `decision: ${decision.decision}` });
  } else if ("ask" in step) {
    const answer = await request.ask(step.ask);
    await sink.emit({ type: "notice", level: "info", code: "fake_answer", message: "declined" in answer ? "declined" : JSON.stringify(answer.answers) });
  } else if ("waitForAbort" in step) await abortedPromise(signal);
  else if ("hostTool" in step) await hostToolsOf(state).call(step.hostTool, sink, signal);
  else if ("listHostTools" in step) await hostToolsOf(state).list(sink);
  else if ("fail" in step) throw new ProviderError(step.fail.message, { code: step.fail.code ?? "provider_error", retryable: step.fail.retryable ?? false });
  else if ("crash" in step) throw new ProviderError(`the fake provider exited with code ${step.crash.exitCode}`);
  return undefined;
}

function hostToolsOf(state: RunState): FakeHostToolsClient {
  if (!state.hostTools) throw new ProviderError("the fake provider was given no host-tools endpoint", { retryable: false });
  return state.hostTools;
}

async function runInProcess(script: FakeRunScript, request: RunRequest, sink: EventSink, signal: AbortSignal, hostTools?: FakeHostToolsClient): Promise<string> {
  let text = new TextAccumulator();
  const state: RunState = { completed: false, hostTools };
  for (const step of script.steps) {
    cancelWins(signal, state);
    if ("emit" in step) {
      if (step.emit.type === "message.completed") text = new TextAccumulator(step.emit.text);
      await sink.emit(step.emit);
    } else if ("deltas" in step) {
      const event = deltaEvent(step.deltas);
      for (let i = 0; i < step.deltas.count; i++) {
        const accepted = sink.emit(Object.assign({}, event));
        if (accepted) await accepted;
        if (event.type === "message.delta") text.append(event.text);
      }
    } else {
      await controlStep(step, request, sink, signal, state);
    }
  }
  return text.toString();
}

async function runInChild(
  child: ProcessHandle,
  script: FakeRunScript,
  request: RunRequest,
  sink: EventSink,
  signal: AbortSignal,
  hostTools?: FakeHostToolsClient,
): Promise<string> {
  const stop = () => void child.stop();
  signal.addEventListener("abort", stop, { once: true });
  // Cancelled while the child was starting: that abort event has fired already.
  if (signal.aborted) stop();
  // A child that dies while the run waits on it (for a cancel, while retiring) ends the wait too.
  const childGone = new AbortController();
  void child.exited.then((status) => childGone.abort(new ProviderError(`the fake provider exited with code ${status.code ?? status.signal}`, { retryable: false })));
  const waitEnds = AbortSignal.any([signal, childGone.signal]);
  let text = new TextAccumulator();
  let done = false;
  const state: RunState = { completed: false, hostTools };
  try {
    await writeJsonLine(child.stdin, script);
    // A chunk's lines together, as the real drivers read them: one promise per chunk, not per line.
    for await (const batch of readJsonLineBatches(child.stdout)) {
      for (const frame of batch) {
        if (frame.kind === "error") {
          await sink.emit({ type: "notice", level: "warning", code: malformedFrameCode(frame.error.code), message: frame.error.message });
          continue;
        }
        const message = frame.value as { event?: Parameters<EventSink["emit"]>[0]; control?: FakeStep; done?: boolean };
        // Lines the child wrote before it was stopped are still buffered: they do not outrun a cancel.
        cancelWins(signal, state);
        if (message.event) {
          if (message.event.type === "message.delta") text.append(message.event.text);
          else if (message.event.type === "message.completed") text = new TextAccumulator(message.event.text);
          const accepted = sink.emit(message.event);
          if (accepted) await accepted;
        } else if (message.control) {
          // A tool call is the provider's own request: the child stays while it waits for the result.
          const until = "hostTool" in message.control || "listHostTools" in message.control ? signal : waitEnds;
          await controlStep(message.control, request, sink, until, state);
        } else if (message.done) {
          done = true;
        }
      }
    }
    const exit = await child.exited;
    // Once completion was announced, a cancel or an exit only retired the process.
    if (state.completed) return text.toString();
    signal.throwIfAborted();
    if (!done) throw new ProviderError(`the fake provider exited with code ${exit.code ?? exit.signal}`, { retryable: false });
    return text.toString();
  } finally {
    signal.removeEventListener("abort", stop);
    await child.stop();
  }
}

function abortedPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
