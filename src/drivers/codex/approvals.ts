/**
 * Codex's server→client requests during a turn: approvals (`item/commandExecution/requestApproval`,
 * `item/fileChange/requestApproval`, `item/permissions/requestApproval`, and the deprecated v1
 * pair), questions (`item/tool/requestUserInput`), and the rest, which are refused explicitly.
 * Approvals go through `RunRequest.approve()` — core routes them to the host's handler or, without
 * one, to the policy's default (deny) — and the decision is answered in Codex's vocabulary.
 * Request params are read through the generated types with the driver lens (`driver/lens.ts`).
 */
import type { ApprovalRequest, UserInputAnswer } from "../../driver/vocabulary.js";
import type { RunRequest } from "../../driver/types.js";
import type { CodexDriverNoticeCode } from "./codes.js";
import type { ApprovalDecision, ApprovalOption, Question } from "../../events/types.js";
import { JsonRpcError } from "../../process/index.js";
import { isToolApproval, toolApproval } from "./mcp-approval.js";
import type { FileChangeSummary } from "./events.js";
import type { Json } from "../../driver/json.js";
import { bool, claim, isObject, list, open, readFrame, str as anyString, type Lenient } from "../../driver/lens.js";
import type { ApplyPatchApprovalParams } from "./protocol/ApplyPatchApprovalParams.js";
import type { DynamicToolCallParams } from "./protocol/v2/DynamicToolCallParams.js";
import type { ExecCommandApprovalParams } from "./protocol/ExecCommandApprovalParams.js";
import type { McpServerElicitationRequestParams } from "./protocol/v2/McpServerElicitationRequestParams.js";
import type { ReviewDecision } from "./protocol/ReviewDecision.js";
import type { CommandExecutionApprovalDecision } from "./protocol/v2/CommandExecutionApprovalDecision.js";
import type { CommandExecutionRequestApprovalParams } from "./protocol/v2/CommandExecutionRequestApprovalParams.js";
import type { CommandExecutionRequestApprovalResponse } from "./protocol/v2/CommandExecutionRequestApprovalResponse.js";
import type { DynamicToolCallResponse } from "./protocol/v2/DynamicToolCallResponse.js";
import type { FileChangeApprovalDecision } from "./protocol/v2/FileChangeApprovalDecision.js";
import type { FileChangeRequestApprovalParams } from "./protocol/v2/FileChangeRequestApprovalParams.js";
import type { FileChangeRequestApprovalResponse } from "./protocol/v2/FileChangeRequestApprovalResponse.js";
import type { McpServerElicitationRequestResponse } from "./protocol/v2/McpServerElicitationRequestResponse.js";
import type { PermissionsRequestApprovalParams } from "./protocol/v2/PermissionsRequestApprovalParams.js";
import type { PermissionsRequestApprovalResponse } from "./protocol/v2/PermissionsRequestApprovalResponse.js";
import type { ToolRequestUserInputParams } from "./protocol/v2/ToolRequestUserInputParams.js";
import type { ToolRequestUserInputResponse } from "./protocol/v2/ToolRequestUserInputResponse.js";
import type { ServerRequest } from "./protocol/ServerRequest.js";

/** A non-empty string, else `undefined`. */
const str = (v: unknown): string | undefined => (anyString(v) === "" ? undefined : anyString(v));

/**
 * The command approval params Codex 0.171 sends: `availableDecisions` is on the wire (recorded
 * from the real CLI) though the generated types leave it out.
 */
type CommandApprovalParams = CommandExecutionRequestApprovalParams & { availableDecisions?: CommandExecutionApprovalDecision[] | null };

/** What the request router needs from the run it belongs to. */
export interface RequestContext {
  request: Pick<RunRequest, "approve" | "ask">;
  /** File changes announced by `item/started`, by item id (a file-change approval names only the item). */
  fileChanges(itemId: string): FileChangeSummary[] | undefined;
  notice(level: "info" | "warning", code: CodexDriverNoticeCode, message: string): Promise<void>;
}

const OPTION_LABELS: Record<string, { label: string; kind: ApprovalOption["kind"] }> = {
  accept: { label: "Allow once", kind: "allow_once" },
  acceptForSession: { label: "Allow for this session", kind: "allow_always" },
  acceptWithExecpolicyAmendment: { label: "Allow and remember this command prefix", kind: "allow_always" },
  applyNetworkPolicyAmendment: { label: "Allow and remember this network rule", kind: "allow_always" },
  decline: { label: "Deny", kind: "deny" },
  cancel: { label: "Deny and stop the turn", kind: "deny" },
};

const DEFAULT_DECISIONS = ["accept", "acceptForSession", "decline", "cancel"];

/** Codex's offered decisions: the canonical options, and each option's decision exactly as offered. */
export interface OfferedDecisions {
  options: ApprovalOption[];
  /** By option id: the string, or the one-key object carrying its amendment, to answer verbatim. */
  raw: Map<string, Json>;
}

/** `availableDecisions` (strings or one-key objects) → the canonical option list. */
export function offeredDecisions(available: unknown): OfferedDecisions {
  const list = Array.isArray(available) && available.length > 0 ? available : DEFAULT_DECISIONS;
  const offered: OfferedDecisions = { options: [], raw: new Map() };
  for (const entry of list) {
    const id = typeof entry === "string" ? entry : isObject(entry) ? Object.keys(entry)[0] : undefined;
    if (id === undefined || offered.raw.has(id)) continue;
    const known = OPTION_LABELS[id];
    offered.options.push({ id, label: optionLabel(id, entry) ?? known?.label ?? id, kind: known?.kind ?? "other" });
    offered.raw.set(id, entry as Json);
  }
  return offered;
}

/** `availableDecisions` → the canonical option list. */
export function approvalOptions(available: unknown): ApprovalOption[] {
  return offeredDecisions(available).options;
}

/** The label naming what an amendment option would remember (the prefix, the host rule). */
function optionLabel(id: string, entry: unknown): string | undefined {
  const body = isObject(entry) && isObject(entry[id]) ? entry[id] : undefined;
  const prefix = list(claim<unknown[]>(body?.execpolicy_amendment)).map(anyString).filter((x) => x !== undefined);
  if (id === "acceptWithExecpolicyAmendment" && prefix.length > 0) return `Allow and remember the command prefix \`${prefix.join(" ")}\``;
  const network = isObject(body?.network_policy_amendment) ? body.network_policy_amendment : undefined;
  const host = str(network?.host);
  if (id === "applyNetworkPolicyAmendment" && host) return `${str(network?.action) === "deny" ? "Deny" : "Allow"} and remember network access to ${host}`;
  return undefined;
}

/** The decision to answer: the offered decision the host selected by id, verbatim, else by kind. */
export function commandDecision(decision: ApprovalDecision, offered: OfferedDecisions): CommandExecutionApprovalDecision {
  const selected = decision.optionId === undefined ? undefined : offered.raw.get(decision.optionId);
  if (selected !== undefined) return selected as CommandExecutionApprovalDecision;
  return v2Decision(decision, offered.options);
}

/** The canonical decision in the v2 approval vocabulary, preferring what Codex offered. */
export function v2Decision(decision: ApprovalDecision, offered: readonly ApprovalOption[]): "accept" | "acceptForSession" | "decline" | "cancel" {
  const byId = decision.optionId;
  if (byId === "accept" || byId === "acceptForSession" || byId === "decline" || byId === "cancel") {
    if (offered.some((o) => o.id === byId)) return byId;
  }
  if (decision.decision === "deny") return decision.interrupt === true ? "cancel" : "decline";
  if (decision.scope === "session" && (offered.some((o) => o.id === "acceptForSession") || !offered.some((o) => o.id === "accept"))) {
    return "acceptForSession";
  }
  return "accept";
}

function v1Decision(decision: ApprovalDecision): ReviewDecision {
  if (decision.optionId === "abort" || decision.optionId === "approved" || decision.optionId === "approved_for_session") return decision.optionId;
  if (decision.decision === "deny") {
    return decision.interrupt === true ? "abort" : { denied: { rejection: decision.message ?? "denied by the host" } };
  }
  return decision.scope === "session" ? "approved_for_session" : "approved";
}

function withReason(summary: string, reason: unknown): string {
  const r = str(reason);
  return r ? `${summary} — ${r}` : summary;
}

async function commandApproval(params: unknown, requestId: string, ctx: RequestContext): Promise<CommandExecutionRequestApprovalResponse> {
  const p = readFrame<CommandApprovalParams>(params) ?? {};
  const offered = offeredDecisions(p.availableDecisions);
  const options = offered.options;
  const command = str(p.command);
  const action = p.kind === "writeStdin" ? "Write to the stdin of a running command" : command ? `Run \`${command}\`` : "Run a command";
  const request: ApprovalRequest = {
    requestId,
    kind: "command",
    summary: withReason(action, p.reason),
    options,
    input: { command, cwd: str(p.cwd), reason: str(p.reason), proposedExecpolicyAmendment: p.proposedExecpolicyAmendment ?? undefined },
  };
  const itemId = str(p.itemId);
  if (itemId) request.callId = itemId;
  const decision = await ctx.request.approve(request);
  return { decision: commandDecision(decision, offered) };
}

async function fileChangeApproval(params: unknown, requestId: string, ctx: RequestContext): Promise<FileChangeRequestApprovalResponse> {
  const p = readFrame<FileChangeRequestApprovalParams>(params) ?? {};
  const options = approvalOptions(undefined);
  const itemId = str(p.itemId);
  const changes = itemId ? ctx.fileChanges(itemId) : undefined;
  const paths = (changes ?? []).map((c) => c.path).filter((x): x is string => typeof x === "string");
  const grantRoot = str(p.grantRoot);
  let summary = paths.length > 0 ? `Apply changes to ${paths.join(", ")}` : "Apply a file change";
  if (grantRoot) summary += ` (and allow writes under ${grantRoot} for the session)`;
  const request: ApprovalRequest = {
    requestId,
    kind: "file_change",
    summary: withReason(summary, p.reason),
    options,
    input: { changes: (changes ?? []).map((c) => ({ path: c.path, kind: c.kind })), grantRoot },
  };
  if (itemId) request.callId = itemId;
  const decision = await ctx.request.approve(request);
  return { decision: v2Decision(decision, options) satisfies FileChangeApprovalDecision };
}

/** Removes nulls so the granted profile only names what was asked for. */
function granted(value: unknown): Json {
  if (!isObject(value)) return {};
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    out[k] = isObject(v) ? granted(v) : v;
  }
  return out;
}

async function permissionsApproval(params: unknown, requestId: string, ctx: RequestContext): Promise<PermissionsRequestApprovalResponse> {
  const p = readFrame<PermissionsRequestApprovalParams>(params) ?? {};
  const permissions = open(p.permissions);
  // What was asked for is granted back as sent (minus nulls), so it is kept whole here.
  const asked: Json = isObject(permissions) ? permissions : {};
  const parts: string[] = [];
  if (bool(open(permissions?.network)?.enabled) === true) parts.push("network access");
  const fileSystem = open(permissions?.fileSystem);
  const read = list(fileSystem?.read).map(anyString).filter((x) => x !== undefined);
  const write = list(fileSystem?.write).map(anyString).filter((x) => x !== undefined);
  if (read.length > 0) parts.push(`read access to ${read.join(", ")}`);
  if (write.length > 0) parts.push(`write access to ${write.join(", ")}`);
  const options: ApprovalOption[] = [
    { id: "turn", label: "Grant for this turn", kind: "allow_once" },
    { id: "session", label: "Grant for this session", kind: "allow_always" },
    { id: "deny", label: "Deny", kind: "deny" },
  ];
  const request: ApprovalRequest = {
    requestId,
    kind: "permissions",
    summary: withReason(parts.length > 0 ? `Grant ${parts.join(" and ")}` : "Grant additional permissions", p.reason),
    options,
    input: { permissions: asked, cwd: str(p.cwd) },
  };
  const itemId = str(p.itemId);
  if (itemId) request.callId = itemId;
  const decision = await ctx.request.approve(request);
  if (decision.decision === "deny" || decision.optionId === "deny") return { permissions: {}, scope: "turn" };
  const forSession = decision.optionId === undefined ? decision.scope === "session" : decision.optionId === "session";
  return { permissions: granted(asked), scope: forSession ? "session" : "turn" };
}

async function legacyApproval(method: string, params: unknown, requestId: string, ctx: RequestContext): Promise<{ decision: ReviewDecision }> {
  const isPatch = method === "applyPatchApproval";
  const p = (isPatch ? readFrame<ApplyPatchApprovalParams>(params) : readFrame<ExecCommandApprovalParams>(params)) ?? {};
  const sent = "command" in p ? p.command : undefined;
  const command = Array.isArray(sent) ? list(sent).map(anyString).filter((x) => x !== undefined).join(" ") : str(sent);
  const request: ApprovalRequest = {
    requestId,
    kind: isPatch ? "file_change" : "command",
    summary: withReason(isPatch ? "Apply a file change" : command ? `Run \`${command}\`` : "Run a command", p.reason),
    options: [
      { id: "approved", label: "Allow once", kind: "allow_once" },
      { id: "approved_for_session", label: "Allow for this session", kind: "allow_always" },
      { id: "denied", label: "Deny", kind: "deny" },
      { id: "abort", label: "Deny and stop the turn", kind: "deny" },
    ],
  };
  const callId = str(p.callId);
  if (callId) request.callId = callId;
  return { decision: v1Decision(await ctx.request.approve(request)) };
}

export function mapQuestions(params: Lenient<ToolRequestUserInputParams>): Question[] {
  const questions: Question[] = [];
  for (const entry of list(params.questions)) {
    const q = open(entry);
    const id = anyString(q?.id);
    if (q === undefined || id === undefined) continue;
    const question: Question = { id, question: str(q.question) ?? "" };
    const header = str(q.header);
    if (header) question.header = header;
    // Codex's own flags: a free-text answer besides the options, and a secret answer.
    if (bool(q.isOther) === true) question.allowOther = true;
    if (bool(q.isSecret) === true) question.secret = true;
    if (Array.isArray(q.options)) {
      question.options = list(q.options)
        .map(open)
        .filter((o) => o !== undefined)
        .map((o) => {
          const option: { label: string; description?: string } = { label: str(o.label) ?? "" };
          const description = str(o.description);
          if (description) option.description = description;
          return option;
        });
    }
    question.multiSelect = false;
    questions.push(question);
  }
  return questions;
}

export function mapAnswer(answer: UserInputAnswer): ToolRequestUserInputResponse {
  if ("declined" in answer) return { answers: {} };
  const answers: ToolRequestUserInputResponse["answers"] = {};
  for (const [id, value] of Object.entries(answer.answers)) answers[id] = { answers: Array.isArray(value) ? [...value] : [value] };
  return { answers };
}

async function userInput(params: unknown, requestId: string, ctx: RequestContext): Promise<ToolRequestUserInputResponse> {
  return mapAnswer(await ctx.request.ask({ requestId, questions: mapQuestions(readFrame<ToolRequestUserInputParams>(params) ?? {}) }));
}

/** Methods this router answers, checked against the generated union. */
const HANDLED = [
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "item/permissions/requestApproval",
  "item/tool/requestUserInput",
  "mcpServer/elicitation/request",
  "item/tool/call",
  "account/chatgptAuthTokens/refresh",
  "attestation/generate",
  "applyPatchApproval",
  "execCommandApproval",
] as const satisfies readonly ServerRequest["method"][];
type Handled = (typeof HANDLED)[number];
// Fails to compile when a Codex upgrade adds a server request this router does not name.
const _exhaustive: Exclude<ServerRequest["method"], Handled> extends never ? true : never = true;
void _exhaustive;

/** Answers one server→client request. Throws `JsonRpcError` to send an error reply. */
export async function answerServerRequest(method: string, params: unknown, requestId: string, ctx: RequestContext): Promise<unknown> {
  switch (method as Handled) {
    case "item/commandExecution/requestApproval":
      return commandApproval(params, requestId, ctx);
    case "item/fileChange/requestApproval":
      return fileChangeApproval(params, requestId, ctx);
    case "item/permissions/requestApproval":
      return permissionsApproval(params, requestId, ctx);
    case "applyPatchApproval":
    case "execCommandApproval":
      return legacyApproval(method, params, requestId, ctx);
    case "item/tool/requestUserInput":
      return userInput(params, requestId, ctx);
    case "mcpServer/elicitation/request": {
      if (isToolApproval(params)) return toolApproval(params, requestId, (request) => ctx.request.approve(request));
      const server = str(readFrame<McpServerElicitationRequestParams>(params)?.serverName);
      await ctx.notice("warning", "mcp_elicitation_declined", `MCP server ${server ?? "(unknown)"} asked for input; agent-adaptor declined it`);
      return { action: "decline", content: null, _meta: null } satisfies McpServerElicitationRequestResponse;
    }
    case "item/tool/call": {
      const tool = str(readFrame<DynamicToolCallParams>(params)?.tool);
      await ctx.notice("warning", "dynamic_tool_refused", `Codex called client tool ${tool ?? "(unknown)"}, which this driver never declared`);
      return {
        contentItems: [{ type: "inputText", text: "This client declares no dynamic tools." }],
        success: false,
      } satisfies DynamicToolCallResponse;
    }
    case "account/chatgptAuthTokens/refresh":
    case "attestation/generate":
      throw new JsonRpcError(-32601, `agent-adaptor does not provide ${method}`);
    default:
      await ctx.notice("warning", "unknown_server_request", `Codex sent an unrecognised request ${method.slice(0, 80)}; it was refused`);
      throw JsonRpcError.methodNotFound(method);
  }
}
