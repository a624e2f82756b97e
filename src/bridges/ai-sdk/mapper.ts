/**
 * Canonical run events → AI SDK UI message stream chunks, for one assistant message (one run):
 * `start` on the first event, text and reasoning parts, dynamic tool parts with the approval flow,
 * data parts for approvals, questions, the plan, usage and notices, and `finish` (or `error` then
 * `finish`, or `abort`) at the run's terminal.
 */
import type { AgentEvent, EventOf } from "../../events/types.js";
import type { AgentUIMessageChunk, AgentUIMessageMetadata } from "./chunks.js";
import { TextParts } from "./text-parts.js";
import { ToolParts } from "./tool-parts.js";

export interface UiMapperOptions {
  /** The assistant message's id. Default: the run id. */
  messageId?: string;
}

export class UiMessageMapper {
  readonly #text = new TextParts("text");
  readonly #reasoning = new TextParts("reasoning");
  readonly #tools = new ToolParts();
  readonly #approvals = new Map<string, EventOf<"approval.requested">>();
  readonly #questions = new Map<string, EventOf<"question.requested">>();
  readonly #options: UiMapperOptions;
  #started = false;
  #ended = false;

  constructor(options: UiMapperOptions = {}) {
    this.#options = options;
  }

  /** Whether the run's terminal was mapped: nothing more belongs to this message. */
  get ended(): boolean {
    return this.#ended;
  }

  map(event: AgentEvent): AgentUIMessageChunk[] {
    if (this.#ended) return [];
    const out = this.#started ? [] : this.#start(event);
    out.push(...this.#content(event));
    return out;
  }

  #start(event: AgentEvent): AgentUIMessageChunk[] {
    this.#started = true;
    const metadata: AgentUIMessageMetadata = { runId: event.runId, ...(event.threadId !== undefined ? { threadId: event.threadId } : {}) };
    if (event.type === "run.started") {
      metadata.driver = event.driver;
      if (event.model !== undefined) metadata.model = event.model;
    }
    return [{ type: "start", messageId: this.#options.messageId ?? event.runId, messageMetadata: metadata }, { type: "start-step" }];
  }

  #content(event: AgentEvent): AgentUIMessageChunk[] {
    switch (event.type) {
      case "message.delta":
        return this.#text.delta(event.itemId, event.text);
      case "message.completed":
        return this.#text.complete(event.itemId, event.text);
      case "reasoning.delta":
        return this.#reasoning.delta(event.itemId, event.text);
      case "reasoning.completed":
        return this.#reasoning.complete(event.itemId, event.text);
      case "tool.started":
        return this.#tools.started(event);
      case "tool.updated":
        return this.#tools.updated(event);
      case "tool.completed":
        return this.#tools.completed(event);
      case "approval.requested":
      case "approval.resolved":
        return this.#approval(event);
      case "question.requested":
      case "question.resolved":
        return this.#question(event);
      case "plan.updated":
        return [{ type: "data-plan", id: `plan-${event.runId}`, data: { entries: event.entries } }];
      case "usage.observed":
        return [{ type: "data-usage", id: `usage-${event.runId}`, data: event.usage }];
      case "notice":
        return [{ type: "data-notice", data: { level: event.level, code: event.code, message: event.message, ...(event.count !== undefined ? { count: event.count } : {}) } }];
      case "thread.bound":
        return [{ type: "message-metadata", messageMetadata: { providerSessionId: event.providerSessionId } }];
      case "run.completed":
      case "run.failed":
      case "run.cancelled":
        return this.#terminal(event);
      default:
        // run.started is the `start` chunk; a type of a later schema has no part here.
        return [];
    }
  }

  #approval(event: EventOf<"approval.requested"> | EventOf<"approval.resolved">): AgentUIMessageChunk[] {
    if (event.type === "approval.requested") {
      this.#approvals.set(event.requestId, event);
      const { requestId, runId, kind, summary, options, callId } = event;
      const data = { requestId, runId, kind, summary, options, ...(callId !== undefined ? { callId } : {}), status: "pending" as const };
      const out: AgentUIMessageChunk[] = [{ type: "data-approval", id: requestId, data }];
      if (callId !== undefined) out.push(...this.#tools.approvalRequested(callId, requestId, kind, summary));
      return out;
    }
    const request = this.#approvals.get(event.requestId);
    if (request === undefined) return [];
    const { requestId, runId, kind, summary, options, callId } = request;
    const data = { requestId, runId, kind, summary, options, ...(callId !== undefined ? { callId } : {}), status: "resolved" as const, decision: event.decision, by: event.by };
    const out: AgentUIMessageChunk[] = [{ type: "data-approval", id: requestId, data }];
    if (callId !== undefined) out.push(...this.#tools.approvalResolved(callId, requestId, event.decision.decision === "allow"));
    return out;
  }

  #question(event: EventOf<"question.requested"> | EventOf<"question.resolved">): AgentUIMessageChunk[] {
    if (event.type === "question.requested") {
      this.#questions.set(event.requestId, event);
      return [{ type: "data-question", id: event.requestId, data: { requestId: event.requestId, runId: event.runId, questions: event.questions, status: "pending" } }];
    }
    const request = this.#questions.get(event.requestId);
    if (request === undefined) return [];
    const data = { requestId: event.requestId, runId: request.runId, questions: request.questions, status: event.answered ? ("answered" as const) : ("declined" as const), by: event.by };
    return [{ type: "data-question", id: event.requestId, data }];
  }

  #terminal(event: EventOf<"run.completed"> | EventOf<"run.failed"> | EventOf<"run.cancelled">): AgentUIMessageChunk[] {
    this.#ended = true;
    const reason = event.type === "run.completed" ? "the run ended" : event.type === "run.failed" ? event.error.message : "cancelled";
    const out = [...this.#text.closeAll(), ...this.#reasoning.closeAll(), ...this.#tools.closeAll(reason), { type: "finish-step" } as AgentUIMessageChunk];
    if (event.type === "run.completed") {
      const { result } = event;
      const metadata: AgentUIMessageMetadata = {
        status: "completed",
        durationMs: result.durationMs,
        ...(result.usage !== undefined ? { usage: result.usage } : {}),
        ...(result.providerSessionId !== undefined ? { providerSessionId: result.providerSessionId } : {}),
      };
      out.push({ type: "finish", finishReason: "stop", messageMetadata: metadata });
    } else if (event.type === "run.failed") {
      out.push({ type: "error", errorText: event.error.message });
      out.push({ type: "finish", finishReason: "error", messageMetadata: { status: "failed", errorCode: event.error.code } });
    } else {
      // As the AI SDK's own streams end a cancelled response: `abort`, no `finish`.
      out.push({ type: "message-metadata", messageMetadata: { status: "cancelled" } });
      out.push({ type: "abort", ...(event.reason !== undefined ? { reason: event.reason } : {}) });
    }
    return out;
  }

  /** The source ended before a terminal (a reader stopped, a log was cut): close the message. */
  unfinished(): AgentUIMessageChunk[] {
    if (this.#ended || !this.#started) return [];
    this.#ended = true;
    return [...this.#text.closeAll(), ...this.#reasoning.closeAll(), ...this.#tools.closeAll("the stream ended"), { type: "finish-step" }, { type: "finish", finishReason: "other" }];
  }
}
