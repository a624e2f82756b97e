/**
 * Codex asks before an MCP tool runs (the agent's MCP servers and its host tools alike) with an
 * MCP elicitation whose `_meta.codex_approval_kind` is `"mcp_tool_call"`. That request is an
 * approval like a command's: it goes to the host's approval handler (or the policy) as kind
 * `"tool"`, and the decision is answered as the elicitation's `accept` or `decline`.
 */
import type { ApprovalRequest } from "../../driver/vocabulary.js";
import type { ApprovalOption } from "../../events/types.js";
import { list, open, readFrame, str, type Lenient } from "../../driver/lens.js";
import type { JsonValue } from "./protocol/serde_json/JsonValue.js";
import type { McpServerElicitationRequestParams } from "./protocol/v2/McpServerElicitationRequestParams.js";
import type { McpServerElicitationRequestResponse } from "./protocol/v2/McpServerElicitationRequestResponse.js";
import type { RunRequest } from "../../driver/types.js";

/** The `_meta` Codex 0.171 puts on an MCP tool approval (recorded from the real CLI). */
interface ToolApprovalMeta {
  codex_approval_kind?: string;
  /** The scopes the answer may ask Codex to remember the approval for, e.g. `["session", "always"]`. */
  persist?: string[];
  tool_name?: string;
  tool_params?: JsonValue;
}

function approvalMeta(params: unknown): Lenient<ToolApprovalMeta> | undefined {
  const meta = open(readFrame<McpServerElicitationRequestParams>(params)?._meta) as Lenient<ToolApprovalMeta> | undefined;
  return str(meta?.codex_approval_kind) === "mcp_tool_call" ? meta : undefined;
}

/** Whether an elicitation is Codex asking to run an MCP tool. */
export function isToolApproval(params: unknown): boolean {
  return approvalMeta(params) !== undefined;
}

/** Routes an MCP tool approval through core; answers `accept` (optionally remembered for the session) or `decline`. */
export async function toolApproval(params: unknown, requestId: string, approve: RunRequest["approve"]): Promise<McpServerElicitationRequestResponse> {
  const meta = approvalMeta(params);
  const server = str(readFrame<McpServerElicitationRequestParams>(params)?.serverName) ?? "(unknown)";
  const tool = str(meta?.tool_name) ?? "(unknown)";
  const remembers = list(meta?.persist).some((scope) => str(scope) === "session");
  const options: ApprovalOption[] = [
    { id: "accept", label: "Allow once", kind: "allow_once" },
    ...(remembers ? [{ id: "acceptForSession", label: "Allow for this session", kind: "allow_always" } satisfies ApprovalOption] : []),
    { id: "decline", label: "Deny", kind: "deny" },
  ];
  const request: ApprovalRequest = { requestId, kind: "tool", summary: `Run MCP tool ${tool} of server ${server}`, options };
  if (meta?.tool_params !== undefined) request.input = meta.tool_params;
  const decision = await approve(request);
  if (decision.decision === "deny" || decision.optionId === "decline") return { action: "decline", content: null, _meta: null };
  const forSession = remembers && (decision.optionId === "acceptForSession" || (decision.optionId === undefined && decision.scope === "session"));
  return { action: "accept", content: {}, _meta: forSession ? { persist: "session" } : null };
}
