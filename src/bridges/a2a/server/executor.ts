/**
 * The `AgentExecutor` serving an Agent over A2A: a new task starts a run of the thread its
 * context id names (opened, or created under that id, on first use); a message on a task that
 * waits for input answers the pending approval or question through the run's stream; a cancel
 * cancels the run. Each task's run is a {@link TaskRun}.
 */
import type { Message } from "@a2a-js/sdk";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import type { Agent } from "../../../agent/agent.js";
import type { CallOptions } from "../../../agent/options.js";
import type { RunStream } from "../../../agent/run-stream.js";
import type { Thread } from "../../../agent/thread.js";
import { AdaptorError } from "../../../errors/index.js";
import { clientErrorText } from "../../shared/client-event.js";
import type { A2ASdk } from "../sdk.js";
import { messageText, readAnswer, type Answer } from "./answers.js";
import { carrying, textPart, TaskObjects } from "./objects.js";
import { TaskRun } from "./task-run.js";

/** How the served agent runs each task. */
export interface ExecutorOptions {
  /** Context ids are thread ids (default); `false`: every task is a stateless run. */
  threads: boolean;
  /** Who answers approvals and questions: the A2A client (default) or the agent's own handlers. */
  requests: "client" | "agent";
}

/** An error's text as the remote client may read it: host paths hidden. */
function errorMessage(error: unknown): string {
  return clientErrorText(error instanceof Error ? error.message : String(error));
}

export class AgentTaskExecutor implements AgentExecutor {
  readonly #sdk: A2ASdk;
  readonly #agent: Agent;
  readonly #options: ExecutorOptions;
  readonly #runs = new Map<string, TaskRun>();
  readonly #threads = new Map<string, Promise<Thread>>();

  constructor(sdk: A2ASdk, agent: Agent, options: ExecutorOptions) {
    this.#sdk = sdk;
    this.#agent = agent;
    this.#options = options;
  }

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const objects = new TaskObjects(this.#sdk, context.taskId, context.contextId);
    const states = this.#sdk.core.TaskState;
    const run = this.#runs.get(context.taskId);
    if (run !== undefined) return this.#continue(run, context, bus);
    if (context.task !== undefined) {
      // A task of an earlier server (or one already retired): its run is gone.
      bus.publish(objects.task(states.TASK_STATE_WORKING, context.task));
      bus.publish(objects.status(states.TASK_STATE_FAILED, objects.agentMessage([textPart("this task's run is no longer served")])));
      return;
    }
    bus.publish(objects.task(states.TASK_STATE_SUBMITTED, { ...emptyTask(context), history: [context.userMessage] }));
    const prompt = promptOf(context.userMessage);
    if (prompt === undefined) {
      bus.publish(objects.status(states.TASK_STATE_REJECTED, objects.agentMessage([textPart("the message holds no text part to run")])));
      return;
    }
    let stream: RunStream;
    try {
      stream = await this.#start(context.contextId, prompt);
    } catch (error) {
      const code = error instanceof AdaptorError ? error.code : "provider_error";
      const failure = { code, message: errorMessage(error), phase: "before_delivery", retryable: false };
      bus.publish(objects.status(states.TASK_STATE_FAILED, objects.agentMessage([textPart(failure.message)], carrying({ type: "run.failed", error: failure }))));
      return;
    }
    const started = new TaskRun(stream, objects);
    this.#runs.set(context.taskId, started);
    void started.done.then(() => this.#runs.delete(context.taskId));
    await started.serve(bus);
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const run = this.#runs.get(taskId);
    if (run === undefined) return;
    await run.serve(bus, () => {
      run.stream.cancel("cancelled by the A2A client");
      return "wait";
    });
  };

  /** A message on a task whose run is live: the answer to what it waits for. */
  async #continue(run: TaskRun, context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const states = this.#sdk.core.TaskState;
    if (run.pending === undefined && !run.ended) {
      // The task is working: nothing waits for an answer. Its events belong to the request it
      // serves; this one ends when the task next stops, without delivering the message.
      await run.serve(bus);
      return;
    }
    bus.publish(run.objects.task(states.TASK_STATE_WORKING, context.task));
    await run.serve(bus, (publish) => {
      const answer = readAnswer(context.userMessage, run.pending);
      const refusal = apply(run.stream, answer);
      if (refusal === undefined) return "wait";
      // The request still waits: say why the answer was refused, and wait again.
      const pending = run.pending;
      publish(run.objects.status(states.TASK_STATE_INPUT_REQUIRED, run.objects.agentMessage([textPart(`answer refused: ${refusal}`)], pending !== undefined ? carrying({ type: "answer.refused", requestId: pending.requestId, message: refusal }) : undefined)));
      return "stop";
    });
  }

  #start(contextId: string, prompt: string): Promise<RunStream> | RunStream {
    const options: CallOptions = this.#options.requests === "client" ? { onApproval: "stream", onUserInput: "stream" } : {};
    if (!this.#options.threads) return this.#agent.stream(prompt, options);
    return this.#thread(contextId).then((thread) => thread.stream(prompt, options));
  }

  #thread(contextId: string): Promise<Thread> {
    let thread = this.#threads.get(contextId);
    if (thread === undefined) {
      thread = openThread(this.#agent, contextId);
      this.#threads.set(contextId, thread);
      thread.catch(() => this.#threads.delete(contextId));
    }
    return thread;
  }

  /** Cancels every task still running and waits for their runs to end. */
  async close(): Promise<void> {
    const runs = [...this.#runs.values()];
    for (const run of runs) run.stream.cancel("the A2A server closed");
    await Promise.all(runs.map((run) => run.done));
  }
}

async function openThread(agent: Agent, id: string): Promise<Thread> {
  try {
    return await agent.resumeThread(id);
  } catch (error) {
    if (AdaptorError.is(error) && error.code === "thread_not_found") return agent.startThread({ id });
    throw error;
  }
}

/** Applies an answer to the run; the reason it was refused, if it was. */
function apply(stream: RunStream, answer: Answer): string | undefined {
  try {
    if (answer.kind === "invalid") return answer.message;
    if (answer.kind === "respond") stream.respond(answer.requestId, answer.decision);
    else if (answer.kind === "answer") stream.answer(answer.requestId, answer.answers);
    else stream.decline(answer.requestId);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

function promptOf(message: Message): string | undefined {
  const text = messageText(message);
  return text.trim() === "" ? undefined : text;
}

function emptyTask(context: RequestContext) {
  return { id: context.taskId, contextId: context.contextId, status: undefined, artifacts: [], history: [], metadata: {} };
}
