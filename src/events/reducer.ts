/**
 * Folds one run's events into what a UI renders: messages, reasoning, tool calls with their
 * output and files, the plan, the requests waiting for an answer, usage and the outcome.
 * Pure and immutable (each event gives a new state that shares what did not change), so it fits
 * `useReducer` and friends; the state is plain JSON data like the events.
 */
import type { Usage } from "./usage.js";
import type {
  AgentEvent,
  ApprovalOption,
  EventOf,
  FileChange,
  McpToolRef,
  PlanEntry,
  Question,
  ResultSummary,
  RunFailure,
  ToolCompleted,
  ToolKind,
} from "./types.js";

/** A message or a reasoning item, its text merged from deltas. */
export interface TextItemState {
  itemId: string;
  text: string;
  /** Its `*.completed` event arrived (the text is then the provider's final text). */
  completed: boolean;
}

/** One tool call as far as its events tell. */
export interface ToolCallState {
  callId: string;
  kind: ToolKind;
  name?: string;
  title: string;
  command?: string;
  cwd?: string;
  mcp?: McpToolRef;
  status: "running" | ToolCompleted["status"];
  /** The `tool.updated` output deltas joined; replaced by `tool.completed.output` when it has one. */
  output: string;
  exitCode?: number;
  /** The latest list of changed files (each later list replaces the earlier one). */
  files: FileChange[];
}

/** An approval request still waiting for its `approval.resolved`. */
export interface PendingApproval {
  requestId: string;
  kind: EventOf<"approval.requested">["kind"];
  callId?: string;
  summary: string;
  options: ApprovalOption[];
}

/** A question request still waiting for its `question.resolved`. */
export interface PendingQuestion {
  requestId: string;
  questions: Question[];
}

/** A notice as a UI shows it. */
export type NoticeState = Pick<EventOf<"notice">, "level" | "code" | "message" | "count">;

/** Everything {@link reduceRunEvent} knows about one run. */
export interface RunState {
  /** The run the state follows: set by its first event; events of other runs are ignored. */
  runId?: string;
  threadId?: string;
  driver?: string;
  model?: string;
  schemaVersion?: number;
  providerSessionId?: string;
  /** `pending` until the first event, `running` until the terminal event. */
  status: "pending" | "running" | "completed" | "failed" | "cancelled";
  /** The highest `seq` folded in (-1 before any): an event at or below it is a replay and ignored. */
  lastSeq: number;
  messages: TextItemState[];
  reasoning: TextItemState[];
  tools: ToolCallState[];
  plan: PlanEntry[];
  pendingApprovals: PendingApproval[];
  pendingQuestions: PendingQuestion[];
  /** The latest `usage.observed`, then the result's usage when it has one. */
  usage?: Usage;
  notices: NoticeState[];
  /** `run.completed`'s summary. */
  result?: ResultSummary;
  /** `run.failed`'s failure. */
  error?: RunFailure;
  /** `run.cancelled`'s reason. */
  cancelReason?: string;
}

/** The state before any event. */
export function initialRunState(): RunState {
  return {
    status: "pending",
    lastSeq: -1,
    messages: [],
    reasoning: [],
    tools: [],
    plan: [],
    pendingApprovals: [],
    pendingQuestions: [],
    notices: [],
  };
}

/**
 * The state after `event`. Returns `state` itself for an event it ignores: one of another run,
 * a replay (`seq` not above `lastSeq`) or a type it does not know.
 */
export function reduceRunEvent(state: RunState, event: AgentEvent): RunState {
  if (state.runId !== undefined && event.runId !== state.runId) return state;
  if (event.seq <= state.lastSeq) return state;
  const apply = REDUCERS[event.type] as Reducer<AgentEvent> | undefined;
  if (apply === undefined) return state;
  const next: RunState = { ...state, runId: event.runId, lastSeq: event.seq };
  if (state.status === "pending") next.status = "running";
  if (event.threadId !== undefined) next.threadId = event.threadId;
  return apply(next, event);
}

/** {@link reduceRunEvent} over many events, from `state` (default: the initial state). */
export function foldRunEvents(events: Iterable<AgentEvent>, state: RunState = initialRunState()): RunState {
  let current = state;
  for (const event of events) current = reduceRunEvent(current, event);
  return current;
}

type Reducer<E> = (state: RunState, event: E) => RunState;
type Reducers = { [K in AgentEvent["type"]]: Reducer<EventOf<K>> };

const REDUCERS: Reducers = {
  "run.started": (s, e) => withOptional({ ...s, driver: e.driver, schemaVersion: e.schemaVersion }, "model", e.model),
  "thread.bound": (s, e) => ({ ...s, providerSessionId: e.providerSessionId }),
  "message.delta": (s, e) => ({ ...s, messages: appendText(s.messages, e.itemId, e.text) }),
  "message.completed": (s, e) => ({ ...s, messages: completeText(s.messages, e.itemId, e.text) }),
  "reasoning.delta": (s, e) => ({ ...s, reasoning: appendText(s.reasoning, e.itemId, e.text) }),
  "reasoning.completed": (s, e) => ({ ...s, reasoning: completeText(s.reasoning, e.itemId, e.text) }),
  "tool.started": (s, e) => ({ ...s, tools: upsertTool(s.tools, e.callId, (seen) => startedTool(e, seen)) }),
  "tool.updated": (s, e) => ({ ...s, tools: updateTool(s.tools, e.callId, (t) => updatedTool(t, e)) }),
  "tool.completed": (s, e) => ({ ...s, tools: updateTool(s.tools, e.callId, (t) => completedTool(t, e)) }),
  "plan.updated": (s, e) => ({ ...s, plan: e.entries }),
  "approval.requested": (s, e) => ({ ...s, pendingApprovals: [...s.pendingApprovals, approvalOf(e)] }),
  "approval.resolved": (s, e) => ({ ...s, pendingApprovals: s.pendingApprovals.filter((a) => a.requestId !== e.requestId) }),
  "question.requested": (s, e) => ({ ...s, pendingQuestions: [...s.pendingQuestions, { requestId: e.requestId, questions: e.questions }] }),
  "question.resolved": (s, e) => ({ ...s, pendingQuestions: s.pendingQuestions.filter((q) => q.requestId !== e.requestId) }),
  "usage.observed": (s, e) => ({ ...s, usage: e.usage }),
  notice: (s, e) => ({ ...s, notices: [...s.notices, withOptional({ level: e.level, code: e.code, message: e.message }, "count", e.count)] }),
  "run.completed": (s, e) => {
    const next: RunState = { ...ended(s, "completed"), result: e.result };
    if (e.result.usage !== undefined) next.usage = e.result.usage;
    if (e.result.providerSessionId !== undefined) next.providerSessionId = e.result.providerSessionId;
    return next;
  },
  "run.failed": (s, e) => ({ ...ended(s, "failed"), error: e.error }),
  "run.cancelled": (s, e) => withOptional(ended(s, "cancelled"), "cancelReason", e.reason),
};

/** A finished run answers no more requests. */
function ended(state: RunState, status: "completed" | "failed" | "cancelled"): RunState {
  return { ...state, status, pendingApprovals: [], pendingQuestions: [] };
}

/** `target` with `key` set when `value` is defined: states stay free of undefined-valued keys. */
function withOptional<T extends object, K extends string, V>(target: T, key: K, value: V | undefined): T {
  if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  return target;
}

function indexOfItem<T extends { itemId: string }>(items: readonly T[], itemId: string): number {
  // The item being streamed is nearly always the last one.
  for (let i = items.length - 1; i >= 0; i--) if (items[i]!.itemId === itemId) return i;
  return -1;
}

function appendText(items: TextItemState[], itemId: string, text: string): TextItemState[] {
  const at = indexOfItem(items, itemId);
  if (at < 0) return [...items, { itemId, text, completed: false }];
  const next = items.slice();
  next[at] = { ...items[at]!, text: items[at]!.text + text };
  return next;
}

function completeText(items: TextItemState[], itemId: string, text: string): TextItemState[] {
  const at = indexOfItem(items, itemId);
  if (at < 0) return [...items, { itemId, text, completed: true }];
  const next = items.slice();
  next[at] = { itemId, text, completed: true };
  return next;
}

/** The call as its start describes it; what an earlier update or completion of it said is kept. */
function startedTool(e: EventOf<"tool.started">, seen: ToolCallState | undefined): ToolCallState {
  const files = e.files ?? seen?.files ?? [];
  const tool: ToolCallState = { callId: e.callId, kind: e.kind, title: e.title, status: seen?.status ?? "running", output: seen?.output ?? "", files };
  withOptional(tool, "exitCode", seen?.exitCode);
  withOptional(tool, "name", e.name);
  withOptional(tool, "command", e.command);
  withOptional(tool, "cwd", e.cwd);
  return withOptional(tool, "mcp", e.mcp);
}

function updatedTool(tool: ToolCallState, e: EventOf<"tool.updated">): ToolCallState {
  const next = { ...tool };
  if (e.output !== undefined) next.output = tool.output + e.output;
  if (e.files !== undefined) next.files = e.files;
  return next;
}

function completedTool(tool: ToolCallState, e: EventOf<"tool.completed">): ToolCallState {
  const next: ToolCallState = { ...tool, status: e.status };
  if (e.output !== undefined) next.output = e.output;
  if (e.files !== undefined) next.files = e.files;
  return withOptional(next, "exitCode", e.exitCode);
}

/** A call seen first in an update or its completion (its start was missed) gets a placeholder. */
function placeholderTool(callId: string): ToolCallState {
  return { callId, kind: "other", title: callId, status: "running", output: "", files: [] };
}

function upsertTool(tools: ToolCallState[], callId: string, make: (seen: ToolCallState | undefined) => ToolCallState): ToolCallState[] {
  const at = tools.findIndex((t) => t.callId === callId);
  if (at < 0) return [...tools, make(undefined)];
  const next = tools.slice();
  next[at] = make(tools[at]);
  return next;
}

function updateTool(tools: ToolCallState[], callId: string, change: (tool: ToolCallState) => ToolCallState): ToolCallState[] {
  const at = tools.findIndex((t) => t.callId === callId);
  if (at < 0) return [...tools, change(placeholderTool(callId))];
  const next = tools.slice();
  next[at] = change(tools[at]!);
  return next;
}

function approvalOf(e: EventOf<"approval.requested">): PendingApproval {
  const approval: PendingApproval = { requestId: e.requestId, kind: e.kind, summary: e.summary, options: e.options };
  return withOptional(approval, "callId", e.callId);
}
