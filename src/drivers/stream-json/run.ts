/**
 * One run = one turn in one CLI process: take the prepared standby or start (and initialize) a
 * process — resuming or forking the thread's session when it has one — write the user line, map
 * what the CLI says until its `result`, answer its permission requests, and retire the process.
 * Cancellation escalates by the kit's one policy: `interrupt`, a short grace for the CLI to end
 * its turn, then stdin end and SIGTERM, then SIGKILL; core publishes the single `run.cancelled`.
 * A `result` read before the cancel was acted on is the turn's outcome: it is announced at once,
 * and a later cancel only retires the process. Every item the turn started and never finished is
 * closed before the terminal. A finished turn does not wait for its process: it retires in the
 * background, owned by the launcher until it exits.
 */
import { interruptWithinGrace } from "../../driver/kit/connection.js";
import { MalformedFrameNotices } from "../../driver/malformed-frames.js";
import type { EventSink, RunRequest, RunResponse } from "../../driver/types.js";
import { ConfigError, ProviderError } from "../../errors/index.js";
import { mcpProblems } from "./argv.js";
import { isFailure, resultFailure } from "./failure.js";
import type { Launcher } from "./launcher.js";
import { PermissionBroker } from "./permissions.js";
import { describeExit, type Incoming, type StreamJsonProcess } from "./process.js";
import { sessionSlugs } from "./sessions.js";
import { StreamJsonStandby, StreamJsonWriter } from "./standby.js";
import { TurnMapper } from "./turn.js";
import { usageOf } from "./usage.js";
import { buildUserLine } from "./user-message.js";
import { str, type Json, type ResultLine } from "./wire.js";

/** Bounds the pending `interrupt` request; the escalation itself does not wait this long. */
const INTERRUPT_ANSWER_MS = 2_000;
const MAX_CHECKED_SLUG = 180;

export async function runTurn(launcher: Launcher, owner: object, request: RunRequest, sink: EventSink, signal: AbortSignal): Promise<RunResponse> {
  const { dialect } = launcher;
  signal.throwIfAborted();
  const unsafeMcp = mcpProblems(request.resources.mcp);
  if (unsafeMcp.length > 0) {
    throw new ConfigError(`${dialect.id}: MCP servers with env or headers cannot be passed on the command line: ${unsafeMcp.join(", ")}`);
  }
  const ignored = [request.resources.tools.length > 0 ? "host tools" : "", request.resources.skills.length > 0 ? "skills" : ""].filter(Boolean);
  if (ignored.length > 0) {
    await sink.emit({ type: "notice", level: "warning", code: "resources_unsupported", message: `${dialect.name} does not receive ${ignored.join(" or ")} from this driver` });
  }
  const line = await buildUserLine(request.prompt, request.inputs, {
    image: request.inputs.length > 0 ? (dialect.inputs.image.mediaTypes ?? []) : [],
    file: request.inputs.length > 0 ? (dialect.inputs.file.mediaTypes ?? []) : [],
  });

  const resume = request.thread?.providerSessionId;
  const fork = resume !== undefined && request.thread?.fork === true;
  // The thread's warm writer is still in the session: the next user line continues it.
  const warm = !fork && request.standby instanceof StreamJsonWriter && request.standby.session === resume ? request.standby.claim(owner) : undefined;
  if (resume !== undefined && !warm) await checkWorkspace(launcher, resume, request.workspace);

  const standby = warm ?? (resume === undefined && request.standby instanceof StreamJsonStandby ? request.standby.claim(owner) : undefined);
  const proc =
    standby ??
    (await launcher.start(request.workspace, {
      ...(request.model !== undefined ? { model: request.model } : {}),
      ...(request.effort !== undefined ? { effort: request.effort } : {}),
      policy: request.policy,
      ...(resume !== undefined ? { resume, fork } : {}),
      mcp: request.resources.mcp,
    }));

  const redact = (text: string) => launcher.redactor.redactText(text);
  const mapper = new TurnMapper(sink, dialect.id, redact);
  const malformed = new MalformedFrameNotices((event) => sink.emit(event), dialect.name);
  const broker = new PermissionBroker({ dialect, process: proc, request, mapper, redact });
  let outcome: RunResponse | undefined;
  let failure: unknown;
  /** Set once the cancel is acted on: a `result` read after it belongs to the interrupted turn. */
  let interrupting = false;
  /** The outcome of a `result` read before any interrupt, announced as it was read. */
  let completion: Promise<RunResponse> | undefined;
  /** Until the prompt is written the CLI has no turn to wind down, so a failure stops it at once. */
  let delivered = false;
  /** Set when the completed turn's process stays in its session as the thread's warm writer. */
  let kept = false;
  try {
    if (!standby) {
      const instructions = request.resources.instructions;
      await launcher.initialize(proc, { signal, hasPrompt: true, ...(instructions !== undefined ? { appendSystemPrompt: instructions } : {}) });
    }
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    await proc.attach((item) => {
      // The turn is over: what the CLI says while it retires is no event of the run.
      if (completion !== undefined) return;
      // Streamed deltas, the bulk of a turn, go straight to the mapper: no promise unless the sink waits.
      if (item.kind === "message" && item.message.type === "stream_event") return mapper.handle(item.message);
      return receive(item);
    });
    async function receive(item: Incoming): Promise<void> {
      if (item.kind === "malformed") {
        await malformed.report(item.code);
        return;
      }
      const message = item.message;
      if (message.type === "control_request") return broker.receive(message);
      if (message.type === "control_cancel_request") return broker.withdraw(str(message.request_id));
      const completes = message.type === "result" && !interrupting;
      await mapper.handle(message);
      if (completes) {
        await malformed.flush();
        completion = complete(launcher, proc, mapper, sink);
        await completion.catch(() => undefined);
      }
      if (message.type === "result") finish();
    }
    signal.throwIfAborted();
    request.markDelivered();
    delivered = true;
    await proc.send(line).catch(() => undefined); // an exit is reported below, with its status

    const aborted = abortion(signal);
    const ended = await Promise.race([finished.then(() => "result" as const), proc.ended.then(() => "exit" as const), aborted.promise.then(() => "abort" as const)]).finally(
      aborted.dispose,
    );
    // A result read before the cancel is the outcome; the consumer is announcing it.
    if (mapper.result === undefined && (ended === "abort" || signal.aborted)) {
      interrupting = true;
      await interrupt(launcher, proc, mapper, finished);
      throw signal.reason;
    }
    if (mapper.result !== undefined) await finished;
    if (completion === undefined) await malformed.flush();
    outcome = await (completion ?? complete(launcher, proc, mapper, sink));
    kept = request.keepWarm === true && outcome.providerSessionId !== undefined && proc.alive && !signal.aborted;
  } catch (error) {
    failure = error;
    await mapper.closeOpenItems().catch(() => undefined);
    await malformed.flush().catch(() => undefined);
  } finally {
    broker.close();
    // Whatever the CLI still writes (state changes after the result) no longer belongs to the run.
    await proc.attach(undefined);
    // A CLI that timed out or failed its handshake is hung or broken: it gets no grace to exit,
    // and a cancelled turn is escalated now. A finished turn is the run's outcome at once: its
    // process retires in the background (the launcher owns it until it exits; close() reaps it).
    if (kept) {
      // The thread's warm writer holds the process now; core retires it.
    } else if (!delivered || interrupting) await proc.stop();
    else if (mapper.result !== undefined) void launcher.retire(proc).catch(() => undefined);
    else await launcher.retire(proc);
  }
  if (failure !== undefined) throw failure;
  const response: RunResponse = { ...outcome!, stderrTail: proc.stderrTail() };
  if (kept) response.writer = new StreamJsonWriter(proc, owner, outcome!.providerSessionId!);
  return response;
}

/** The turn's outcome from its `result` line; a success is announced as `run.completed` at once. */
async function complete(launcher: Launcher, proc: StreamJsonProcess, mapper: TurnMapper, sink: EventSink): Promise<RunResponse> {
  const { dialect } = launcher;
  const result = mapper.result;
  if (!result) {
    const exit = await proc.ended;
    const hint = lastLine(proc.stderrTail());
    throw new ProviderError(`the CLI ${describeExit(exit)} before the turn finished${hint ? ` (${launcher.redactor.redactText(hint)})` : ""}`, {
      code: "provider_exited",
      phase: "after_delivery",
    });
  }
  await mapper.closeOpenItems();
  const usage = usageOf(result, dialect.costOf(result));
  if (usage) await sink.emit({ type: "usage.observed", usage });
  if (isFailure(result)) throw resultFailure(dialect, result, mapper.assistantError, (t) => launcher.redactor.redactText(t));
  const text = typeof result.result === "string" ? result.result : (mapper.lastText ?? "");
  const response: RunResponse = { text, raw: rawOf(result) };
  if (usage) response.usage = usage;
  const sessionId = mapper.sessionId ?? str(result.session_id);
  if (sessionId !== undefined) response.providerSessionId = sessionId;
  await sink.emit({ type: "run.completed", provenance: { provider: dialect.id, event: "result" } });
  return response;
}

/** Asks the CLI to stop the turn (where the dialect can take control requests yet) and gives it the policy's short grace. */
async function interrupt(launcher: Launcher, proc: StreamJsonProcess, mapper: TurnMapper, finished: Promise<void>): Promise<void> {
  if (proc.alive && (!launcher.dialect.controlNeedsSession || mapper.sessionOpen)) {
    await interruptWithinGrace(() => proc.request({ subtype: "interrupt" }, { timeoutMs: INTERRUPT_ANSWER_MS }), Promise.race([finished, proc.ended]));
  }
  await mapper.closeOpenItems().catch(() => undefined);
}

/** A session is resumed from the workspace it was recorded in, or not at all. */
async function checkWorkspace(launcher: Launcher, sessionId: string, workspace: string): Promise<void> {
  const configDir = launcher.configDir();
  if (configDir === undefined) return;
  const expected = launcher.dialect.projectSlug(workspace);
  // Very long paths are shortened by the CLIs in ways not modelled here: no check then.
  if (expected.length > MAX_CHECKED_SLUG) return;
  const slugs = await sessionSlugs(configDir, sessionId);
  if (slugs.length > 0 && !slugs.includes(expected)) {
    throw new ProviderError(`session ${sessionId} was recorded in another workspace; resume it from that workspace`, {
      code: "session_workspace_mismatch",
      phase: "before_delivery",
    });
  }
}

/** Resolves when `signal` aborts; `dispose` drops the listener. */
function abortion(signal: AbortSignal): { promise: Promise<void>; dispose: () => void } {
  let onAbort = () => {};
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

function rawOf(result: ResultLine): Json {
  const raw: Json = {};
  for (const key of ["type", "subtype", "is_error", "num_turns", "duration_ms", "stop_reason", "terminal_reason", "session_id", "total_cost_usd"] as const) {
    if (result[key as keyof ResultLine] !== undefined) raw[key] = result[key as keyof ResultLine];
  }
  return raw;
}

function lastLine(text: string): string | undefined {
  const line = text.trim().split("\n").at(-1)?.trim();
  return line ? (line.length > 300 ? `${line.slice(0, 299)}…` : line) : undefined;
}
