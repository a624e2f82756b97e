/**
 * Tool calls as the AI SDK's dynamic tool parts, and approvals as its tool approval flow: a call's
 * approval puts its part in `approval-requested` (approval id = the request id); an allow puts it
 * back to running, a deny to `output-denied`. A request about a call not (yet) started gets a
 * part of its own, which the call's `tool.started` then fills in.
 */
import type { EventOf } from "../../events/types.js";
import type { AgentUIMessageChunk, AgentUIToolMetadata, AgentUIToolOutput } from "./chunks.js";

/** Output kept of a running call for its preliminary part (its tail). */
const RUNNING_OUTPUT_CAP = 16 * 1024;

interface ToolPart {
  toolName: string;
  title?: string;
  input: unknown;
  toolMetadata?: AgentUIToolMetadata;
  /** The output seen so far while it runs. */
  output: string;
  /** The approval request waiting on this call. */
  pendingApproval?: string;
  ended: boolean;
}

export class ToolParts {
  readonly #parts = new Map<string, ToolPart>();

  started(event: EventOf<"tool.started">): AgentUIMessageChunk[] {
    const known = this.#parts.get(event.callId);
    const part: ToolPart = {
      toolName: event.name ?? event.kind,
      title: event.title,
      input: event.rawInput ?? inputOf(event),
      toolMetadata: metadataOf(event),
      output: known?.output ?? "",
      ...(known?.pendingApproval !== undefined ? { pendingApproval: known.pendingApproval } : {}),
      ended: false,
    };
    this.#parts.set(event.callId, part);
    const out: AgentUIMessageChunk[] = known === undefined ? [this.#inputStart(event.callId, part)] : [];
    out.push(this.#inputAvailable(event.callId, part));
    // Filling in a part resets its state: a request still waiting is shown again.
    if (part.pendingApproval !== undefined) out.push({ type: "tool-approval-request", approvalId: part.pendingApproval, toolCallId: event.callId });
    return out;
  }

  updated(event: EventOf<"tool.updated">): AgentUIMessageChunk[] {
    const part = this.#parts.get(event.callId);
    if (part === undefined || part.ended || event.output === undefined || event.output === "") return [];
    part.output = (part.output + event.output).slice(-RUNNING_OUTPUT_CAP);
    if (part.pendingApproval !== undefined) return [];
    const output: AgentUIToolOutput = { status: "running", output: part.output, ...(event.files ? { files: event.files } : {}) };
    return [{ type: "tool-output-available", toolCallId: event.callId, output, dynamic: true, preliminary: true }];
  }

  completed(event: EventOf<"tool.completed">): AgentUIMessageChunk[] {
    const out = this.#ensure(event.callId, "tool");
    const part = this.#parts.get(event.callId)!;
    part.ended = true;
    delete part.pendingApproval;
    const callId = event.callId;
    if (event.status === "completed") {
      const output: AgentUIToolOutput = {
        status: "completed",
        ...(event.output !== undefined ? { output: event.output } : {}),
        ...(event.exitCode !== undefined ? { exitCode: event.exitCode } : {}),
        ...(event.files ? { files: event.files } : {}),
      };
      out.push({ type: "tool-output-available", toolCallId: callId, output, dynamic: true });
    } else if (event.status === "declined") out.push({ type: "tool-output-denied", toolCallId: callId });
    else out.push({ type: "tool-output-error", toolCallId: callId, errorText: errorTextOf(event), dynamic: true });
    return out;
  }

  /** An approval about `callId`: the call's part asks for it. */
  approvalRequested(callId: string, requestId: string, kind: string, summary: string): AgentUIMessageChunk[] {
    const out = this.#ensure(callId, kind, { summary });
    const part = this.#parts.get(callId)!;
    if (part.ended) return out;
    part.pendingApproval = requestId;
    out.push({ type: "tool-approval-request", approvalId: requestId, toolCallId: callId });
    return out;
  }

  approvalResolved(callId: string, requestId: string, allowed: boolean): AgentUIMessageChunk[] {
    const part = this.#parts.get(callId);
    if (part === undefined || part.ended || part.pendingApproval !== requestId) return [];
    delete part.pendingApproval;
    if (!allowed) {
      part.ended = true;
      return [{ type: "tool-output-denied", toolCallId: callId }];
    }
    // Allowed: the part shows the call running again.
    return [this.#inputAvailable(callId, part)];
  }

  /** Close what the run left open: a call still running ends as an error part. */
  closeAll(reason: string): AgentUIMessageChunk[] {
    const out: AgentUIMessageChunk[] = [];
    for (const [callId, part] of this.#parts) {
      if (part.ended) continue;
      part.ended = true;
      out.push({ type: "tool-output-error", toolCallId: callId, errorText: reason, dynamic: true });
    }
    return out;
  }

  /** A part for `callId`, made from what is known when its `tool.started` was not seen. */
  #ensure(callId: string, toolName: string, input: unknown = {}): AgentUIMessageChunk[] {
    if (this.#parts.has(callId)) return [];
    const part: ToolPart = { toolName, input, output: "", ended: false };
    this.#parts.set(callId, part);
    return [this.#inputStart(callId, part), this.#inputAvailable(callId, part)];
  }

  #inputStart(callId: string, part: ToolPart): AgentUIMessageChunk {
    return { type: "tool-input-start", toolCallId: callId, toolName: part.toolName, dynamic: true, ...(part.title !== undefined ? { title: part.title } : {}), ...(part.toolMetadata ? { toolMetadata: part.toolMetadata } : {}) };
  }

  #inputAvailable(callId: string, part: ToolPart): AgentUIMessageChunk {
    return {
      type: "tool-input-available",
      toolCallId: callId,
      toolName: part.toolName,
      input: part.input,
      dynamic: true,
      ...(part.title !== undefined ? { title: part.title } : {}),
      ...(part.toolMetadata ? { toolMetadata: part.toolMetadata } : {}),
    };
  }
}

function inputOf(event: EventOf<"tool.started">): Record<string, unknown> {
  return {
    ...(event.command !== undefined ? { command: event.command } : {}),
    ...(event.cwd !== undefined ? { cwd: event.cwd } : {}),
    ...(event.files ? { files: event.files.map((file) => file.path) } : {}),
  };
}

function metadataOf(event: EventOf<"tool.started">): AgentUIToolMetadata {
  return {
    kind: event.kind,
    ...(event.command !== undefined ? { command: event.command } : {}),
    ...(event.cwd !== undefined ? { cwd: event.cwd } : {}),
    ...(event.mcp ? { mcpServer: event.mcp.server, mcpTool: event.mcp.tool } : {}),
  };
}

function errorTextOf(event: EventOf<"tool.completed">): string {
  if (event.status === "cancelled") return "cancelled";
  const exit = event.exitCode !== undefined ? ` (exit code ${event.exitCode})` : "";
  return event.output !== undefined && event.output !== "" ? `${event.output}${exit}` : `failed${exit}`;
}
