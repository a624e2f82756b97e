/**
 * Canonical run events → AG-UI events, one run at a time. Stateful: it opens and closes AG-UI
 * text and reasoning messages around the canonical items, announces each tool call once (start,
 * its whole arguments, end) and answers it with `TOOL_CALL_RESULT`, and keeps the shared state
 * (plan, pending approvals and questions, usage) that `STATE_SNAPSHOT` / `STATE_DELTA` carry.
 * One canonical run may span several AG-UI runs (a paused run resumed by a later request):
 * `begin()` starts each, `interrupt()` ends one waiting for an answer.
 */
import type { AgentEvent, EventOf, ResultSummary, ToolStarted } from "../../events/types.js";
import type { Usage } from "../../events/usage.js";
import { clientErrorText } from "../shared/client-event.js";
import { AG_UI_STATE_KEY, type AgUiEvent, type AgUiInterrupt, type AgUiRunState, type AgUiTokenUsage } from "./events.js";
import { interruptOf } from "./interrupts.js";

/** Tool output kept per call until its result, when the provider reports no whole output at the end. */
const MAX_TOOL_OUTPUT = 64 * 1024;

export interface TranslatorOptions {
  threadId: string;
  /** The client's own state, kept beside {@link AG_UI_STATE_KEY} in each snapshot. */
  state?: Record<string, unknown>;
}

export class AgUiTranslator {
  readonly threadId: string;
  #runId = "";
  #base: Record<string, unknown>;
  readonly #state: AgUiRunState = { plan: [], pendingApprovals: [], pendingQuestions: [] };
  /** Open AG-UI text / reasoning message id per canonical item. */
  readonly #texts = new Map<string, string>();
  readonly #reasonings = new Map<string, string>();
  /** How many AG-UI messages each item has had: an item continued after a pause gets a new id. */
  readonly #segments = new Map<string, number>();
  readonly #tools = new Map<string, { output: string }>();
  #driver: string | undefined;
  #model: string | undefined;

  constructor(options: TranslatorOptions) {
    this.threadId = options.threadId;
    this.#base = { ...options.state };
  }

  /** The AG-UI run id now open. */
  get runId(): string {
    return this.#runId;
  }

  /** Opens an AG-UI run: `RUN_STARTED` and a snapshot of the shared state. */
  begin(runId: string, input?: unknown, state?: Record<string, unknown>): AgUiEvent[] {
    this.#runId = runId;
    if (state !== undefined) this.#base = { ...state };
    const started: AgUiEvent = { type: "RUN_STARTED", threadId: this.threadId, runId, timestamp: Date.now(), ...(input !== undefined ? { input } : {}) };
    return [started, { type: "STATE_SNAPSHOT", snapshot: { ...this.#base, [AG_UI_STATE_KEY]: structuredClone(this.#state) }, timestamp: Date.now() }];
  }

  /** The AG-UI events for one canonical event (none for what AG-UI has no place for). */
  translate(event: AgentEvent): AgUiEvent[] {
    const at = { timestamp: event.at };
    switch (event.type) {
      case "run.started":
        this.#driver = event.driver;
        this.#model = event.model;
        return [{ type: "CUSTOM", name: "agent-adaptor.run_started", value: { runId: event.runId, driver: event.driver, ...(event.model ? { model: event.model } : {}) }, ...at }];
      case "message.delta":
      case "message.completed":
        return this.#text(event);
      case "reasoning.delta":
      case "reasoning.completed":
        return this.#reasoning(event);
      case "tool.started":
        return this.#toolStarted(event, event.at);
      case "tool.updated":
        return this.#toolUpdated(event);
      case "tool.completed":
        return this.#toolCompleted(event);
      default:
        return this.#other(event);
    }
  }

  /** Ends the open AG-UI run waiting for `request`: open messages closed, `RUN_FINISHED` with an interrupt outcome. */
  interrupt(request: EventOf<"approval.requested"> | EventOf<"question.requested">, expiresAt?: Date): AgUiEvent[] {
    const interrupt: AgUiInterrupt = interruptOf(request, this.#tools, expiresAt);
    return [...this.closeOpen(request.at), { type: "RUN_FINISHED", threadId: this.threadId, runId: this.#runId, outcome: { type: "interrupt", interrupts: [interrupt] }, timestamp: request.at }];
  }

  /** Closes every open text and reasoning message (a pause or an ending). */
  closeOpen(at: number = Date.now()): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    for (const messageId of this.#texts.values()) out.push({ type: "TEXT_MESSAGE_END", messageId, timestamp: at });
    for (const messageId of this.#reasonings.values()) out.push(...reasoningEnd(messageId, at));
    this.#texts.clear();
    this.#reasonings.clear();
    return out;
  }

  /** The run's stream ended without a terminal event. */
  unterminated(message: string): AgUiEvent[] {
    return [...this.closeOpen(), { type: "RUN_ERROR", message, code: "stream_ended", timestamp: Date.now() }];
  }

  #messageId(itemId: string): string {
    const segment = (this.#segments.get(itemId) ?? 0) + 1;
    this.#segments.set(itemId, segment);
    return segment === 1 ? itemId : `${itemId}~${segment}`;
  }

  #text(event: EventOf<"message.delta"> | EventOf<"message.completed">): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    let messageId = this.#texts.get(event.itemId);
    const streamed = messageId !== undefined;
    const text = event.type === "message.delta" || !streamed ? event.text : "";
    if (messageId === undefined && (text !== "" || event.type === "message.completed")) {
      messageId = this.#messageId(event.itemId);
      this.#texts.set(event.itemId, messageId);
      out.push({ type: "TEXT_MESSAGE_START", messageId, role: "assistant", timestamp: event.at });
    }
    if (messageId !== undefined && text !== "") out.push({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: text, timestamp: event.at });
    if (messageId !== undefined && event.type === "message.completed") {
      out.push({ type: "TEXT_MESSAGE_END", messageId, timestamp: event.at });
      this.#texts.delete(event.itemId);
    }
    return out;
  }

  #reasoning(event: EventOf<"reasoning.delta"> | EventOf<"reasoning.completed">): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    let messageId = this.#reasonings.get(event.itemId);
    const streamed = messageId !== undefined;
    const text = event.type === "reasoning.delta" || !streamed ? event.text : "";
    if (messageId === undefined && (text !== "" || event.type === "reasoning.completed")) {
      messageId = this.#messageId(`reasoning:${event.itemId}`);
      this.#reasonings.set(event.itemId, messageId);
      out.push({ type: "REASONING_START", messageId, timestamp: event.at }, { type: "REASONING_MESSAGE_START", messageId, role: "reasoning", timestamp: event.at });
    }
    if (messageId !== undefined && text !== "") out.push({ type: "REASONING_MESSAGE_CONTENT", messageId, delta: text, timestamp: event.at });
    if (messageId !== undefined && event.type === "reasoning.completed") {
      out.push(...reasoningEnd(messageId, event.at));
      this.#reasonings.delete(event.itemId);
    }
    return out;
  }

  #toolStarted(started: ToolStarted, at: number): AgUiEvent[] {
    if (this.#tools.has(started.callId)) return [];
    this.#tools.set(started.callId, { output: "" });
    const metadata = { kind: started.kind, title: started.title };
    return [
      { type: "TOOL_CALL_START", toolCallId: started.callId, toolCallName: started.name ?? started.kind, metadata, timestamp: at },
      { type: "TOOL_CALL_ARGS", toolCallId: started.callId, delta: JSON.stringify(toolArguments(started)), timestamp: at },
      { type: "TOOL_CALL_END", toolCallId: started.callId, timestamp: at },
    ];
  }

  #toolUpdated(event: EventOf<"tool.updated">): AgUiEvent[] {
    const tool = this.#tools.get(event.callId);
    if (tool !== undefined && event.output !== undefined && tool.output.length < MAX_TOOL_OUTPUT) {
      tool.output = (tool.output + event.output).slice(0, MAX_TOOL_OUTPUT);
    }
    return [];
  }

  #toolCompleted(event: EventOf<"tool.completed">): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    // A call the provider reported only at its end is announced first.
    if (!this.#tools.has(event.callId)) out.push(...this.#toolStarted({ callId: event.callId, kind: "other", title: event.callId }, event.at));
    const output = event.output ?? this.#tools.get(event.callId)?.output ?? "";
    const content = { status: event.status, ...(output !== "" ? { output } : {}), ...(event.exitCode !== undefined ? { exitCode: event.exitCode } : {}), ...(event.files ? { files: event.files } : {}) };
    out.push({ type: "TOOL_CALL_RESULT", messageId: `result:${event.callId}`, toolCallId: event.callId, content: JSON.stringify(content), role: "tool", timestamp: event.at });
    return out;
  }

  #other(event: AgentEvent): AgUiEvent[] {
    const at = event.at;
    switch (event.type) {
      case "plan.updated":
        this.#state.plan = structuredClone(event.entries);
        return [this.#delta("plan", this.#state.plan, at)];
      case "approval.requested": {
        const { requestId, kind, summary, options } = event;
        this.#state.pendingApprovals.push({ requestId, kind, summary, options: structuredClone(options), ...(event.callId !== undefined ? { callId: event.callId } : {}) });
        return [this.#delta("pendingApprovals", this.#state.pendingApprovals, at)];
      }
      case "approval.resolved":
        this.#state.pendingApprovals = this.#state.pendingApprovals.filter((pending) => pending.requestId !== event.requestId);
        return [this.#delta("pendingApprovals", this.#state.pendingApprovals, at)];
      case "question.requested":
        this.#state.pendingQuestions.push({ requestId: event.requestId, questions: structuredClone(event.questions) });
        return [this.#delta("pendingQuestions", this.#state.pendingQuestions, at)];
      case "question.resolved":
        this.#state.pendingQuestions = this.#state.pendingQuestions.filter((pending) => pending.requestId !== event.requestId);
        return [this.#delta("pendingQuestions", this.#state.pendingQuestions, at)];
      case "usage.observed":
        this.#state.usage = { ...this.#state.usage, ...event.usage };
        return [this.#delta("usage", this.#state.usage, at)];
      case "notice":
        return [{ type: "CUSTOM", name: "agent-adaptor.notice", value: { level: event.level, code: event.code, message: event.message, ...(event.count !== undefined ? { count: event.count } : {}) }, timestamp: at }];
      default:
        return this.#terminal(event);
    }
  }

  #terminal(event: AgentEvent): AgUiEvent[] {
    const base = { threadId: this.threadId, runId: this.#runId, timestamp: event.at };
    switch (event.type) {
      case "run.completed": {
        const usage = this.#tokenUsage(event.result.usage ?? this.#state.usage);
        return [...this.closeOpen(event.at), { type: "RUN_FINISHED", ...base, result: resultOf(event.result), outcome: { type: "success" }, ...(usage ? { usage: [usage] } : {}) }];
      }
      case "run.failed":
        // The failure's text may name the workspace or another host path; the client is remote.
        return [...this.closeOpen(event.at), { type: "RUN_ERROR", message: clientErrorText(event.error.message), code: event.error.code, timestamp: event.at }];
      case "run.cancelled":
        return [...this.closeOpen(event.at), { type: "RUN_FINISHED", ...base, outcome: { type: "cancelled" } }];
      default:
        // thread.bound and event types of a later release have no AG-UI counterpart.
        return [];
    }
  }

  #delta(field: keyof AgUiRunState, value: unknown, at: number): AgUiEvent {
    return { type: "STATE_DELTA", delta: [{ op: "add", path: `/${AG_UI_STATE_KEY}/${field}`, value: structuredClone(value) }], timestamp: at };
  }

  #tokenUsage(usage: Usage | undefined): AgUiTokenUsage | undefined {
    if (usage?.input_tokens === undefined && usage?.output_tokens === undefined) return undefined;
    return {
      ...(this.#driver !== undefined ? { provider: this.#driver } : {}),
      ...(this.#model !== undefined ? { model: this.#model } : {}),
      ...(usage.input_tokens !== undefined ? { inputTokens: usage.input_tokens } : {}),
      ...(usage.output_tokens !== undefined ? { outputTokens: usage.output_tokens } : {}),
      ...(usage.reasoning_output_tokens !== undefined ? { reasoningTokens: usage.reasoning_output_tokens } : {}),
    };
  }
}

function reasoningEnd(messageId: string, at: number): AgUiEvent[] {
  return [
    { type: "REASONING_MESSAGE_END", messageId, timestamp: at },
    { type: "REASONING_END", messageId, timestamp: at },
  ];
}

/** A tool call's arguments: the provider's own input when it gave one, else the normalized fields. */
function toolArguments(started: ToolStarted): unknown {
  if (started.rawInput !== undefined) return started.rawInput;
  const { callId: _callId, kind: _kind, name: _name, rawInput: _raw, ...normalized } = started;
  return normalized;
}

/** `RUN_FINISHED.result`: the final text and the structured value, when there is one. */
function resultOf(result: ResultSummary): { text: string; structured?: unknown } {
  return { text: result.text, ...(result.structured !== undefined ? { structured: result.structured } : {}) };
}
