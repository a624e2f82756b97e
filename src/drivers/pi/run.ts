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
import { readFile } from "node:fs/promises";
import { OrderedEmitter } from "../../driver/kit/emit-chain.js";
import type { EventSink, RunRequest, RunResponse } from "../../driver/types.js";
import { AuthRequiredError, ProviderError } from "../../errors/index.js";
import { InputError } from "../../input/errors.js";
import { arr, isObject, stderrExcerpt, str, type Json } from "../../driver/json.js";
import { PI_THINKING_LEVELS } from "./config.js";
import { PiEventMapper } from "./events.js";
import { availableModels } from "./inspect.js";
import type { PiConnection } from "./rpc.js";

/** How long a cancelled run waits for `agent_end` before the process is retired anyway. */
const CANCEL_GRACE_MS = 5000;

/** Media types Pi sends as image parts. */
export const PI_IMAGE_MEDIA_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Pi's error texts that name a retryable condition (its own auto-retry matches the same). */
const RETRYABLE = /\b(429|5\d\d)\b|overloaded|rate.?limit|timeout|timed out|network|ECONNRESET|ECONNREFUSED|fetch failed/i;

export interface PiRunContext {
  acquire(request: RunRequest, signal: AbortSignal): Promise<PiConnection>;
  /** Registers the run's mid-turn input channel (steer and follow-up); returns the unregister function. */
  registerQueue(runId: string, send: (kind: "steer" | "follow_up", text: string, signal: AbortSignal) => Promise<void>): () => void;
}

type Phase = "before_delivery" | "after_delivery";

const abortedReason = (signal: AbortSignal): unknown => signal.reason ?? new Error("aborted");

/** The listed model a run asks for: `provider/id` or a bare `id`. */
function findModel(models: Json[], wanted: string): Json | undefined {
  return models.find((m) => `${String(m.provider)}/${String(m.id)}` === wanted) ?? models.find((m) => m.id === wanted);
}

export async function runPiTurn(request: RunRequest, sink: EventSink, signal: AbortSignal, context: PiRunContext): Promise<RunResponse> {
  signal.throwIfAborted();
  const emitter = new OrderedEmitter(sink);
  const emit = emitter.emit;
  const mapper = new PiEventMapper(emit);
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
    notice: (event) => emit(event),
  });
  let delivered = false;
  const phase = (): Phase => (delivered ? "after_delivery" : "before_delivery");
  const command = (type: string, payload: Json = {}) => connection.request(type, payload, signal, phase());
  let unregisterQueue: (() => void) | undefined;
  try {
    // --- model, inputs, thinking level: all checked before the prompt ------------------------
    const listed = await availableModels(connection, signal);
    if ("error" in listed) throw listed.error instanceof Error && listed.error.message !== "malformed" ? listed.error : new ProviderError("pi answered get_available_models with something other than a model list", { code: "malformed_response", phase: "before_delivery" });
    if (listed.models.length === 0) throw new AuthRequiredError("pi lists no model: no provider has credentials configured", { remedy: "bind a provider (provider.baseUrl + provider.apiKeyEnv) or sign Pi in" });
    let model = isObject(connection.state.model) ? connection.state.model : undefined;
    if (request.model !== undefined) {
      const wanted = findModel(listed.models, request.model);
      if (wanted === undefined) {
        throw new ProviderError(`model "${request.model}" is not offered by pi (offered: ${listed.models.map((m) => String(m.id)).join(", ")})`, {
          code: "config_value_unavailable",
          phase: "before_delivery",
        });
      }
      if (model === undefined || model.id !== wanted.id || model.provider !== wanted.provider) {
        model = (await command("set_model", { provider: wanted.provider, modelId: wanted.id })) as Json;
        if (!isObject(model) || model.id !== wanted.id) {
          throw new ProviderError(`pi did not confirm model "${request.model}"`, { code: "config_value_rejected", phase: "before_delivery" });
        }
      }
    }
    if (model === undefined) throw new AuthRequiredError("pi has no model selected", { remedy: "bind a provider or choose a model" });
    if (request.effort !== undefined) {
      if (!(PI_THINKING_LEVELS as readonly string[]).includes(request.effort)) {
        throw new ProviderError(`effort "${request.effort}" is not a Pi thinking level (${PI_THINKING_LEVELS.join(", ")})`, { code: "config_value_unavailable", phase: "before_delivery" });
      }
      await command("set_thinking_level", { level: request.effort });
    }
    const images: Json[] = [];
    for (const [index, input] of request.inputs.entries()) {
      if (input.kind !== "image" || input.deliveryMode !== "native") {
        throw new InputError("input_mode_unsupported", `pi takes only images, natively; a ${input.kind} input cannot be delivered`, { index, kind: input.kind, mediaType: input.mediaType, driver: "pi" });
      }
      if (!arr(model.input).includes("image")) {
        throw new InputError("input_mode_unsupported", `the model "${String(model.id)}" does not declare image input`, { index, kind: input.kind, mediaType: input.mediaType, driver: "pi" });
      }
      images.push({ type: "image", data: (await readFile(input.localPath)).toString("base64"), mimeType: input.mediaType });
    }
    // Pi's retry is announced only after agent_end; off, agent_end ends the turn.
    await command("set_auto_retry", { enabled: false });

    const sessionId = str(connection.state.sessionId);
    if (sessionId !== undefined) await emit({ type: "thread.bound", providerSessionId: sessionId, provenance: { provider: "pi", event: "get_state" } });
    const undelivered = [
      request.resources.instructions !== undefined ? "instructions" : undefined,
      request.resources.tools.length > 0 ? "host tools" : undefined,
      request.resources.skills.length > 0 ? "skills" : undefined,
      request.resources.mcp.length > 0 ? "MCP servers" : undefined,
    ].filter((x): x is string => x !== undefined);
    if (undelivered.length > 0) {
      await emit({ type: "notice", level: "warning", code: "resources_unsupported", message: `the pi driver does not deliver the agent's ${undelivered.join(", ")}; they were not offered to the model` });
    }

    // --- prompt ----------------------------------------------------------------------------
    signal.throwIfAborted();
    request.markDelivered();
    delivered = true;
    prompted = true;
    unregisterQueue = context.registerQueue(request.runId, async (kind, text, queueSignal) => {
      if (emitter.terminalEmitted || !connection.alive) throw new ProviderError("pi: the run has ended", { code: "steer_rejected", phase: "after_delivery" });
      await connection.request(kind, { message: text }, queueSignal, "after_delivery");
    });
    const prompt = connection.request("prompt", { message: request.prompt, ...(images.length > 0 ? { images } : {}) }, undefined, "after_delivery");
    prompt.catch(() => {});

    let onAbort: (() => void) | undefined;
    const aborted = new Promise<"aborted">((resolve) => {
      onAbort = () => resolve("aborted");
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    const exited = connection.exited.then(() => "exited" as const);
    let outcome: "ended" | "aborted" | "exited" | { error: unknown };
    try {
      outcome = await Promise.race([
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

    if (outcome === "aborted") {
      // agent_end precedes abort's response; wait for it, bounded, then retire the process.
      void connection.request("abort", {}, undefined, "after_delivery").catch(() => {});
      const grace = new Promise<void>((resolve) => setTimeout(resolve, CANCEL_GRACE_MS).unref());
      await Promise.race([agentEnd, grace, connection.exited]);
      await mapper.finish().catch(() => {});
      await emitter.settled();
      throw abortedReason(signal);
    }
    if (outcome === "exited") throw connection.exitError("during the turn", "after_delivery");
    if (typeof outcome === "object") throw outcome.error;

    // --- the turn ended --------------------------------------------------------------------
    await emitter.settled();
    await mapper.finish();
    await emitter.drain();
    const last = mapper.lastAssistant ?? {};
    const stopReason = str(last.stopReason);
    const response: RunResponse = { text: mapper.finalText, raw: { stopReason: stopReason ?? null, sessionId: sessionId ?? null } };
    if (sessionId !== undefined) response.providerSessionId = sessionId;
    const usage = mapper.usage;
    if (usage !== undefined) response.usage = usage;
    const tail = stderrExcerpt(connection.process.stderrTail(), 4000);
    if (tail !== "") response.stderrTail = tail;
    await connection.flushMalformed();
    if (stopReason === "error") {
      const message = str(last.errorMessage) ?? "the model call failed";
      throw new ProviderError(`pi: ${message}`, { code: "provider_error", retryable: RETRYABLE.test(message), phase: "after_delivery" });
    }
    if (stopReason === "aborted") {
      await emit({ type: "run.cancelled", reason: "pi ended the turn as aborted" });
      return response;
    }
    if (stopReason !== "stop" && stopReason !== undefined) {
      await emit({ type: "notice", level: "warning", code: "stop_reason", message: `the turn ended with stopReason ${stopReason}` });
    }
    // Announced the moment it is known, so a cancel arriving while the process retires cannot rewrite it.
    await emit({ type: "run.completed", provenance: { provider: "pi", event: "agent_end" } });
    return response;
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
