/**
 * `toAgUi(stream)`: one run's canonical events as an AG-UI event stream, from `RUN_STARTED` to
 * `RUN_FINISHED` or `RUN_ERROR`. Pure mapping: nothing of `@ag-ui/core` is loaded. Approvals and
 * questions appear in the shared state (`agentAdaptor.pendingApprovals` / `pendingQuestions`); the
 * host answers them on the run's own stream. The HTTP endpoint (`agUiHandler`) turns them into
 * AG-UI interrupts instead.
 */
import type { AgentEvent } from "../../events/types.js";
import { isTerminalEvent } from "../../events/types.js";
import type { AgUiEvent } from "./events.js";
import { AgUiTranslator } from "./translate.js";

export interface ToAgUiOptions {
  /** The AG-UI thread id. Default: the run's thread id, else its run id. */
  threadId?: string;
  /** The AG-UI run id. Default: the run's id. */
  runId?: string;
  /** The client's state, kept beside `agentAdaptor` in the state snapshot. */
  state?: Record<string, unknown>;
  /** Echoed as `RUN_STARTED.input` (an AG-UI `RunAgentInput`). */
  input?: unknown;
}

/**
 * The run's events as AG-UI events. Stopping the iteration early stops reading the run's stream,
 * which cancels the run (as breaking out of the stream itself does).
 *
 * @example
 * ```ts
 * for await (const event of toAgUi(agent.stream("Fix the test"), { threadId: "t-1" })) send(event);
 * ```
 */
export async function* toAgUi(stream: AsyncIterable<AgentEvent>, options: ToAgUiOptions = {}): AsyncGenerator<AgUiEvent, void, undefined> {
  const iterator = stream[Symbol.asyncIterator]();
  let finished = false;
  try {
    const first = await iterator.next();
    const runId = options.runId ?? (first.done ? runIdOf(stream) : first.value.runId) ?? "run";
    const threadId = options.threadId ?? (first.done ? undefined : first.value.threadId) ?? runId;
    const translator = new AgUiTranslator({ threadId, ...(options.state ? { state: options.state } : {}) });
    yield* translator.begin(runId, options.input);
    for (let next = first; !next.done; next = await iterator.next()) {
      yield* translator.translate(next.value);
      if (isTerminalEvent(next.value)) {
        finished = true;
        return;
      }
    }
    finished = true;
    yield* translator.unterminated("the run's stream ended without a terminal event");
  } finally {
    if (!finished) await iterator.return?.();
  }
}

function runIdOf(stream: AsyncIterable<AgentEvent>): string | undefined {
  const runId = (stream as { runId?: unknown }).runId;
  return typeof runId === "string" ? runId : undefined;
}
