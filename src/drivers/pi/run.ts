/**
 * One Pi run: pick the model (a model Pi does not list fails before the prompt, as does an image
 * for a model without image input), set the thinking level, send one `prompt`, map its events,
 * and end with exactly one outcome.
 *
 * The turn is done at `agent_end`. Pi's own auto-retry is switched off for the run (it announces a
 * retry only after `agent_end`, so `agent_end` would otherwise not end anything); a failed model
 * call fails the run and the host decides whether to retry. On cancel the driver sends `abort`
 * and waits for `agent_end` (which Pi sends before the abort's response), closes every open item,
 * and retires the process.
 */
import { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import type { EventSink, RunRequest, RunResponse } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import { str } from "../../driver/json.js";
import { PiEventMapper } from "./events.js";
import { endedTurn } from "./outcome.js";
import { prepareTurn } from "./prepare.js";
import type { PiConnection } from "./rpc.js";

/** How long a cancelled run waits for `agent_end` before the process is retired anyway. */
const CANCEL_GRACE_MS = 5000;

/** Media types Pi sends as image parts. */
export const PI_IMAGE_MEDIA_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

export interface PiRunContext {
  acquire(request: RunRequest, signal: AbortSignal): Promise<PiConnection>;
  /** Registers the run's mid-turn input channel (steer and follow-up); returns the unregister function. */
  registerQueue(runId: string, send: (kind: "steer" | "follow_up", text: string, signal: AbortSignal) => Promise<void>): () => void;
  /** The driver's redaction, for text the mapper cuts before emitting it. */
  redact?: (text: string) => string;
}

/** How the wait for the prompted turn ended. */
type Outcome = "ended" | "aborted" | "exited" | { error: unknown };

const abortedReason = (signal: AbortSignal): unknown => signal.reason ?? new Error("aborted");

export async function runPiTurn(request: RunRequest, sink: EventSink, signal: AbortSignal, context: PiRunContext): Promise<RunResponse> {
  signal.throwIfAborted();
  const emitter = new OrderedEmitter(sink);
  const mcpServers = [...(request.hostTools !== undefined ? [request.hostTools.serverName] : []), ...request.resources.mcp.map((s) => s.name)];
  const mapper = new PiEventMapper(emitter.emit, request.workspace, mcpServers, context.redact);
  let agentEnded!: () => void;
  const agentEnd = new Promise<void>((resolve) => (agentEnded = resolve));
  let prompted = false;

  const connection = await context.acquire(request, signal);
  const unbind = connection.bind({
    onEvent: async (event) => {
      if (!prompted) return;
      await mapper.handle(event);
      if (event.type === "agent_end") agentEnded();
    },
    notice: (event) => emitter.emit(event),
  });
  let unregisterQueue: (() => void) | undefined;
  try {
    const images = await prepareTurn(connection, request, signal);
    const sessionId = str(connection.state.sessionId);
    await announceTurn(sessionId, emitter);

    signal.throwIfAborted();
    request.markDelivered();
    prompted = true;
    unregisterQueue = context.registerQueue(request.runId, async (kind, text, queueSignal) => {
      if (emitter.terminalEmitted || !connection.alive) throw new ProviderError("pi: the run has ended", { code: "steer_rejected", phase: "after_delivery" });
      await connection.request(kind, { message: text }, queueSignal, "after_delivery");
    });
    const prompt = connection.request("prompt", { message: request.prompt, ...(images.length > 0 ? { images } : {}) }, undefined, "after_delivery");
    prompt.catch(() => {});

    const outcome = await awaitTurn(connection, prompt, agentEnd, signal);
    if (outcome === "aborted") {
      await cancelTurn(connection, mapper, emitter, agentEnd);
      throw abortedReason(signal);
    }
    if (outcome === "exited") throw connection.exitError("during the turn", "after_delivery");
    if (typeof outcome === "object") throw outcome.error;
    return await endedTurn(connection, mapper, emitter, sessionId);
  } catch (error) {
    await mapper.finish().catch(() => undefined);
    await connection.flushMalformed().catch(() => undefined);
    throw await emitter.failure(error, signal);
  } finally {
    unregisterQueue?.();
    unbind();
    await connection.close();
  }
}

/** Before the prompt: the session the run is bound to. */
async function announceTurn(sessionId: string | undefined, emitter: OrderedEmitter): Promise<void> {
  if (sessionId !== undefined) await emitter.emit({ type: "thread.bound", providerSessionId: sessionId, provenance: { provider: "pi", event: "get_state" } });
}

/** Waits for the prompted turn: `agent_end`, the prompt refused, the run aborted, or Pi gone. */
async function awaitTurn(connection: PiConnection, prompt: Promise<unknown>, agentEnd: Promise<void>, signal: AbortSignal): Promise<Outcome> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const exited = connection.exited.then(() => "exited" as const);
  try {
    return await Promise.race<Outcome>([
      agentEnd.then(() => "ended" as const),
      prompt.then(
        () => agentEnd.then(() => "ended" as const),
        (error: unknown) => ({ error }),
      ),
      aborted,
      exited,
    ]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** Sends `abort` and waits, bounded, for `agent_end` (which precedes abort's response); open items are closed. */
async function cancelTurn(connection: PiConnection, mapper: PiEventMapper, emitter: OrderedEmitter, agentEnd: Promise<void>): Promise<void> {
  mapper.cancelling();
  void connection.request("abort", {}, undefined, "after_delivery").catch(() => {});
  const grace = new Promise<void>((resolve) => setTimeout(resolve, CANCEL_GRACE_MS).unref());
  await Promise.race([agentEnd, grace, connection.exited]);
  await mapper.finish().catch(() => {});
  await emitter.settled();
}
