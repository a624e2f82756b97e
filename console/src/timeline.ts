/**
 * The timeline of a session as the console shows it, folded from its event stream: message and
 * reasoning deltas accumulate into one item per provider item, a tool call is one item updated
 * from start to end, a run's plan and usage are one item each, and the pending approvals and
 * questions are what was requested and not yet resolved. Pure: `applyEntries` returns a new
 * state (changed items are new objects, unchanged ones are kept), so a view can compare by
 * reference.
 */
import type { AgentEvent, PendingApproval, PendingQuestion, SessionNotice, StreamEntry } from "./wire.js";
import type { FileChange, PlanEntry, ToolKind } from "../../src/events/types.js";
import type { Usage } from "../../src/events/usage.js";

/** Output kept per tool call: the tail, so a chatty command cannot grow the page without bound. */
export const TOOL_OUTPUT_CAP = 64 * 1024;

interface ItemBase {
  /** Stable identity within the timeline. */
  key: string;
  /** The sequence number of the entry that created it. */
  seq: number;
}

export interface RunItem extends ItemBase {
  kind: "run";
  runId: string;
  phase: "started" | "completed" | "failed" | "cancelled";
  driver?: string;
  model?: string;
  durationMs?: number;
  error?: { code: string; message: string };
  reason?: string;
}

export interface TextItem extends ItemBase {
  kind: "message" | "reasoning";
  runId: string;
  itemId: string;
  text: string;
  done: boolean;
}

export interface ToolItem extends ItemBase {
  kind: "tool";
  runId: string;
  callId: string;
  toolKind: ToolKind;
  title: string;
  name?: string;
  command?: string;
  cwd?: string;
  mcp?: { server: string; tool: string };
  parentCallId?: string;
  status: "running" | "completed" | "failed" | "declined" | "cancelled";
  exitCode?: number;
  output: string;
  /** Bytes of output dropped from the front past {@link TOOL_OUTPUT_CAP}. */
  outputDropped: number;
  files: FileChange[];
}

export interface PlanItem extends ItemBase {
  kind: "plan";
  runId: string;
  entries: PlanEntry[];
}

export interface UsageItem extends ItemBase {
  kind: "usage";
  runId: string;
  /** The latest value per key, as `usage.observed` asks. */
  usage: Usage;
}

export interface NoticeItem extends ItemBase {
  kind: "notice";
  level: "info" | "warning";
  code: string;
  message: string;
  count?: number;
}

export interface ApprovalItem extends ItemBase {
  kind: "approval";
  runId: string;
  requestId: string;
  summary: string;
  resolution?: { outcome: string; by: string };
}

export interface QuestionItem extends ItemBase {
  kind: "question";
  runId: string;
  requestId: string;
  /** The question texts only: answers never enter the timeline (a secret stays out of it). */
  prompts: string[];
  resolution?: { answered: boolean; by: string };
}

export interface SessionItem extends ItemBase {
  kind: "session";
  notice: SessionNotice;
}

export type TimelineItem = RunItem | TextItem | ToolItem | PlanItem | UsageItem | NoticeItem | ApprovalItem | QuestionItem | SessionItem;

export interface TimelineState {
  items: readonly TimelineItem[];
  /** Position of each item by key. */
  index: ReadonlyMap<string, number>;
  /** The highest sequence number applied; entries at or below it are ignored. */
  lastSeq: number;
  approvals: readonly PendingApproval[];
  questions: readonly PendingQuestion[];
  /**
   * Requests already resolved (or of an ended run), as {@link requestKey}: a late /pending answer never brings
   * them back. Per run: request ids are unique within a run only (providers and scripts reuse them).
   */
  settled: ReadonlySet<string>;
}

/** A request's identity in a session: its run and its id. */
export function requestKey(request: { runId: string; requestId: string }): string {
  return `${request.runId}:${request.requestId}`;
}

const sameRequest = (a: { runId: string; requestId: string }, b: { runId: string; requestId: string }): boolean => a.runId === b.runId && a.requestId === b.requestId;

export const EMPTY_TIMELINE: TimelineState = { items: [], index: new Map(), lastSeq: 0, approvals: [], questions: [], settled: new Set() };

/** Working copy of a state for one batch. */
class Draft {
  items: TimelineItem[];
  index: Map<string, number>;
  approvals: PendingApproval[];
  questions: PendingQuestion[];
  settled: Set<string>;
  lastSeq: number;
  constructor(state: TimelineState) {
    this.items = state.items.slice();
    this.index = new Map(state.index);
    this.approvals = state.approvals.slice();
    this.questions = state.questions.slice();
    this.settled = new Set(state.settled);
    this.lastSeq = state.lastSeq;
  }
  get<T extends TimelineItem>(key: string): T | undefined {
    const at = this.index.get(key);
    return at === undefined ? undefined : (this.items[at] as T);
  }
  put(item: TimelineItem): void {
    const at = this.index.get(item.key);
    if (at === undefined) {
      this.index.set(item.key, this.items.length);
      this.items.push(item);
    } else this.items[at] = item;
  }
  settle(request: { runId: string; requestId: string }): void {
    this.settled.add(requestKey(request));
    this.approvals = this.approvals.filter((a) => !sameRequest(a, request));
    this.questions = this.questions.filter((q) => !sameRequest(q, request));
  }
  settleRun(runId: string): void {
    for (const a of this.approvals) if (a.runId === runId) this.settled.add(requestKey(a));
    for (const q of this.questions) if (q.runId === runId) this.settled.add(requestKey(q));
    this.approvals = this.approvals.filter((a) => a.runId !== runId);
    this.questions = this.questions.filter((q) => q.runId !== runId);
  }
  done(): TimelineState {
    return { items: this.items, index: this.index, lastSeq: this.lastSeq, approvals: this.approvals, questions: this.questions, settled: this.settled };
  }
}

/** Fold `entries` into `state`. Entries at or below `state.lastSeq` (a replay overlap) change nothing. */
export function applyEntries(state: TimelineState, entries: readonly StreamEntry[]): TimelineState {
  const fresh = entries.filter((entry, i) => entry.seq > state.lastSeq && (i === 0 || entry.seq > entries[i - 1]!.seq));
  if (fresh.length === 0) return state;
  const draft = new Draft(state);
  for (const entry of fresh) {
    if (entry.seq <= draft.lastSeq) continue;
    draft.lastSeq = entry.seq;
    if (entry.event.type.startsWith("session.")) draft.put({ kind: "session", key: `s:${entry.seq}`, seq: entry.seq, notice: entry.event as SessionNotice });
    else applyRunEvent(draft, entry.seq, entry.event as AgentEvent);
  }
  return draft.done();
}

/** Add what GET /pending reports and the stream has not shown (e.g. trimmed from the log). */
export function mergePending(state: TimelineState, pending: { approvals: readonly PendingApproval[]; questions: readonly PendingQuestion[] }): TimelineState {
  const approvals = pending.approvals.filter((a) => !state.settled.has(requestKey(a)) && !state.approvals.some((b) => sameRequest(a, b)));
  const questions = pending.questions.filter((q) => !state.settled.has(requestKey(q)) && !state.questions.some((b) => sameRequest(q, b)));
  if (approvals.length === 0 && questions.length === 0) return state;
  return { ...state, approvals: [...state.approvals, ...approvals], questions: [...state.questions, ...questions] };
}

function applyRunEvent(draft: Draft, seq: number, event: AgentEvent): void {
  const runId = event.runId;
  switch (event.type) {
    case "run.started":
      draft.put({ kind: "run", key: `run:${runId}:started`, seq, runId, phase: "started", driver: event.driver, ...(event.model !== undefined ? { model: event.model } : {}) });
      return;
    case "run.completed":
      draft.settleRun(runId);
      draft.put({ kind: "run", key: `run:${runId}:end`, seq, runId, phase: "completed", durationMs: event.result.durationMs });
      return;
    case "run.failed":
      draft.settleRun(runId);
      draft.put({ kind: "run", key: `run:${runId}:end`, seq, runId, phase: "failed", error: { code: event.error.code, message: event.error.message } });
      return;
    case "run.cancelled":
      draft.settleRun(runId);
      draft.put({ kind: "run", key: `run:${runId}:end`, seq, runId, phase: "cancelled", ...(event.reason !== undefined ? { reason: event.reason } : {}) });
      return;
    case "thread.bound":
      return;
    case "message.delta":
    case "reasoning.delta":
    case "message.completed":
    case "reasoning.completed": {
      const kind = event.type.startsWith("message") ? "message" : "reasoning";
      const key = `${kind}:${runId}:${event.itemId}`;
      const prev = draft.get<TextItem>(key);
      const completed = event.type.endsWith(".completed");
      const text = completed ? event.text : (prev?.text ?? "") + event.text;
      draft.put({ kind, key, seq: prev?.seq ?? seq, runId, itemId: event.itemId, text, done: completed });
      return;
    }
    case "tool.started": {
      const key = `tool:${runId}:${event.callId}`;
      const prev = draft.get<ToolItem>(key);
      draft.put({
        kind: "tool",
        key,
        seq: prev?.seq ?? seq,
        runId,
        callId: event.callId,
        toolKind: event.kind,
        title: event.title,
        ...(event.name !== undefined ? { name: event.name } : {}),
        ...(event.command !== undefined ? { command: event.command } : {}),
        ...(event.cwd !== undefined ? { cwd: event.cwd } : {}),
        ...(event.mcp !== undefined ? { mcp: event.mcp } : {}),
        ...(event.parentCallId !== undefined ? { parentCallId: event.parentCallId } : {}),
        status: prev?.status ?? "running",
        output: prev?.output ?? "",
        outputDropped: prev?.outputDropped ?? 0,
        files: event.files ?? prev?.files ?? [],
      });
      return;
    }
    case "tool.updated": {
      const item = toolOf(draft, seq, runId, event.callId);
      const output = event.output !== undefined ? capOutput(item.output + event.output, item.outputDropped) : { output: item.output, dropped: item.outputDropped };
      draft.put({ ...item, output: output.output, outputDropped: output.dropped, files: event.files ?? item.files });
      return;
    }
    case "tool.completed": {
      const item = toolOf(draft, seq, runId, event.callId);
      const output = event.output !== undefined ? capOutput(event.output, 0) : { output: item.output, dropped: item.outputDropped };
      draft.put({
        ...item,
        status: event.status,
        ...(event.exitCode !== undefined ? { exitCode: event.exitCode } : {}),
        output: output.output,
        outputDropped: output.dropped,
        files: event.files ?? item.files,
      });
      return;
    }
    case "plan.updated": {
      const key = `plan:${runId}`;
      draft.put({ kind: "plan", key, seq: draft.get(key)?.seq ?? seq, runId, entries: event.entries });
      return;
    }
    case "usage.observed": {
      const key = `usage:${runId}`;
      const prev = draft.get<UsageItem>(key);
      draft.put({ kind: "usage", key, seq: prev?.seq ?? seq, runId, usage: { ...prev?.usage, ...event.usage } });
      return;
    }
    case "notice":
      draft.put({ kind: "notice", key: `n:${seq}`, seq, level: event.level, code: event.code, message: event.message, ...(event.count !== undefined ? { count: event.count } : {}) });
      return;
    case "approval.requested": {
      const request = { runId, requestId: event.requestId };
      if (!draft.settled.has(requestKey(request)) && !draft.approvals.some((a) => sameRequest(a, request))) {
        draft.approvals.push({
          runId,
          requestId: event.requestId,
          kind: event.kind,
          ...(event.callId !== undefined ? { callId: event.callId } : {}),
          summary: event.summary,
          options: event.options,
        });
      }
      draft.put({ kind: "approval", key: `approval:${requestKey(request)}`, seq, runId, requestId: event.requestId, summary: event.summary });
      return;
    }
    case "approval.resolved": {
      const request = { runId, requestId: event.requestId };
      draft.settle(request);
      const key = `approval:${requestKey(request)}`;
      const prev = draft.get<ApprovalItem>(key);
      const d = event.decision;
      // The option id only when it says more than the decision (Codex's "decline", "acceptForSession").
      const outcome = d.optionId !== undefined && d.optionId !== d.decision ? `${d.decision} (${d.optionId})` : d.decision;
      draft.put({ kind: "approval", key, seq: prev?.seq ?? seq, runId, requestId: event.requestId, summary: prev?.summary ?? "", resolution: { outcome, by: event.by } });
      return;
    }
    case "question.requested": {
      const request = { runId, requestId: event.requestId };
      if (!draft.settled.has(requestKey(request)) && !draft.questions.some((q) => sameRequest(q, request))) {
        draft.questions.push({ runId, requestId: event.requestId, questions: event.questions });
      }
      draft.put({ kind: "question", key: `question:${requestKey(request)}`, seq, runId, requestId: event.requestId, prompts: event.questions.map((q) => q.question) });
      return;
    }
    case "question.resolved": {
      const request = { runId, requestId: event.requestId };
      draft.settle(request);
      const key = `question:${requestKey(request)}`;
      const prev = draft.get<QuestionItem>(key);
      draft.put({ kind: "question", key, seq: prev?.seq ?? seq, runId, requestId: event.requestId, prompts: prev?.prompts ?? [], resolution: { answered: event.answered, by: event.by } });
      return;
    }
    default: {
      // A new event type fails to compile here; at run time one from a newer server is skipped.
      const unknown: never = event;
      void unknown;
    }
  }
}

/** The tool item of `callId`, or a placeholder when its start was not seen (trimmed from the log). */
function toolOf(draft: Draft, seq: number, runId: string, callId: string): ToolItem {
  return (
    draft.get<ToolItem>(`tool:${runId}:${callId}`) ?? {
      kind: "tool",
      key: `tool:${runId}:${callId}`,
      seq,
      runId,
      callId,
      toolKind: "other",
      title: callId,
      status: "running",
      output: "",
      outputDropped: 0,
      files: [],
    }
  );
}

function capOutput(output: string, dropped: number): { output: string; dropped: number } {
  if (output.length <= TOOL_OUTPUT_CAP) return { output, dropped };
  const cut = output.length - TOOL_OUTPUT_CAP;
  return { output: output.slice(cut), dropped: dropped + cut };
}
