/**
 * Codex notifications → canonical events, for one turn of one thread. Every method of the
 * generated `ServerNotification` union is named below, mapped or deliberately ignored, so a Codex
 * upgrade that adds one fails to compile here; a method the generated types do not know (a newer
 * server) becomes a `notice`, never a crash. Payloads are read through the generated types with
 * the driver lens (`driver/lens.ts`): a misspelt field fails to compile, while missing or mistyped
 * fields are skipped and unknown ones ignored.
 */
import type { CodexDriverNoticeCode } from "./codes.js";
import type { DriverEvent, FileChange, McpToolRef, PlanEntry, Provenance, ToolKind } from "../../events/types.js";
import type { Usage } from "../../events/usage.js";
import { CodexTurnUsage } from "./usage.js";
import { TextAccumulator } from "../../events/text-accumulator.js";
import { bool, claim, list, num, open, readFrame, str, type Lenient, type Unchecked } from "../../driver/lens.js";
import type { ServerNotification } from "./protocol/ServerNotification.js";
import type { CodexErrorInfo } from "./protocol/v2/CodexErrorInfo.js";
import type { FileUpdateChange } from "./protocol/v2/FileUpdateChange.js";
import { fileChangeSummaries, normalizeFileChanges, type FileChangeSummary } from "./tools.js";
import type { ThreadItem } from "./protocol/v2/ThreadItem.js";
import type { ThreadTokenUsage } from "./protocol/v2/ThreadTokenUsage.js";
import type { Turn } from "./protocol/v2/Turn.js";
import type { TurnError } from "./protocol/v2/TurnError.js";
import type { TurnPlanStep } from "./protocol/v2/TurnPlanStep.js";

type Method = ServerNotification["method"];
type ParamsOf<M extends Method> = Extract<ServerNotification, { method: M }>["params"];

/** The parts of a `turn/completed` turn the run reads, checked. */
export interface CompletedTurn {
  id?: string;
  /** Only compared: it may hold anything Codex sent. */
  status?: Turn["status"];
  error?: Partial<TurnError>;
  items?: Unchecked<Turn["items"]>;
  durationMs?: number;
}

/** How a turn ended, as `turn/completed` reported it. */
export interface TurnOutcome {
  turn: CompletedTurn;
  /** The last fatal `error` notification (`willRetry: false`) before it, if any. */
  fatal?: Partial<TurnError>;
}

export type { FileChangeSummary } from "./tools.js";

/** `fields` without its undefined entries: an absent field stays absent on the wire, never `undefined`. */
function presentFields<T extends object>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(fields) as (keyof T)[]) if (fields[key] !== undefined) out[key] = fields[key];
  return out;
}

/** The normalized fields of a `tool.started`, besides its id, kind and title. */
interface StartedFields {
  name?: string;
  command?: string;
  cwd?: string;
  files?: FileChange[];
  mcp?: McpToolRef;
  rawInput?: unknown;
}

/** A `TurnError` with its fields checked; `codexErrorInfo` is read leniently by `errors.ts`. */
function turnError(error: Lenient<TurnError> | undefined): Partial<TurnError> | undefined {
  if (error === undefined) return undefined;
  const checked: Partial<TurnError> = {};
  const message = str(error.message);
  const details = str(error.additionalDetails);
  const info: unknown = error.codexErrorInfo;
  if (message !== undefined) checked.message = message;
  if (details !== undefined) checked.additionalDetails = details;
  if (typeof info === "string" || (typeof info === "object" && info !== null)) checked.codexErrorInfo = info as CodexErrorInfo;
  return checked;
}

const PROVIDER = "codex";
const AGENT_MESSAGE_DELTA = "item/agentMessage/delta";

function provenance(event: string, itemId?: string): Provenance {
  return itemId === undefined ? { provider: PROVIDER, event } : { provider: PROVIDER, event, itemId };
}

const PLAN_STATUS: Record<string, PlanEntry["status"]> = { pending: "pending", inProgress: "in_progress", completed: "completed" };

const TOOL_STATUS: Record<string, "completed" | "failed" | "declined" | "cancelled"> = {
  completed: "completed",
  failed: "failed",
  declined: "declined",
  inProgress: "cancelled",
};

/** `TOOL_STATUS` of an item's `status`, for the variants that have one. */
function toolStatus(item: object): "completed" | "failed" | "declined" | "cancelled" {
  const status: unknown = "status" in item ? item.status : undefined;
  return TOOL_STATUS[str(status) ?? ""] ?? "completed";
}

/** Hands an event on; a promise only while the consumer holds the reading back (`OrderedEmitter.offer`). */
type Emit = (event: DriverEvent) => Promise<void> | undefined;
const RESOLVED: Promise<void> = Promise.resolve();
type Handler<M extends Method> = (mapper: TurnMapper, params: Lenient<ParamsOf<M>>) => Promise<void> | void;
type HandlerTable = { [M in Method]: Handler<M> | null };
/** One variant of a `ThreadItem`, as it may arrive. */
type ItemOf<K extends ThreadItem["type"]> = Lenient<Extract<ThreadItem, { type: K }>>;

/** The state of one turn and the mapping of its notifications. */
export class TurnMapper {
  readonly emit: Emit;
  /** The Codex thread this run is bound to; notifications of other threads are dropped. */
  threadId: string | undefined;
  /** Agent-message text by item id, from deltas, until the item completes. */
  readonly #messages = new Map<string, TextAccumulator>();
  /** The entry of `#messages` the last delta went to (unset when its item leaves the map). */
  #lastMessageId: string | undefined;
  #lastMessage: TextAccumulator | undefined;
  /** Streamed reasoning by item id, with its text so far, until the item completes. */
  readonly #reasoning = new Map<string, { stream: "summary" | "raw"; part: number; hasText: boolean; text: TextAccumulator }>();
  readonly #toolsStarted = new Set<string>();
  /** Tool calls started and not completed yet. */
  readonly #toolsOpen = new Set<string>();
  readonly #fileChanges = new Map<string, FileChangeSummary[]>();
  /** Completed agent messages of this turn, in order, with their phase. */
  readonly completedMessages: { id: string; text: string; phase?: string }[] = [];
  readonly #usage = new CodexTurnUsage();
  /**
   * The turn's aggregate diff (`turn/diff/updated`, git format, paths relative to the repository).
   * Not an event: it repeats the per-file diffs every `fileChange` item already carries.
   */
  turnDiff: string | undefined;
  #fatal: Partial<TurnError> | undefined;
  #resolveOutcome!: (outcome: TurnOutcome) => void;
  /** Resolves with `turn/completed`. */
  readonly outcome: Promise<TurnOutcome>;
  #done = false;
  /** The run stopped listening (its open items were closed); later notifications are dropped. */
  #closed = false;

  constructor(emit: Emit) {
    this.emit = emit;
    this.outcome = new Promise((resolve) => (this.#resolveOutcome = resolve));
  }

  get done(): boolean {
    return this.#done;
  }

  fileChanges(itemId: string): FileChangeSummary[] | undefined {
    return this.#fileChanges.get(itemId);
  }

  notice(level: "info" | "warning", code: CodexDriverNoticeCode, message: string, event?: string): Promise<void> {
    return this.emit({ type: "notice", level, code, message, ...(event ? { provenance: provenance(event) } : {}) }) ?? RESOLVED;
  }

  /** Maps one notification. Unknown methods become an `unknown_notification` notice. */
  handle(method: string, params: unknown): Promise<void> | void {
    if (this.#done || this.#closed) return;
    // The bulk of a turn: compared first, it skips the table lookup and the generic frame reading.
    if (method === AGENT_MESSAGE_DELTA) return this.#agentMessageDelta(params);
    if (!Object.hasOwn(HANDLERS, method)) {
      return this.notice("info", "unknown_notification", `codex sent an unrecognised notification ${method.slice(0, 80)}`, method.slice(0, 80));
    }
    const handler = HANDLERS[method as Method] as Handler<Method> | null;
    if (handler === null) return;
    const threadId = str(readFrame<{ threadId?: string }>(params)?.threadId);
    if (threadId !== undefined && this.threadId !== undefined && threadId !== this.threadId) return;
    return handler(this, readFrame<ParamsOf<Method>>(params) ?? {});
  }

  // --- items -----------------------------------------------------------------------------------

  async itemStarted(field: unknown): Promise<void> {
    const item = readFrame<ThreadItem>(field);
    const id = str(item?.id);
    if (item === undefined || id === undefined) return;
    switch (item.type) {
      case "commandExecution":
        return this.#commandStarted(item, id);
      case "fileChange":
        return this.#fileChangeStarted(item, id);
      case "mcpToolCall": {
        const server = str(item.server) ?? "mcp";
        const tool = str(item.tool) ?? "tool";
        await this.#toolStarted(id, "mcp", `${server}/${tool}`, { name: tool, mcp: { server, tool }, rawInput: item.arguments });
        break;
      }
      case "dynamicToolCall": {
        const tool = str(item.tool);
        await this.#toolStarted(id, "other", tool ?? "tool", { name: tool, rawInput: item.arguments });
        break;
      }
      case "collabAgentToolCall": {
        const tool = str(item.tool);
        await this.#toolStarted(id, "subagent", tool ?? "agent", { name: tool, rawInput: presentFields({ prompt: str(item.prompt), model: str(item.model) }) });
        break;
      }
      case "subAgentActivity":
        await this.#toolStarted(id, "subagent", str(item.kind) ?? "sub-agent", { name: item.type, rawInput: presentFields({ model: str(item.model) }) });
        break;
      case "webSearch":
        await this.#toolStarted(id, "web_search", str(item.query) || "web search", { name: item.type, rawInput: presentFields({ query: str(item.query) }) });
        break;
      case "imageView":
        // The path may be a per-run input's local path: never put it in an event.
        await this.#toolStarted(id, "read", "View an image", { name: item.type });
        break;
      case "imageGeneration":
        await this.#toolStarted(id, "other", "Generate an image", { name: item.type });
        break;
      default:
        break;
    }
  }

  async #commandStarted(item: ItemOf<"commandExecution">, id: string): Promise<void> {
    const command = str(item.command);
    const cwd = str(item.cwd);
    await this.#toolStarted(id, "command", command ?? "command", { name: item.type, command, cwd, rawInput: presentFields({ command, cwd }) });
  }

  async #fileChangeStarted(item: ItemOf<"fileChange">, id: string): Promise<void> {
    const changes = fileChangeSummaries(item.changes);
    this.#fileChanges.set(id, changes);
    const files = normalizeFileChanges(changes);
    const paths = files.map((f) => f.path);
    await this.#toolStarted(id, "file_change", paths.length > 0 ? `Edit ${paths.join(", ")}` : "Edit files", {
      name: item.type,
      files: files.length > 0 ? files : undefined,
      rawInput: { changes: changes.map((c) => presentFields({ path: c.path, kind: c.kind, movePath: c.movePath })) },
    });
  }

  async itemCompleted(field: unknown): Promise<void> {
    const item = readFrame<ThreadItem>(field);
    const id = str(item?.id);
    if (item === undefined || id === undefined) return;
    switch (item.type) {
      case "agentMessage":
        return this.#messageCompleted(item, id);
      case "reasoning":
        return this.#reasoningCompleted(item, id);
      case "commandExecution":
        return this.#commandCompleted(field, item, id);
      case "fileChange":
        return this.#fileChangeCompleted(field, item, id);
      case "mcpToolCall":
        return this.#mcpToolCompleted(field, item, id);
      case "dynamicToolCall":
      case "collabAgentToolCall":
      case "subAgentActivity":
      case "webSearch":
      case "imageView":
      case "imageGeneration": {
        await this.#ensureStarted(field, id);
        const success = "success" in item ? bool(item.success) : undefined;
        const status = success === false ? "failed" : toolStatus(item);
        await this.emit({ type: "tool.completed", callId: id, status, provenance: provenance("item/completed", id) });
        break;
      }
      case "contextCompaction":
        await this.notice("info", "context_compacted", "Codex compacted the conversation context", "item/completed");
        break;
      case "enteredReviewMode":
      case "exitedReviewMode":
        await this.notice("info", item.type === "enteredReviewMode" ? "review_started" : "review_finished", str(item.review) ?? "", "item/completed");
        break;
      default:
        break;
    }
  }

  async #messageCompleted(item: ItemOf<"agentMessage">, id: string): Promise<void> {
    const text = str(item.text) ?? this.#messages.get(id)?.toString() ?? "";
    this.#forgetMessage(id);
    const phase = str(item.phase);
    this.completedMessages.push(phase === undefined ? { id, text } : { id, text, phase });
    await this.emit({ type: "message.completed", itemId: id, text, provenance: provenance("item/completed", id) });
  }

  async #reasoningCompleted(item: ItemOf<"reasoning">, id: string): Promise<void> {
    const summary = list(item.summary).map(str).filter((s): s is string => s !== undefined);
    const content = list(item.content).map(str).filter((s): s is string => s !== undefined);
    const streamed = this.#reasoning.get(id);
    this.#reasoning.delete(id);
    // The completed text follows what was streamed: raw content, or the summary when there is one.
    const text = streamed?.stream === "raw" ? content.join("\n\n") : summary.length > 0 ? summary.join("\n\n") : content.join("\n\n");
    if (text !== "" || streamed !== undefined) {
      await this.emit({ type: "reasoning.completed", itemId: id, text, provenance: provenance("item/completed", id) });
    }
  }

  async #commandCompleted(field: unknown, item: ItemOf<"commandExecution">, id: string): Promise<void> {
    await this.#ensureStarted(field, id);
    const exitCode = num(item.exitCode);
    const output = str(item.aggregatedOutput);
    await this.emit({
      type: "tool.completed",
      callId: id,
      status: toolStatus(item),
      ...(output !== undefined ? { output } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
      provenance: provenance("item/completed", id),
    });
  }

  async #fileChangeCompleted(field: unknown, item: ItemOf<"fileChange">, id: string): Promise<void> {
    const changes = Array.isArray(item.changes) ? fileChangeSummaries(item.changes) : this.#fileChanges.get(id) ?? [];
    this.#fileChanges.set(id, changes);
    await this.#ensureStarted(field, id);
    const status = toolStatus(item);
    // Only a change that was applied changed files; a declined or failed one keeps its proposal on tool.started.
    const files = status === "completed" ? normalizeFileChanges(changes) : [];
    await this.emit({
      type: "tool.completed",
      callId: id,
      status,
      ...(files.length > 0 ? { files } : {}),
      provenance: provenance("item/completed", id),
    });
  }

  async #mcpToolCompleted(field: unknown, item: ItemOf<"mcpToolCall">, id: string): Promise<void> {
    await this.#ensureStarted(field, id);
    const error = str(open(item.error)?.message);
    const text = list(open(item.result)?.content)
      .map((c) => str(open(c)?.text))
      .filter((t): t is string => t !== undefined)
      .join("\n");
    const output = error ?? (text !== "" ? text : undefined);
    await this.emit({
      type: "tool.completed",
      callId: id,
      status: error !== undefined ? "failed" : toolStatus(item),
      ...(output !== undefined ? { output } : {}),
      provenance: provenance("item/completed", id),
    });
  }

  async #toolStarted(id: string, kind: ToolKind, title: string, fields: StartedFields): Promise<void> {
    if (this.#toolsStarted.has(id)) return;
    this.#toolsStarted.add(id);
    this.#toolsOpen.add(id);
    await this.emit({ type: "tool.started", callId: id, kind, title, ...presentFields(fields), provenance: provenance("item/started", id) });
  }

  /** A completion without a start (e.g. the start was emitted before this run attached) still gets one. */
  async #ensureStarted(item: unknown, id: string): Promise<void> {
    if (!this.#toolsStarted.has(id)) await this.itemStarted(item);
    // Its completion follows: the call is no longer open.
    this.#toolsOpen.delete(id);
  }

  // --- deltas ----------------------------------------------------------------------------------

  /** Drops an item's text from `#messages` (and from the last-delta shortcut). */
  #forgetMessage(id: string): void {
    this.#messages.delete(id);
    if (id === this.#lastMessageId) this.#lastMessageId = this.#lastMessage = undefined;
  }

  /** `item/agentMessage/delta`, read as the table's handler and `handle` would, without their indirections. */
  #agentMessageDelta(params: unknown): Promise<void> | undefined {
    const p = readFrame<ParamsOf<typeof AGENT_MESSAGE_DELTA>>(params);
    if (p === undefined) return;
    const threadId = p.threadId;
    if (typeof threadId === "string" && this.threadId !== undefined && threadId !== this.threadId) return;
    return this.messageDelta(str(p.itemId), str(p.delta));
  }

  /** Not async: the bulk of a turn, a delta the sink takes at once costs no promise. */
  messageDelta(itemId: string | undefined, delta: string | undefined): Promise<void> | undefined {
    if (itemId === undefined || delta === undefined || delta === "") return;
    // Deltas come in runs of one item: the last item's text is found without a map lookup.
    let acc = itemId === this.#lastMessageId ? this.#lastMessage : undefined;
    if (acc === undefined) {
      acc = this.#messages.get(itemId);
      if (acc === undefined) this.#messages.set(itemId, (acc = new TextAccumulator()));
      this.#lastMessageId = itemId;
      this.#lastMessage = acc;
    }
    acc.append(delta);
    return this.emit({ type: "message.delta", itemId, text: delta, provenance: { provider: PROVIDER, event: "item/agentMessage/delta", itemId } });
  }

  async reasoningDelta(itemId: string | undefined, delta: string | undefined, stream: "summary" | "raw", part?: number): Promise<void> {
    if (itemId === undefined || delta === undefined || delta === "") return;
    let state = this.#reasoning.get(itemId);
    if (state === undefined) this.#reasoning.set(itemId, (state = { stream, part: 0, hasText: false, text: new TextAccumulator() }));
    // One item streams either its summary or its raw content; the other is not mixed in.
    if (state.stream !== stream) return;
    let text = delta;
    if (stream === "summary" && part !== undefined && part > state.part) {
      // Summary parts are joined with a blank line, as in the completed item.
      if (state.hasText) text = `\n\n${delta}`;
      state.part = part;
    }
    state.hasText = true;
    state.text.append(text);
    const event = stream === "summary" ? "item/reasoning/summaryTextDelta" : "item/reasoning/textDelta";
    await this.emit({ type: "reasoning.delta", itemId, text, provenance: provenance(event, itemId) });
  }

  async toolOutput(itemId: string | undefined, delta: string | undefined, event: string): Promise<void> {
    if (itemId === undefined || delta === undefined || delta === "") return;
    if (!this.#toolsStarted.has(itemId)) return;
    await this.emit({ type: "tool.updated", callId: itemId, output: delta, provenance: provenance(event, itemId) });
  }

  async patchUpdated(itemId: string | undefined, changes: Unchecked<FileUpdateChange[]> | undefined): Promise<void> {
    if (itemId === undefined || !Array.isArray(changes)) return;
    const summaries = fileChangeSummaries(changes);
    this.#fileChanges.set(itemId, summaries);
    const files = normalizeFileChanges(summaries);
    if (files.length > 0 && this.#toolsStarted.has(itemId)) {
      await this.emit({ type: "tool.updated", callId: itemId, files, provenance: provenance("item/fileChange/patchUpdated", itemId) });
    }
  }

  /** Kept, not emitted: see `turnDiff`. */
  diffUpdated(diff: string | undefined): void {
    if (diff !== undefined) this.turnDiff = diff;
  }

  async planUpdated(plan: Unchecked<TurnPlanStep[]> | undefined): Promise<void> {
    if (!Array.isArray(plan)) return;
    const entries: PlanEntry[] = list(plan)
      .map(open)
      .filter((s) => s !== undefined)
      .map((s) => ({ text: str(s.step) ?? "", status: PLAN_STATUS[str(s.status) ?? ""] ?? "pending" }));
    await this.emit({ type: "plan.updated", entries, provenance: provenance("turn/plan/updated") });
  }

  /** The turn's usage so far (see `CodexTurnUsage`). */
  get usage(): Usage | undefined {
    return this.#usage.current;
  }

  /** The thread goal's status as Codex last reported it during the turn (`active`, ...); undefined: none reported, or cleared. */
  goalStatus: string | undefined;

  /** Called with the turn's id when `turn/started` arrives (a compaction's turn is known only from it). */
  onTurnStarted: ((turnId: string) => void) | undefined;

  turnStarted(turnId?: string): void {
    this.#usage.turnStarted();
    if (turnId !== undefined) this.onTurnStarted?.(turnId);
  }

  /**
   * The thread's goal changed during the turn (Codex accounting for it, or the model marking it
   * complete): a notice; the goal itself is read with `Thread.goal()`. `status` undefined: cleared.
   */
  goalChanged(status: unknown): Promise<void> {
    this.goalStatus = str(status);
    if (status === undefined) return this.notice("info", "goal_cleared", "Codex cleared the thread's goal", "thread/goal/cleared");
    return this.notice("info", "goal_updated", `Codex updated the thread's goal (status ${str(status) ?? "unknown"})`, "thread/goal/updated");
  }

  async usageUpdated(tokenUsage: Unchecked<ThreadTokenUsage> | undefined): Promise<void> {
    const usage = this.#usage.observe(tokenUsage);
    if (usage === undefined) return;
    await this.emit({ type: "usage.observed", usage, provenance: provenance("thread/tokenUsage/updated") });
  }

  async error(params: Lenient<ParamsOf<"error">>): Promise<void> {
    const error = turnError(open(params.error));
    const message = error?.message ?? "Codex reported an error";
    if (bool(params.willRetry) === true) {
      await this.notice("warning", "provider_retry", message, "error");
      return;
    }
    this.#fatal = error ?? { message };
  }

  turnCompleted(field: unknown): void {
    const turn = readFrame<Turn>(field);
    if (turn === undefined) return;
    this.#done = true;
    const completed: CompletedTurn = { items: turn.items };
    const id = str(turn.id);
    const error = turnError(open(turn.error));
    const durationMs = num(turn.durationMs);
    if (id !== undefined) completed.id = id;
    if (turn.status !== undefined) completed.status = turn.status;
    if (error !== undefined) completed.error = error;
    if (durationMs !== undefined) completed.durationMs = durationMs;
    this.#resolveOutcome(this.#fatal === undefined ? { turn: completed } : { turn: completed, fatal: this.#fatal });
  }

  /**
   * Closes every item of the turn that started and never completed (an interrupt, a steer or an
   * exit cut it short): messages and reasoning with their text so far, tool calls as `cancelled`.
   * Notifications after this belong to no open item and are dropped.
   */
  async closeOpenItems(): Promise<void> {
    this.#closed = true;
    for (const [id, text] of [...this.#messages]) {
      this.#forgetMessage(id);
      await this.emit({ type: "message.completed", itemId: id, text: text.toString(), provenance: { provider: PROVIDER, itemId: id } });
    }
    for (const [id, state] of [...this.#reasoning]) {
      this.#reasoning.delete(id);
      await this.emit({ type: "reasoning.completed", itemId: id, text: state.text.toString(), provenance: { provider: PROVIDER, itemId: id } });
    }
    for (const id of [...this.#toolsOpen]) {
      this.#toolsOpen.delete(id);
      await this.emit({ type: "tool.completed", callId: id, status: "cancelled", provenance: { provider: PROVIDER, itemId: id } });
    }
  }

  /** The turn's answer: the final-answer message if Codex marked one, else the last message. */
  finalText(summaryItems: unknown): string {
    const answers = list(claim<Turn["items"]>(summaryItems))
      .map(open)
      .map((item) => (item?.type === "agentMessage" ? str(item.text) : undefined))
      .filter((text) => text !== undefined);
    const last = answers.at(-1);
    if (last !== undefined) return last;
    const finals = this.completedMessages.filter((m) => m.phase === "final_answer");
    return (finals.at(-1) ?? this.completedMessages.at(-1))?.text ?? "";
  }
}

/** The fields the warning notifications share (each has some of them). */
interface WarningFields {
  message?: string;
  summary?: string;
  details?: string | null;
}

const warn = (code: CodexDriverNoticeCode) => (m: TurnMapper, params: object) => {
  const p = readFrame<WarningFields>(params) ?? {};
  const text = str(p.message) ?? str(p.summary) ?? "";
  const details = str(p.details);
  return m.notice("warning", code, details ? `${text} (${details})` : text);
};

/** Every notification of the generated protocol: a mapping, or `null` for "known, nothing to report". */
const HANDLERS: HandlerTable = {
  error: (m, p) => m.error(p),
  "thread/started": null,
  "thread/status/changed": null,
  "thread/readState/changed": null,
  "thread/archived": null,
  "thread/deleted": null,
  "thread/unarchived": null,
  "thread/closed": null,
  "thread/reverted": null,
  "skills/changed": null,
  "thread/name/updated": null,
  "thread/section/changed": null,
  "thread/attachment/updated": null,
  "thread/goal/updated": (m, p) => m.goalChanged((p.goal as { status?: unknown } | undefined)?.status ?? "unknown"),
  "thread/prediction/updated": null,
  "thread/goal/cleared": (m) => m.goalChanged(undefined),
  "thread/queue/changed": null,
  "project/changed": null,
  "thread/project/updated": null,
  "thread/environment/connected": null,
  "thread/environment/disconnected": null,
  "thread/settings/updated": null,
  "thread/tokenUsage/updated": (m, p) => m.usageUpdated(p.tokenUsage),
  "turn/started": (m, p) => m.turnStarted(str((p.turn as { id?: unknown } | undefined)?.id)),
  "hook/started": null,
  "turn/completed": (m, p) => m.turnCompleted(p.turn),
  "hook/completed": null,
  "turn/diff/updated": (m, p) => m.diffUpdated(str(p.diff)),
  "turn/plan/updated": (m, p) => m.planUpdated(p.plan),
  "item/started": (m, p) => m.itemStarted(p.item),
  "item/autoApprovalReview/started": null,
  "item/autoApprovalReview/completed": null,
  "autoApprovalReview/strictReviewRequired": null,
  "item/completed": (m, p) => m.itemCompleted(p.item),
  "rawResponseItem/completed": null,
  "rawResponse/completed": null,
  "item/agentMessage/delta": (m, p) => m.messageDelta(str(p.itemId), str(p.delta)),
  "item/plan/delta": null,
  "command/exec/outputDelta": null,
  "process/outputDelta": null,
  "thread/search/partial": null,
  "process/exited": null,
  "item/commandExecution/outputDelta": (m, p) => m.toolOutput(str(p.itemId), str(p.delta), "item/commandExecution/outputDelta"),
  "item/commandExecution/terminalInteraction": null,
  "item/fileChange/outputDelta": (m, p) => m.toolOutput(str(p.itemId), str(p.delta), "item/fileChange/outputDelta"),
  "item/fileChange/patchUpdated": (m, p) => m.patchUpdated(str(p.itemId), p.changes),
  "serverRequest/resolved": null,
  "item/mcpToolCall/progress": (m, p) => m.toolOutput(str(p.itemId), str(p.message), "item/mcpToolCall/progress"),
  "mcpServer/oauthLogin/completed": null,
  "mcpServer/startupStatus/updated": null,
  "mcpServer/event/stream/notification": null,
  "account/updated": null,
  "account/gatewayOAuth/changed": null,
  "account/rateLimits/updated": null,
  "app/list/updated": null,
  "remoteControl/status/changed": null,
  "externalAgentConfig/import/progress": null,
  "externalAgentConfig/import/completed": null,
  "fs/changed": null,
  "item/reasoning/summaryTextDelta": (m, p) => m.reasoningDelta(str(p.itemId), str(p.delta), "summary", num(p.summaryIndex)),
  "item/reasoning/summaryPartAdded": null,
  "item/reasoning/textDelta": (m, p) => m.reasoningDelta(str(p.itemId), str(p.delta), "raw"),
  "thread/compacted": (m) => m.notice("info", "context_compacted", "Codex compacted the conversation context", "thread/compacted"),
  "model/rerouted": (m, p) => m.notice("info", "model_rerouted", `Codex rerouted the turn from ${str(p.fromModel) ?? "?"} to ${str(p.toModel) ?? "?"}`, "model/rerouted"),
  "model/verification": null,
  "modelProvider/authRecoveryStarted": null,
  "modelProvider/authRecoveryCompleted": null,
  "turn/moderationMetadata": null,
  "model/safetyBuffering/updated": null,
  warning: warn("codex_warning"),
  guardianWarning: warn("codex_guardian_warning"),
  deprecationNotice: (m, p) => m.notice("info", "codex_deprecation", str(p.summary) ?? "", "deprecationNotice"),
  configWarning: warn("codex_config_warning"),
  "fuzzyFileSearch/sessionUpdated": null,
  "fuzzyFileSearch/sessionCompleted": null,
  "thread/realtime/started": null,
  "thread/realtime/itemAdded": null,
  "thread/realtime/item/started": null,
  "thread/realtime/item/transcript/delta": null,
  "thread/realtime/item/completed": null,
  "thread/realtime/transcript/delta": null,
  "thread/realtime/transcript/done": null,
  "thread/realtime/outputAudio/delta": null,
  "thread/realtime/sdp": null,
  "thread/realtime/error": null,
  "thread/realtime/closed": null,
  "windows/worldWritableWarning": warn("codex_world_writable_warning"),
  "windowsSandbox/setupCompleted": null,
  "account/login/completed": null,
};
