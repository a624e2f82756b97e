/**
 * One ACP run: bind a session (`session/new`, or `session/resume` / `session/load` /
 * `session/fork` for a thread, only as advertised), apply model and effort through the session's
 * config options with readback, send one `session/prompt`, map its updates, answer permission
 * requests through core, and end with exactly one outcome.
 *
 * Cancellation (seed rules): every pending permission request is answered `cancelled` first,
 * then `session/cancel` is sent; a cancel sent while the prompt is active makes the run
 * cancelled even if the agent then answers `end_turn`; the run never ends before the agent's
 * response or the process's retirement. A prompt response that arrived before `session/cancel`
 * was sent is the turn's outcome: it is announced at once, and the late cancel only retires the
 * process. Every item the turn started and never finished is closed before the terminal. The process is always retired after the run, so an
 * agent's confusion after a cancel (claude-agent-acp answers the next prompt with an empty
 * `end_turn`) can never reach a later run.
 *
 * Watchdogs (idle timeout, hard cap, repeated identical tool calls) follow the same path as a
 * cancel, then fail the run with their code.
 */
import { readFile } from "node:fs/promises";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import type { ApprovalRequest } from "../../driver/vocabulary.js";
import type { EventSink, RunRequest, RunResponse } from "../../driver/types.js";
import { FeatureUnsupportedError, ProviderError } from "../../errors/index.js";
import type { ApprovalDecision, ApprovalOption, DriverEvent } from "../../events/types.js";
import { InputError } from "../../input/errors.js";
import type { AcpLoadQuirks, AcpPresetTraits, ResolvedWatchdogs } from "./config.js";
import type { AcpConnection } from "./connection.js";
import { tokenUsage, UpdateMapper } from "./events.js";
import { insideWorkspace, readablePath } from "./fs-bridge.js";
import { arr, isObject, str, stderrExcerpt, type Json } from "../../driver/json.js";

/** How long a cancelled run waits for the agent's answer before the process is retired. */
const CANCEL_GRACE_MS = 5000;
/** How long pending approvals may take to settle after a cancel. */
const APPROVAL_SETTLE_MS = 2000;

export interface AcpRunContext {
  driverId: string;
  traits: AcpPresetTraits & AcpLoadQuirks;
  watchdogs: ResolvedWatchdogs;
  /** The claimed standby, or a freshly started and initialized process. */
  acquire(request: RunRequest, signal: AbortSignal): Promise<AcpConnection>;
  /** When this driver saw each session it created or forked bound (epoch ms), for {@link AcpLoadQuirks.loadAfterCreationMinute}. */
  sessionsCreated?: Map<string, number>;
}

const MINUTE_MS = 60_000;

/**
 * How long a `session/load` must wait so that it does not fall in the wall-clock minute of the
 * session's creation (0 when it already does not, or when the creation time is unknown).
 */
export function loadDelayMs(createdAt: number | undefined, now: number): number {
  if (createdAt === undefined) return 0;
  const nextMinute = (Math.floor(createdAt / MINUTE_MS) + 1) * MINUTE_MS;
  // A small margin so that the agent's own clock reading lands past the boundary.
  return now >= nextMinute ? 0 : nextMinute - now + 250;
}

/** Quiet window after which a history replay that trails the `session/load` response is over. */
const REPLAY_QUIET_MS = 150;
/** Upper bound on waiting for a trailing replay. */
const REPLAY_MAX_MS = 3000;

/** Waits until no replayed update has arrived for {@link REPLAY_QUIET_MS} (at most {@link REPLAY_MAX_MS}). */
async function replaySettled(count: () => number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + REPLAY_MAX_MS;
  let seen = count();
  while (Date.now() < deadline) {
    await sleep(REPLAY_QUIET_MS, signal);
    const now = count();
    if (now === seen) return;
    seen = now;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortedReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

type Phase = "before_delivery" | "after_delivery";

const abortedReason = (signal: AbortSignal): unknown => signal.reason ?? new Error("aborted");

/** `initialize` capabilities the run depends on. */
export function agentCaps(init: Json): {
  image: boolean;
  audio: boolean;
  embeddedContext: boolean;
  loadSession: boolean;
  resume: boolean;
  fork: boolean;
} {
  const caps = isObject(init.agentCapabilities) ? init.agentCapabilities : {};
  const prompt = isObject(caps.promptCapabilities) ? caps.promptCapabilities : {};
  const session = isObject(caps.sessionCapabilities) ? caps.sessionCapabilities : {};
  return {
    image: prompt.image === true,
    audio: prompt.audio === true,
    embeddedContext: prompt.embeddedContext === true,
    loadSession: caps.loadSession === true,
    resume: isObject(session.resume),
    fork: isObject(session.fork),
  };
}

/** Prompt blocks: the text, then each input as the agent declared it can take it. Throws before delivery. */
export async function promptBlocks(request: Pick<RunRequest, "prompt" | "inputs">, init: Json, driverId: string): Promise<Json[]> {
  const caps = agentCaps(init);
  const blocks: Json[] = [{ type: "text", text: request.prompt }];
  for (const [index, input] of request.inputs.entries()) {
    if (input.kind === "image" || input.kind === "audio") {
      const advertised = input.kind === "image" ? caps.image : caps.audio;
      if (input.deliveryMode !== "native" || !advertised) {
        throw new InputError(
          "input_mode_unsupported",
          `the agent did not advertise promptCapabilities.${input.kind} in initialize; ${input.kind} inputs cannot be delivered`,
          { index, kind: input.kind, mediaType: input.mediaType, driver: driverId },
        );
      }
      const data = (await readFile(input.localPath)).toString("base64");
      blocks.push({ type: input.kind, data, mimeType: input.mediaType });
    } else if (input.deliveryMode === "workspace_reference") {
      blocks.push({ type: "resource_link", uri: pathToFileURL(input.localPath).href, name: input.name, mimeType: input.mediaType, size: input.size });
    } else {
      throw new InputError("input_mode_unsupported", "files are delivered as workspace references (resource_link) only", {
        index,
        kind: input.kind,
        mediaType: input.mediaType,
        driver: driverId,
      });
    }
  }
  return blocks;
}

/** Host MCP servers in ACP's `McpServer` shape. */
export function mcpServers(request: Pick<RunRequest, "resources">, init: Json): Json[] {
  const caps = isObject(init.agentCapabilities) && isObject(init.agentCapabilities.mcpCapabilities) ? init.agentCapabilities.mcpCapabilities : {};
  const out: Json[] = [];
  for (const server of request.resources.mcp) {
    if ("command" in server) {
      out.push({
        name: server.name,
        command: server.command,
        args: server.args ?? [],
        env: Object.entries(server.env ?? {}).map(([name, value]) => ({ name, value })),
      });
    } else if (caps.http === true) {
      out.push({ type: "http", name: server.name, url: server.url, headers: Object.entries(server.headers ?? {}).map(([name, value]) => ({ name, value })) });
    }
  }
  return out;
}

/** Canonical option kinds from ACP permission option kinds. */
export function approvalOptions(options: unknown): ApprovalOption[] {
  const out: ApprovalOption[] = [];
  for (const o of arr(options)) {
    if (!isObject(o)) continue;
    const id = str(o.optionId);
    if (id === undefined) continue;
    const kind = o.kind === "allow_once" ? "allow_once" : o.kind === "allow_always" ? "allow_always" : o.kind === "reject_once" || o.kind === "reject_always" ? "deny" : "other";
    out.push({ id, label: str(o.name) ?? id, kind });
  }
  return out;
}

/** The optionId answering `decision`, chosen by the offered option kinds (ids differ per agent). */
export function chooseOption(decision: ApprovalDecision, offered: unknown): string | undefined {
  const options = arr(offered).filter(isObject);
  const byKind = (kind: string) => str(options.find((o) => o.kind === kind)?.optionId);
  if (decision.decision === "deny") return byKind("reject_once") ?? byKind("reject_always");
  if (decision.scope === "session") return byKind("allow_always") ?? byKind("allow_once");
  return byKind("allow_once") ?? byKind("allow_always");
}

function approvalKind(kind: unknown): ApprovalRequest["kind"] {
  if (kind === "execute") return "command";
  if (kind === "edit" || kind === "delete" || kind === "move") return "file_change";
  return "tool";
}

// --- config options (model / effort) with readback -------------------------------------------

function optionValues(option: Json): string[] {
  const values: string[] = [];
  for (const entry of arr(option.options)) {
    if (!isObject(entry)) continue;
    const v = str(entry.value);
    if (v !== undefined) values.push(v);
    for (const inner of arr(entry.options)) if (isObject(inner) && str(inner.value) !== undefined) values.push(str(inner.value)!);
  }
  return values;
}

function findOption(options: unknown[], category: string, ids: string[]): Json | undefined {
  const list = options.filter(isObject);
  return list.find((o) => o.category === category) ?? list.find((o) => ids.includes(String(o.id)));
}

/** Runs one turn. Resolves with the response; rejects with a typed error or the abort reason. */
export async function runAcpTurn(request: RunRequest, sink: EventSink, signal: AbortSignal, context: AcpRunContext): Promise<RunResponse> {
  signal.throwIfAborted();
  const { driverId, traits, watchdogs } = context;

  let chain: Promise<void> = Promise.resolve();
  let emitFailure: unknown;
  let terminalEmitted = false;
  const emit = (event: DriverEvent): Promise<void> => {
    // What a retiring agent still says is no event of a run that has ended.
    if (terminalEmitted) return Promise.resolve();
    if (event.type === "run.completed" || event.type === "run.cancelled" || event.type === "run.failed") terminalEmitted = true;
    const next = chain.then(() => (emitFailure === undefined ? sink.emit(event) : undefined));
    chain = next.catch((error: unknown) => {
      emitFailure ??= error;
    });
    return next;
  };

  // Watchdog state.
  let lastActivity = Date.now();
  let pendingPermissions = 0;
  const signatures = new Map<string, number>();
  let tripWatchdog!: (code: string, message: string) => void;
  const watchdog = new Promise<{ code: string; message: string }>((resolve) => {
    let tripped = false;
    tripWatchdog = (code, message) => {
      if (tripped) return;
      tripped = true;
      resolve({ code, message });
    };
  });

  let configOptions: unknown[] = [];
  const mapper = new UpdateMapper(emit, traits, request.runId, {
    onConfigOptions: (options) => {
      configOptions = options;
    },
    onToolSignature: (signature) => {
      const n = (signatures.get(signature) ?? 0) + 1;
      signatures.set(signature, n);
      if (watchdogs.repeatToolLimit > 0 && n > watchdogs.repeatToolLimit) {
        tripWatchdog("repeat_tool_loop", `the agent repeated the same tool call more than ${watchdogs.repeatToolLimit} times`);
      }
    },
  });

  const connection = await context.acquire(request, signal);
  let sessionId: string | undefined;
  let delivered = false;
  let cancelling = false;
  /** Resolvers of permission requests still waiting for the host. */
  const pendingAnswers = new Set<() => void>();
  const pendingApprovals = new Set<Promise<unknown>>();
  let permissionCount = 0;

  const answerPendingCancelled = () => {
    cancelling = true;
    for (const resolve of [...pendingAnswers]) resolve();
    pendingAnswers.clear();
  };

  const unbind = connection.bind({
    onUpdate: async (params) => {
      lastActivity = Date.now();
      await mapper.handle(params);
    },
    notice: (level, code, message, count) => emit({ type: "notice", level, code, message, ...(count !== undefined ? { count } : {}), provenance: { provider: "acp" } }),
    onPermission: async (params) => {
      const cancelled = { outcome: { outcome: "cancelled" } };
      if (cancelling || signal.aborted) return cancelled;
      pendingPermissions++;
      try {
        const toolCall = isObject(params.toolCall) ? params.toolCall : {};
        const callId = await mapper.ensureTool(toolCall);
        await chain;
        const approval: ApprovalRequest = {
          requestId: `acp_permission_${++permissionCount}`,
          kind: approvalKind(toolCall.kind),
          summary: str(toolCall.title) ?? "the agent asks for permission",
          options: approvalOptions(params.options),
        };
        if (callId !== undefined) approval.callId = callId;
        if (toolCall.rawInput !== undefined) approval.input = toolCall.rawInput;
        let resolveCancelled!: () => void;
        const cancelledAnswer = new Promise<"cancelled">((resolve) => {
          resolveCancelled = () => resolve("cancelled");
        });
        pendingAnswers.add(resolveCancelled);
        const decided = request.approve(approval);
        const settled = decided.then(
          () => undefined,
          () => undefined,
        );
        pendingApprovals.add(settled);
        void settled.then(() => pendingApprovals.delete(settled));
        const decision = await Promise.race([decided, cancelledAnswer]);
        pendingAnswers.delete(resolveCancelled);
        if (decision === "cancelled" || cancelling) return cancelled;
        const optionId = chooseOption(decision, params.options);
        if (optionId === undefined) {
          await emit({ type: "notice", level: "warning", code: "approval_option_missing", message: "the agent offered no option matching the decision; the request was answered cancelled" });
          return cancelled;
        }
        return { outcome: { outcome: "selected", optionId } };
      } finally {
        pendingPermissions--;
        lastActivity = Date.now();
      }
    },
    onReadTextFile: async (params) => {
      const file = readablePath(request.workspace, request.inputs, params.path);
      const text = await readFile(file, "utf8");
      const line = typeof params.line === "number" ? Math.max(1, params.line) : undefined;
      const limit = typeof params.limit === "number" ? params.limit : undefined;
      if (line === undefined && limit === undefined) return { content: text };
      const lines = text.split("\n");
      const start = (line ?? 1) - 1;
      return { content: lines.slice(start, limit === undefined ? undefined : start + limit).join("\n") };
    },
    onWriteTextFile: async (params) => {
      const file = insideWorkspace(request.workspace, params.path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, typeof params.content === "string" ? params.content : "", "utf8");
      return {};
    },
  });

  const phase = (): Phase => (delivered ? "after_delivery" : "before_delivery");
  const req = (method: string, params: unknown) => connection.request(method, params, signal, phase());

  let hardCapTimer: NodeJS.Timeout | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  try {
    const init = connection.init;
    const caps = agentCaps(init);
    // Inputs are checked against what the agent advertised before anything is created.
    const blocks = await promptBlocks(request, init, driverId);
    const cwd = request.workspace;
    const mcp = mcpServers(request, init);

    // --- bind the session --------------------------------------------------------------------
    const thread = request.thread;
    let method: string;
    let bound: unknown;
    if (thread?.providerSessionId !== undefined && thread.fork === true) {
      if (!caps.fork || traits.fork === false) throw new FeatureUnsupportedError("fork (session/fork is not advertised by the agent)", driverId);
      method = "session/fork";
      bound = await req(method, { sessionId: thread.providerSessionId, cwd, mcpServers: mcp });
    } else if (thread?.providerSessionId !== undefined) {
      if (caps.resume) {
        method = "session/resume";
        bound = await req(method, { sessionId: thread.providerSessionId, cwd, mcpServers: mcp });
      } else if (caps.loadSession) {
        method = "session/load";
        const delay = traits.loadAfterCreationMinute === true ? loadDelayMs(context.sessionsCreated?.get(thread.providerSessionId), Date.now()) : 0;
        if (delay > 0) {
          await emit({
            type: "notice",
            level: "info",
            code: "load_delayed",
            message: `session/load waits ${delay} ms: the agent would overwrite the session's history if it loaded it in the minute the session was created`,
          });
          await sleep(delay, signal);
        }
        mapper.replaying = true;
        try {
          bound = await req(method, { sessionId: thread.providerSessionId, cwd, mcpServers: mcp });
          if (traits.replayTrailsLoad === true) await replaySettled(() => mapper.replayed, signal);
        } finally {
          mapper.replaying = false;
        }
        await chain;
      } else {
        throw new FeatureUnsupportedError("resume (neither session/resume nor session/load is advertised by the agent)", driverId);
      }
    } else {
      method = "session/new";
      bound = await req(method, { cwd, mcpServers: mcp });
    }
    const boundObj = isObject(bound) ? bound : {};
    sessionId = str(boundObj.sessionId) ?? (method === "session/new" || method === "session/fork" ? undefined : thread?.providerSessionId);
    if (sessionId === undefined || sessionId === "") {
      throw new ProviderError(`the agent answered ${method} without a sessionId`, { code: "malformed_response", phase: "before_delivery" });
    }
    if (Array.isArray(boundObj.configOptions)) configOptions = boundObj.configOptions;
    if (method === "session/new" || method === "session/fork") context.sessionsCreated?.set(sessionId, Date.now());
    await emit({ type: "thread.bound", providerSessionId: sessionId, provenance: { provider: "acp", event: method } });
    if (mapper.replayed > 0) {
      await emit({ type: "notice", level: "info", code: "history_replayed", message: `session/load replayed ${mapper.replayed} history updates; they are not events of this run` });
    }
    const undelivered = [request.resources.tools.length > 0 ? "host tools" : undefined, request.resources.skills.length > 0 ? "skills" : undefined].filter(
      (x): x is string => x !== undefined,
    );
    if (undelivered.length > 0) {
      await emit({ type: "notice", level: "warning", code: "resources_unsupported", message: `the acp driver does not deliver the agent's ${undelivered.join(" and ")}; they were not offered to the model` });
    }
    const droppedMcp = request.resources.mcp.length - mcp.length;
    if (droppedMcp > 0) {
      await emit({ type: "notice", level: "warning", code: "resources_unsupported", message: `${droppedMcp} HTTP MCP server(s) were not offered: the agent does not advertise mcpCapabilities.http` });
    }

    // --- model and effort, confirmed by readback -------------------------------------------
    const legacyModels = isObject(boundObj.models) ? boundObj.models : undefined;
    const applyOption = async (label: string, category: string, ids: string[], value: string) => {
      const option = findOption(configOptions, category, ids);
      if (option === undefined) {
        if (category === "model" && legacyModels !== undefined && legacyModels.currentModelId === value) return;
        throw new ProviderError(`the agent offers no ${label} session config option (category "${category}"); ${label} "${value}" cannot be applied`, {
          code: "config_option_unsupported",
          phase: "before_delivery",
        });
      }
      const configId = String(option.id);
      if (option.currentValue === value) return;
      const offered = optionValues(option);
      if (!offered.includes(value)) {
        throw new ProviderError(`${label} "${value}" is not offered by the agent's "${configId}" option (offered: ${offered.join(", ") || "none"})`, {
          code: "config_value_unavailable",
          phase: "before_delivery",
        });
      }
      const answer = await req("session/set_config_option", { sessionId, configId, value });
      if (isObject(answer) && Array.isArray(answer.configOptions)) configOptions = answer.configOptions;
      await chain;
      const readback = findOption(configOptions, category, ids);
      if (readback?.currentValue !== value) {
        throw new ProviderError(`the agent did not confirm ${label} "${value}" on its "${configId}" option (current: ${String(readback?.currentValue)})`, {
          code: "config_value_rejected",
          phase: "before_delivery",
        });
      }
    };
    if (request.model !== undefined) await applyOption("model", "model", ["model"], request.model);
    if (request.effort !== undefined) await applyOption("effort", "thought_level", ["reasoning_effort", "thought_level", "effort"], request.effort);

    // --- prompt --------------------------------------------------------------------------------
    signal.throwIfAborted();
    request.markDelivered();
    delivered = true;
    lastActivity = Date.now();
    const prompt = connection.request("session/prompt", { sessionId, prompt: blocks }, undefined, "after_delivery");
    prompt.catch(() => {});
    /** The agent's answer, as soon as it arrived. */
    let answered: { value: unknown } | undefined;
    void prompt.then((value) => (answered = { value }), () => undefined);

    if (watchdogs.hardCapMs > 0) {
      hardCapTimer = setTimeout(() => tripWatchdog("hard_cap", `the run exceeded its hard cap of ${watchdogs.hardCapMs} ms`), watchdogs.hardCapMs);
      hardCapTimer.unref();
    }
    if (watchdogs.idleMs > 0) {
      const tick = Math.max(10, Math.min(1000, Math.floor(watchdogs.idleMs / 4)));
      idleTimer = setInterval(() => {
        // Tool execution and permission waits suspend the idle clock.
        if (pendingPermissions > 0 || mapper.activeTools > 0) {
          lastActivity = Date.now();
          return;
        }
        if (Date.now() - lastActivity >= watchdogs.idleMs) tripWatchdog("idle_timeout", `the agent was idle for more than ${watchdogs.idleMs} ms`);
      }, tick);
      idleTimer.unref();
    }

    let onAbort: (() => void) | undefined;
    const aborted = new Promise<"aborted">((resolve) => {
      onAbort = () => resolve("aborted");
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    let outcome: { value: unknown } | { error: unknown } | "aborted" | { code: string; message: string };
    try {
      outcome = await Promise.race([prompt.then((value) => ({ value }), (error: unknown) => ({ error })), aborted, watchdog]);
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
    // The answer arrived before session/cancel could be sent: it is the outcome, not the cancel.
    if (outcome === "aborted" && answered !== undefined) outcome = answered;

    if (outcome === "aborted" || "code" in outcome) {
      // Seed rule: pending permissions are answered `cancelled` first, then session/cancel.
      answerPendingCancelled();
      connection.cancelledSessions.add(sessionId);
      await connection.notify("session/cancel", { sessionId });
      const grace = new Promise<"grace">((resolve) => setTimeout(() => resolve("grace"), CANCEL_GRACE_MS).unref());
      const answered = await Promise.race([prompt.then(() => "answered", () => "answered"), grace]);
      if (answered === "grace") await connection.close();
      await Promise.race([Promise.all(pendingApprovals), new Promise((resolve) => setTimeout(resolve, APPROVAL_SETTLE_MS).unref())]);
      await mapper.finish().catch(() => {});
      await chain;
      if (outcome === "aborted") throw abortedReason(signal);
      await emit({ type: "notice", level: "warning", code: outcome.code, message: outcome.message });
      throw new ProviderError(outcome.message, { code: outcome.code, phase: "after_delivery" });
    }
    if ("error" in outcome) {
      await chain;
      throw outcome.error;
    }

    // --- the agent answered -------------------------------------------------------------------
    const answer = isObject(outcome.value) ? outcome.value : {};
    const stopReason = str(answer.stopReason);
    await mapper.finish();
    if (mapper.usesSource("prompt_response")) {
      const usage = tokenUsage(answer.usage);
      if (usage !== undefined) {
        mapper.mergeUsage(usage);
        await emit({ type: "usage.observed", usage, provenance: { provider: "acp", event: "session/prompt.usage" } });
      }
    }
    if (mapper.usesSource("meta_quota")) {
      const meta = isObject(answer._meta) ? answer._meta : undefined;
      const quota = meta && isObject(meta.quota) ? meta.quota : undefined;
      const usage = quota ? tokenUsage(quota.token_count) : undefined;
      if (usage !== undefined) {
        mapper.mergeUsage(usage);
        await emit({ type: "usage.observed", usage, provenance: { provider: "acp", event: "session/prompt._meta.quota" } });
      }
    }
    await chain;
    if (emitFailure !== undefined) throw emitFailure;
    if (
      traits.phantomTurnAfterCancel === true &&
      stopReason === "end_turn" &&
      mapper.updates === 0 &&
      connection.cancelledSessions.has(sessionId)
    ) {
      throw new ProviderError("the agent answered with an empty end_turn left over from a cancelled prompt", { code: "phantom_turn", retryable: true, phase: "after_delivery" });
    }
    const response: RunResponse = {
      text: mapper.finalText(),
      providerSessionId: sessionId,
      raw: { sessionId, stopReason, method },
    };
    const usage = mapper.usage;
    if (usage !== undefined) response.usage = usage;
    const tail = stderrExcerpt(connection.process.stderrTail(), 4000);
    if (tail !== "") response.stderrTail = tail;
    await connection.flushMalformed();
    if (stopReason === "cancelled") {
      await emit({ type: "run.cancelled", reason: "the agent ended the turn as cancelled" });
      return response;
    }
    if (stopReason === "refusal") {
      throw new ProviderError("the agent refused to continue (stopReason refusal)", { code: "refusal", phase: "after_delivery" });
    }
    if (stopReason !== "end_turn") {
      await emit({ type: "notice", level: "warning", code: "stop_reason", message: `the turn ended with stopReason ${String(stopReason)}` });
    }
    // Announced the moment it is known, so a cancel arriving while the process retires cannot rewrite it.
    await emit({ type: "run.completed", provenance: { provider: "acp", event: "session/prompt" } });
    return response;
  } catch (error) {
    await mapper.finish().catch(() => undefined);
    await connection.flushMalformed().catch(() => undefined);
    await chain;
    if (signal.aborted && !terminalEmitted) throw abortedReason(signal);
    throw error;
  } finally {
    if (hardCapTimer) clearTimeout(hardCapTimer);
    if (idleTimer) clearInterval(idleTimer);
    answerPendingCancelled();
    unbind();
    await connection.close();
  }
}
