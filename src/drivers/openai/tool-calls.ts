/**
 * Running the tool calls of one model answer: each call announced (`tool.started` with its kind,
 * command, MCP server and tool), approved through core when its kind asks (per the run's policy;
 * a session-wide "allow always" is remembered for the conversation), run with the run's signal
 * (a cancel stops it at once), streamed (`tool.updated`) and ended (`tool.completed` with output,
 * exit code and the files it changed with their diffs). Every call yields a tool result for the
 * model, a denial included. Calls that only read run in parallel; the others in order.
 */
import { setMaxListeners } from "node:events";
import type { RunRequest } from "../../driver/types.js";
import type { ApprovalRequest } from "../../driver/vocabulary.js";
import type { ApprovalDecision, ApprovalOption, DriverEvent, ToolCompleted, ToolStarted } from "../../events/types.js";
import type { ConversationMessage, ToolCallRecord } from "./conversation.js";
import { redactThenClip } from "../../redact/clip.js";
import { cutMiddle } from "./conversation-store.js";
import { LinkedAbort } from "./linked-signal.js";
import { asksApproval, type OfferedTool, type Toolbox } from "./toolbox.js";
import type { ToolOutcome } from "./tools/types.js";

const PROVIDER = "openai";
/** The output a `tool.completed` carries, in characters (the model's result is bounded by the tool). */
const EVENT_OUTPUT_MAX = 64 * 1024;

export const ALLOW_ALWAYS = "allow_always";
const OPTIONS: ApprovalOption[] = [
  { id: "allow", label: "Allow", kind: "allow_once" },
  { id: ALLOW_ALWAYS, label: "Allow for the rest of this conversation", kind: "allow_always" },
  { id: "deny", label: "Deny", kind: "deny" },
];

export interface ToolCallContext {
  emit(event: DriverEvent): Promise<void>;
  request: Pick<RunRequest, "approve" | "policy" | "workspace">;
  signal: AbortSignal;
  toolbox: Toolbox;
  /** Approval kinds allowed for the whole conversation ("allow always"). */
  allowed: Set<string>;
  /** Runs a `task` call's subagent to its answer (absent: no subagents). */
  runTask?(call: ToolCallRecord, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome>;
  /** The driver's redaction, for a title cut from the model's arguments (see `BuiltinTool.title`). */
  redact(text: string): string;
}

/** The outcome of a batch: the results for the model, and whether a denial asked to stop the turn. */
export interface BatchOutcome {
  results: ConversationMessage[];
  interrupt: boolean;
}

type CallResult = { message: ConversationMessage; interrupt: boolean };

function parseArgs(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
    return { ok: false, error: "the arguments must be a JSON object" };
  } catch (error) {
    return { ok: false, error: `the arguments are not valid JSON (${(error as Error).message})` };
  }
}

function needsApproval(tool: OfferedTool): "command" | "file_change" | undefined {
  return tool.kind === "builtin" ? tool.tool.approval : undefined;
}

/** Runs one model answer's calls; read-only calls together, the rest one after another in order. */
export async function runToolCalls(calls: readonly ToolCallRecord[], ctx: ToolCallContext): Promise<BatchOutcome> {
  const concurrent = calls.every((call) => {
    const tool = ctx.toolbox.get(call.name);
    return tool?.kind === "builtin" && tool.tool.approval === undefined;
  });
  let results: CallResult[];
  if (concurrent) {
    // Each call listens on the signal (a read stream, a search): one listener on the run's signal
    // for the batch, and room on the batch's own, so twenty reads raise no listener-leak warning.
    const batch = new LinkedAbort(ctx.signal);
    setMaxListeners(10 + 4 * calls.length, batch.signal);
    try {
      results = await Promise.all(calls.map((call) => runToolCall(call, { ...ctx, signal: batch.signal })));
    } finally {
      batch.unlink();
    }
  } else {
    results = [];
    for (const call of calls) {
      if (results.some((r) => r.interrupt)) results.push(skipped(call));
      else results.push(await runToolCall(call, ctx));
    }
  }
  return { results: results.map((r) => r.message), interrupt: results.some((r) => r.interrupt) };
}

function skipped(call: ToolCallRecord): CallResult {
  return { message: { role: "tool", callId: call.id, name: call.name, output: "Not run: the user stopped the turn.", isError: true }, interrupt: true };
}

function started(call: ToolCallRecord, tool: OfferedTool | undefined, args: Record<string, unknown> | undefined, redact: (text: string) => string): ToolStarted {
  if (tool === undefined) return { callId: call.id, kind: "other", name: call.name, title: call.name, ...(args !== undefined ? { rawInput: args } : {}) };
  if (tool.kind === "task") {
    const about = typeof args?.description === "string" && args.description !== "" ? args.description : typeof args?.prompt === "string" ? redactThenClip(args.prompt, redact, 80, "") : "";
    return { callId: call.id, kind: "subagent", name: call.name, title: about === "" ? "task" : `task: ${about}`, ...(args !== undefined ? { rawInput: args } : {}) };
  }
  if (tool.kind === "mcp") {
    return { callId: call.id, kind: "mcp", name: call.name, title: `${tool.tool.server}: ${tool.tool.tool}`, mcp: { server: tool.tool.server, tool: tool.tool.tool }, ...(args !== undefined ? { rawInput: args } : {}) };
  }
  const event: ToolStarted = { callId: call.id, kind: tool.tool.kind, name: call.name, title: tool.tool.title(args ?? {}, redact) };
  if (tool.tool.kind === "command" && typeof args?.command === "string") event.command = args.command;
  if (args !== undefined) event.rawInput = args;
  return event;
}

async function runToolCall(call: ToolCallRecord, ctx: ToolCallContext): Promise<CallResult> {
  const tool = ctx.toolbox.get(call.name);
  const parsed = parseArgs(call.arguments);
  const args = parsed.ok ? parsed.value : undefined;
  await ctx.emit({ type: "tool.started", ...started(call, tool, args, ctx.redact), provenance: { provider: PROVIDER, itemId: call.id } });
  const result = (output: string, isError: boolean, done: Omit<ToolCompleted, "callId">, interrupt = false, published?: string): Promise<CallResult> =>
    finish(call, ctx, { output, isError, done, interrupt, ...(published !== undefined ? { published } : {}) });
  if (tool === undefined) return result(`Unknown tool "${call.name}".`, true, { status: "failed" });
  if (!parsed.ok) return result(`Invalid arguments for ${call.name}: ${parsed.error}.`, true, { status: "failed" });
  let input = parsed.value;
  const kind = needsApproval(tool);
  if (kind !== undefined && asksApproval(kind, ctx.request.policy) && !ctx.allowed.has(kind)) {
    const decision = await approve(call, kind, tool, input, ctx);
    if (decision.decision === "deny") {
      const why = decision.message !== undefined && decision.message !== "" ? `: ${decision.message}` : ".";
      return result(`The user denied this ${call.name} call${why}`, true, { status: "declined" }, decision.interrupt === true);
    }
    if (decision.optionId === ALLOW_ALWAYS || (decision.optionId === undefined && decision.scope === "session")) ctx.allowed.add(kind);
    if (typeof decision.updatedInput === "object" && decision.updatedInput !== null && !Array.isArray(decision.updatedInput)) input = decision.updatedInput as Record<string, unknown>;
  }
  const outcome = await execute(call, tool, input, ctx);
  if (outcome === "cancelled") {
    await ctx.emit({ type: "tool.completed", callId: call.id, status: "cancelled", provenance: { provider: PROVIDER, itemId: call.id } });
    throw ctx.signal.reason ?? new Error("aborted");
  }
  const done: Omit<ToolCompleted, "callId"> = { status: outcome.isError ? "failed" : "completed" };
  if (outcome.exitCode !== undefined) done.exitCode = outcome.exitCode;
  if (outcome.files !== undefined && outcome.files.length > 0) done.files = outcome.files;
  return result(outcome.output, outcome.isError, done, outcome.interrupt === true, outcome.published);
}

async function approve(call: ToolCallRecord, kind: "command" | "file_change", tool: OfferedTool, input: Record<string, unknown>, ctx: ToolCallContext): Promise<ApprovalDecision> {
  const summary = tool.kind === "builtin" ? tool.tool.title(input, ctx.redact) : call.name;
  const request: ApprovalRequest = { requestId: `approval_${call.id}`, kind, callId: call.id, summary, options: OPTIONS.map((o) => ({ ...o })), input };
  try {
    return await ctx.request.approve(request);
  } catch {
    ctx.signal.throwIfAborted();
    return { decision: "deny", message: "the approval could not be decided" };
  }
}

async function execute(call: ToolCallRecord, tool: OfferedTool, input: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolOutcome | "cancelled"> {
  ctx.signal.throwIfAborted();
  try {
    if (tool.kind === "mcp") return await ctx.toolbox.mcp!.call(call.name, input, ctx.signal, ctx.redact);
    if (tool.kind === "task") {
      if (ctx.runTask === undefined) return { output: "Subagents are not available here.", isError: true };
      const outcome = await ctx.runTask(call, input, ctx.signal);
      return ctx.signal.aborted ? "cancelled" : outcome;
    }
    let updates: Promise<void> = Promise.resolve();
    const outcome = await tool.tool.run(input, {
      workspace: ctx.request.workspace,
      signal: ctx.signal,
      redact: ctx.redact,
      onOutput: (chunk) => {
        updates = updates.then(() => ctx.emit({ type: "tool.updated", callId: call.id, output: chunk, provenance: { provider: PROVIDER, itemId: call.id } }));
      },
    });
    await updates.catch(() => {});
    if (ctx.signal.aborted) return "cancelled";
    return outcome;
  } catch (error) {
    if (ctx.signal.aborted) return "cancelled";
    return { output: `The tool failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
  }
}

async function finish(call: ToolCallRecord, ctx: ToolCallContext, r: { output: string; published?: string; isError: boolean; done: Omit<ToolCompleted, "callId">; interrupt: boolean }): Promise<CallResult> {
  const event: ToolCompleted = { callId: call.id, ...r.done };
  // Redacted before the cut: a secret across either end of the omitted middle would leave a part.
  // The model keeps the unredacted `output`; events and the store take the tool's `published` copy.
  if (r.output !== "") event.output = cutMiddle(ctx.redact(r.published ?? r.output), EVENT_OUTPUT_MAX);
  await ctx.emit({ type: "tool.completed", ...event, provenance: { provider: PROVIDER, itemId: call.id } });
  const message: ConversationMessage = { role: "tool", callId: call.id, name: call.name, output: r.output, isError: r.isError };
  if (r.published !== undefined) message.published = r.published;
  return { message, interrupt: r.interrupt };
}
