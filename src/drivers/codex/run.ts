/**
 * One run: bind a Codex thread (`thread/start`, `thread/resume` or `thread/fork`; bind.ts), start
 * one turn (`turn/start` with the prompt and native image inputs; turn.ts), map its notifications
 * to canonical events until `turn/completed` (events.ts), and answer Codex's approval and question
 * requests through core (channel.ts, approvals.ts); the finished turn becomes the response
 * (outcome.ts).
 *
 * Cancellation sends `turn/interrupt` and waits briefly for the interrupted turn; the process is
 * always retired afterwards, unless a completed turn hands it back as the thread's warm writer. A
 * `turn/completed` read before the cancel was acted on is the turn's outcome: the run announces it
 * at once and a later cancel only retires the process. Every item the turn started and never
 * finished is closed before the terminal. A prompt is never sent twice: once `turn/start` may
 * have been written, every failure is reported with phase `after_delivery` and nothing is replayed.
 */
import { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import { MalformedFrameNotices } from "../../driver/malformed-frames.js";
import type { EventSink, RunRequest, RunResponse, StandbyHandle } from "../../driver/types.js";
import { bindThread } from "./bind.js";
import { TurnChannel } from "./channel.js";
import type { CodexConnection } from "./connection.js";
import { TurnMapper } from "./events.js";
import { mcpThreadConfig } from "./mcp.js";
import { finishTurn } from "./outcome.js";
import { threadSettings, turnInput } from "./params.js";
import { awaitTurnEnd, startCompaction, startTurn } from "./turn.js";

export interface RunContext {
  /** A connection for this run: the claimed standby, or a fresh process. */
  acquire(request: RunRequest, signal: AbortSignal): Promise<CodexConnection>;
  /** The thread already loaded on the acquired connection (a warm writer's), if any. */
  loadedThread?(): string | undefined;
  /** Keeps the connection running, bound to `threadId`, as the thread's warm writer. */
  keep?(connection: CodexConnection, threadId: string): StandbyHandle;
  /** Makes the run steerable; returns the unregister function. */
  registerSteer(runId: string, steer: (text: string, signal: AbortSignal) => Promise<void>): () => void;
}

/** Runs one turn. Resolves with the run's response; rejects with a typed error or the abort reason. */
export async function runTurn(request: RunRequest, sink: EventSink, signal: AbortSignal, context: RunContext): Promise<RunResponse> {
  // Everything that can be refused is refused before a process starts.
  const settings = threadSettings(request);
  const compaction = request.operation === "compact";
  const input = compaction ? [] : turnInput(request);
  signal.throwIfAborted();

  // All events go through one chain, so notifications, request notices and protocol notices keep
  // their order and a slow consumer pauses reading (the notification handler awaits its emit).
  const emitter = new OrderedEmitter(sink);
  const emit = emitter.emit;
  const mapper = new TurnMapper(emitter.offer);
  const malformed = new MalformedFrameNotices(emit, "codex app-server");

  const connection = await context.acquire(request, signal);
  // The agent's MCP servers and this process's host-tools endpoint go with the thread request.
  const mcp = mcpThreadConfig(request.resources.mcp, connection.resources.hostTools, request.policy.approval);
  if (Object.keys(mcp).length > 0) settings.config = { ...settings.config, ...mcp };
  const registerSteer: RunContext["registerSteer"] = (runId, steer) => context.registerSteer(runId, steer);
  const channel = new TurnChannel({ connection, request, signal, mapper, malformed, registerSteer });
  /** Set once the completed turn's process is handed back as the thread's warm writer. */
  let kept = false;
  try {
    const thread = await bindThread(channel, request, settings, context.loadedThread?.(), emit);
    if (compaction) await startCompaction(channel, request, thread.threadId);
    else await startTurn(channel, request, thread.threadId, input);
    const ended = await awaitTurnEnd(channel);
    await malformed.flush();
    await emitter.drain();
    const response = await finishTurn(ended, mapper, connection, emit, thread.echo);
    // With an active goal, Codex goes on by itself once the turn ends: that process is never left
    // idle with the thread loaded, where its turns would run outside any run.
    const pursuesGoal = mapper.goalStatus === "active";
    if (request.keepWarm === true && context.keep && ended.turn.status === "completed" && connection.alive && !signal.aborted && !pursuesGoal) {
      response.writer = context.keep(connection, thread.threadId);
      kept = true;
    }
    return response;
  } catch (error) {
    await mapper.closeOpenItems().catch(() => undefined);
    await malformed.flush().catch(() => undefined);
    throw await emitter.failure(error, signal);
  } finally {
    channel.release();
    // A finished turn is the run's outcome at once: its process retires in the background (the
    // driver owns it until it exits; close() reaps it). Any other ending stops it before returning,
    // and so does a turn that left the goal active: the turn Codex starts by itself then must not
    // outlive the run (nor overlap the next run's process on the thread).
    if (!kept) await retireConnection(connection, mapper.done && !signal.aborted && mapper.goalStatus !== "active");
  }
}

function retireConnection(connection: CodexConnection, turnOver: boolean): Promise<void> {
  const closing = connection.close();
  if (!turnOver) return closing;
  void closing.catch(() => undefined);
  return Promise.resolve();
}
