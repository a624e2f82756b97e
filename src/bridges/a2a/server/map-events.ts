/**
 * Canonical events → A2A events of one task. Model text streams as artifact chunks (one artifact
 * per message item; its last chunk replaces the chunks with the whole text); reasoning, tool
 * calls and plans are `working` status messages; an approval or a question turns the task
 * `input-required`; the terminal is `completed` (its message is the result text), `failed` or
 * `canceled`. Every A2A event carries the canonical event it stands for (protocol.ts), so an
 * `a2a()` driver rebuilds the run; deltas and tool output deltas are not carried one by one.
 */
import type { AgentExecutionEvent } from "@a2a-js/sdk/server";
import type { AgentEvent, ApprovalOption, Question } from "../../../events/types.js";
import { clientEvent } from "../../shared/client-event.js";
import { MESSAGE_ARTIFACT, type CarriedEvent } from "../protocol.js";
import { carrying, dataPart, textPart, type TaskObjects } from "./objects.js";

/** What one canonical event becomes, and whether the task stops there for the caller. */
export interface Mapped {
  events: AgentExecutionEvent[];
  stop?: "input" | "end";
}

const NOTHING: Mapped = { events: [] };

/** The event without its run-local fields (`seq`, `runId`, `threadId`, `at`). */
export function carried(event: AgentEvent): CarriedEvent {
  const { seq: _seq, runId: _runId, threadId: _threadId, at: _at, ...rest } = event;
  return rest as CarriedEvent;
}

function optionList(options: ApprovalOption[]): string {
  return options.map((o) => `${o.id} (${o.label})`).join(", ");
}

/** The prompt a person reading the task sees for an approval. */
export function approvalText(summary: string, options: ApprovalOption[]): string {
  const choices = options.length > 0 ? ` or one of the options: ${optionList(options)}` : "";
  return `Approval needed: ${summary}. Answer allow or deny${choices}.`;
}

export function questionText(questions: Question[]): string {
  return questions
    .map((q) => {
      const options = q.options?.length ? ` Options: ${q.options.map((o) => o.label).join(", ")}.` : "";
      return `${q.header !== undefined ? `${q.header}: ` : ""}${q.question}${options}`;
    })
    .join("\n");
}

/** Maps the events of one run to the A2A events of its task. */
export class EventMapper {
  readonly #streamed = new Set<string>();
  readonly #objects: TaskObjects;

  constructor(objects: TaskObjects) {
    this.#objects = objects;
  }

  // long-function: one case per canonical event type, each a line or two
  map(event: AgentEvent): Mapped {
    const o = this.#objects;
    const s = o.states;
    const working = (text: string) => ({ events: [o.status(s.TASK_STATE_WORKING, o.agentMessage([textPart(text)], carrying(carried(event))))] });
    switch (event.type) {
      case "run.started":
      case "approval.resolved":
      case "question.resolved":
      case "usage.observed":
      case "notice":
        return { events: [o.status(s.TASK_STATE_WORKING, undefined, carrying(carried(event)))] };
      case "message.delta": {
        const append = this.#streamed.has(event.itemId);
        this.#streamed.add(event.itemId);
        return { events: [o.artifact(`message-${event.itemId}`, MESSAGE_ARTIFACT, [textPart(event.text)], { append, lastChunk: false })] };
      }
      case "message.completed":
        this.#streamed.delete(event.itemId);
        return { events: [o.artifact(`message-${event.itemId}`, MESSAGE_ARTIFACT, [textPart(event.text)], { append: false, lastChunk: true })] };
      case "reasoning.completed":
        return working(event.text);
      case "tool.started":
        return working(event.title);
      case "tool.completed":
        return working(`${event.status}${event.output !== undefined ? `: ${event.output.slice(0, 2000)}` : ""}`);
      case "plan.updated":
        return working(event.entries.map((e) => `[${e.status}] ${e.text}`).join("\n"));
      case "approval.requested": {
        const data = { requestId: event.requestId, kind: event.kind, summary: event.summary, options: event.options, ...(event.callId !== undefined ? { callId: event.callId } : {}) };
        const message = o.agentMessage([textPart(approvalText(event.summary, event.options)), dataPart(data)], carrying(carried(event)));
        return { events: [o.status(s.TASK_STATE_INPUT_REQUIRED, message)], stop: "input" };
      }
      case "question.requested": {
        const message = o.agentMessage([textPart(questionText(event.questions)), dataPart({ requestId: event.requestId, questions: event.questions })], carrying(carried(event)));
        return { events: [o.status(s.TASK_STATE_INPUT_REQUIRED, message)], stop: "input" };
      }
      case "run.completed":
        return { events: [o.status(s.TASK_STATE_COMPLETED, o.agentMessage([textPart(event.result.text)], carrying(carried(event))))], stop: "end" };
      case "run.failed": {
        // A failure's text may name the workspace or another host path; the client is remote.
        const failed = clientEvent(event);
        return { events: [o.status(s.TASK_STATE_FAILED, o.agentMessage([textPart(failed.error.message)], carrying(carried(failed))))], stop: "end" };
      }
      case "run.cancelled":
        return { events: [o.status(s.TASK_STATE_CANCELED, o.agentMessage([textPart(event.reason ?? "cancelled")], carrying(carried(event))))], stop: "end" };
      default:
        // thread.bound (the context id is the conversation), reasoning and tool output deltas.
        return NOTHING;
    }
  }
}
