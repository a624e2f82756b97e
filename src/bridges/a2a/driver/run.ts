/**
 * One run on a remote A2A agent: read its card, send the prompt as a message (on the thread's
 * context id when the run continues one), map the task's events as they stream, answer the
 * task's input requests through the host's approvals and questions, and end as the task ends.
 * Cancelling the run cancels the task (`CancelTask`).
 */
import type { Message } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { abortableDelay } from "../../../driver/kit/delay.js";
import { OrderedEmitter } from "../../../driver/kit/emit-chain.js";
import type { EventSink, RunRequest, RunResponse } from "../../../driver/types.js";
import { ERROR_CODES, isErrorCode } from "../../../errors/codes.js";
import { AuthRequiredError, ProviderError, RunCancelledError } from "../../../errors/index.js";
import { loadA2ASdk, type A2ASdk, type A2ASdkImporter } from "../sdk.js";
import { configSecrets, type A2AConfig } from "./config.js";
import { answerInput } from "./input.js";
import { StreamMapper, type Step } from "./map-stream.js";
import { textPart, userMessage } from "./parts.js";
import { Remote } from "./remote.js";

const PROVIDER = "a2a";
/** How often a task is polled when the agent cannot stream. */
const POLL_MS = 1000;

/** A step that stops the exchange: input wanted, or the end. */
type Stop = Exclude<Step, { kind: "continue" }>;

interface Exchange {
  sdk: A2ASdk;
  client: Client;
  streaming: boolean;
  mapper: StreamMapper;
  signal: AbortSignal;
}

/** Sends one message and reads the task until it waits for input or ends. */
async function exchange(x: Exchange, message: Message): Promise<Stop> {
  const request = { tenant: "", message, configuration: undefined, metadata: undefined };
  if (x.streaming) {
    for await (const response of x.client.sendMessageStream(request, { signal: x.signal })) {
      const step = await x.mapper.take(response);
      if (step.kind !== "continue") return step;
    }
  } else {
    const result = await x.client.sendMessage(request, { signal: x.signal });
    const step = "messageId" in result ? await x.mapper.take({ payload: { $case: "message", value: result } }) : await x.mapper.task(result);
    if (step.kind !== "continue") return step;
  }
  return poll(x);
}

/** The stream ended (or the agent cannot stream) before the task stopped: follow it by `GetTask`. */
async function poll(x: Exchange): Promise<Stop> {
  const taskId = x.mapper.taskId;
  if (taskId === undefined) throw new ProviderError("a2a: the remote agent answered without a task or message", { code: "malformed_response" });
  for (;;) {
    const step = await x.mapper.task(await x.client.getTask({ tenant: "", id: taskId, historyLength: 0 }, { signal: x.signal }));
    if (step.kind !== "continue") return step;
    await abortableDelay(POLL_MS, x.signal);
  }
}

/** The error a task that did not complete ends the run with. */
function endFailure(step: Extract<Step, { kind: "end" }>): Error {
  if (step.state === "auth_required") return new AuthRequiredError("a2a: the remote agent needs authentication for this task");
  if (step.state === "canceled") return new RunCancelledError(`a2a: the remote agent cancelled the task${step.text ? `: ${step.text}` : ""}`);
  const error = step.carried?.type === "run.failed" ? (step.carried.error as { code?: unknown; message?: unknown; retryable?: unknown } | undefined) : undefined;
  const code = isErrorCode(error?.code) && ERROR_CODES[error.code].errorClass === "ProviderError" ? error.code : "provider_error";
  const message = typeof error?.message === "string" ? error.message : step.text || `the remote agent ${step.state === "rejected" ? "rejected" : "failed"} the task`;
  return new ProviderError(`a2a: ${message}`, { code, retryable: error?.retryable === true });
}

export interface RunContext {
  config: A2AConfig;
  importer: A2ASdkImporter | undefined;
}

// long-function: the run's lifecycle in order (connect, deliver, exchange until the task ends, cancel on abort); each step is one call
export async function runRemote(request: RunRequest, sink: EventSink, signal: AbortSignal, ctx: RunContext): Promise<RunResponse> {
  signal.throwIfAborted();
  const emitter = new OrderedEmitter(sink);
  const sdk = await loadA2ASdk(ctx.importer);
  for (const secret of configSecrets(ctx.config)) request.registerSecret(secret);
  const remote = new Remote(ctx.config);
  let client: Client;
  let streaming: boolean;
  try {
    const card = await remote.card(sdk);
    streaming = card.capabilities?.streaming === true;
    client = await remote.client(sdk, card);
  } catch (error) {
    throw remote.failure(error, "before_delivery");
  }
  const mapper = new StreamMapper(emitter.emit, sdk.core.TaskState as unknown as Record<number, string>);
  const x: Exchange = { sdk, client, streaming, mapper, signal };
  let bound = false;
  const bind = async () => {
    if (bound || request.thread === undefined || mapper.contextId === undefined) return;
    bound = true;
    await emitter.emit({ type: "thread.bound", providerSessionId: mapper.contextId, provenance: { provider: PROVIDER } });
  };
  let message = userMessage(sdk, [textPart(request.prompt)], { contextId: request.thread?.providerSessionId ?? "" });
  request.markDelivered();
  try {
    for (let asked = 0; ; asked++) {
      const step = await exchange(x, message);
      await bind();
      if (step.kind === "end") {
        if (step.state !== "completed") throw endFailure(step);
        await emitter.emit({ type: "run.completed" });
        await emitter.drain();
        const response: RunResponse = { text: step.text, raw: { provider: PROVIDER, taskId: mapper.taskId, contextId: mapper.contextId } };
        if (request.thread !== undefined && mapper.contextId !== undefined) response.providerSessionId = mapper.contextId;
        if (mapper.usage !== undefined) response.usage = mapper.usage;
        return response;
      }
      const parts = await answerInput(step, request, `${mapper.taskId ?? "task"}-input-${asked}`);
      if (parts === undefined) {
        await cancelTask(client, mapper.taskId);
        throw new ProviderError("a2a: the remote agent needed input and it was declined");
      }
      message = userMessage(sdk, parts, { taskId: mapper.taskId ?? "", contextId: mapper.contextId ?? "" });
    }
  } catch (error) {
    if (signal.aborted) await cancelTask(client, mapper.taskId);
    throw await emitter.failure(remote.failure(error, "after_delivery"), signal);
  }
}

/** Cancels the remote task (best effort, bounded: the run ends whatever the agent says). */
async function cancelTask(client: Client, taskId: string | undefined): Promise<void> {
  if (taskId === undefined) return;
  await client.cancelTask({ tenant: "", id: taskId, metadata: undefined }, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
}
