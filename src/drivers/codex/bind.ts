/**
 * Binding a run to its Codex thread: the thread a warm writer still has loaded, a fork
 * (`thread/fork`), a resume (`thread/resume`) or a new thread (`thread/start`). Announces
 * `thread.bound`.
 */
import type { RunRequest } from "../../driver/types.js";
import { ProviderError } from "../../errors/index.js";
import type { DriverEvent } from "../../events/types.js";
import type { TurnChannel } from "./channel.js";
import type { ThreadSettings } from "./params.js";
import type { ThreadForkParams } from "./protocol/v2/ThreadForkParams.js";
import type { ThreadForkResponse } from "./protocol/v2/ThreadForkResponse.js";
import type { ThreadResumeParams } from "./protocol/v2/ThreadResumeParams.js";
import type { ThreadResumeResponse } from "./protocol/v2/ThreadResumeResponse.js";
import type { ThreadStartParams } from "./protocol/v2/ThreadStartParams.js";
import type { ThreadStartResponse } from "./protocol/v2/ThreadStartResponse.js";
import { refuseWithoutLogin } from "./login.js";

type BindMethod = "thread/fork" | "thread/resume" | "thread/start" | "loaded";
type BindAnswer = Partial<ThreadStartResponse | ThreadResumeResponse | ThreadForkResponse> | undefined;

export interface BoundThread {
  threadId: string;
  /** What Codex settled for the thread (model, policies), kept for `Result.raw()`. */
  echo: Record<string, unknown>;
}

/** Sends the thread request the run calls for (none for a thread still loaded). */
async function requestThread(
  channel: TurnChannel,
  request: Pick<RunRequest, "thread">,
  settings: ThreadSettings,
  loaded: string | undefined,
): Promise<{ method: BindMethod; bound: BindAnswer }> {
  const thread = request.thread;
  if (loaded !== undefined && thread?.providerSessionId === loaded && thread.fork !== true) {
    // A warm writer: the thread is still loaded in this app-server, so the turn starts on it directly.
    return { method: "loaded", bound: { thread: { id: loaded } as ThreadStartResponse["thread"] } };
  }
  await refuseWithoutLogin(channel);
  if (thread?.providerSessionId !== undefined && thread.fork === true) {
    const params: ThreadForkParams = { threadId: thread.providerSessionId, ...settings, excludeTurns: true };
    return { method: "thread/fork", bound: (await channel.guarded("thread/fork", params)) as ThreadForkResponse };
  }
  if (thread?.providerSessionId !== undefined) {
    const params: ThreadResumeParams = { threadId: thread.providerSessionId, ...settings, excludeTurns: true };
    return { method: "thread/resume", bound: (await channel.guarded("thread/resume", params)) as ThreadResumeResponse };
  }
  const params: ThreadStartParams = { ...settings };
  return { method: "thread/start", bound: (await channel.guarded("thread/start", params)) as ThreadStartResponse };
}

/** Binds the thread, announces it and sets the mapper's thread. Rejects before delivery. */
export async function bindThread(
  channel: TurnChannel,
  request: Pick<RunRequest, "thread">,
  settings: ThreadSettings,
  loaded: string | undefined,
  emit: (event: DriverEvent) => Promise<void>,
): Promise<BoundThread> {
  const { method, bound } = await requestThread(channel, request, settings, loaded);
  const threadId = bound?.thread?.id;
  const echo = {
    method,
    model: bound?.model,
    modelProvider: bound?.modelProvider,
    approvalPolicy: bound?.approvalPolicy,
    sandbox: bound?.sandbox,
    reasoningEffort: bound?.reasoningEffort,
  };
  if (typeof threadId !== "string" || threadId === "") {
    throw new ProviderError("codex: the thread request answered without a thread id", { code: "malformed_response", phase: "before_delivery" });
  }
  channel.mapper.threadId = threadId;
  await emit({ type: "thread.bound", providerSessionId: threadId, provenance: { provider: "codex", event: method } });
  return { threadId, echo };
}
