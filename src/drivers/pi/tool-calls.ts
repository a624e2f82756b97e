/**
 * Pi's `tool_execution_start/update/end` as `tool.started/updated/completed` with the normalized
 * fields (see ./tools.ts for what Pi reports and how it is read). An edit or write call's file is
 * read from the workspace before the call runs: as soon as the model's streamed call names it.
 */
import { arr, isObject, num, str, type Json } from "../../driver/json.js";
import { readWorkspaceText, type WorkspaceFileText } from "../../driver/kit/workspace-file.js";
import type { DriverEvent, ToolCompleted, ToolStarted } from "../../events/types.js";
import { completedFiles, failedExitCode, filePath, mcpTool, outputDelta, startFiles, toolKind, toolTitle } from "./tools.js";

const PROVIDER = "pi";

type Emit = (event: DriverEvent) => Promise<void>;

const UNAVAILABLE: Promise<WorkspaceFileText> = Promise.resolve({ state: "unavailable" });

interface OpenTool {
  completed: boolean;
  name: string;
  args: unknown;
  /** The output so far, as the last update repeated it. */
  output: string;
}

/** Text of a tool result's `content` parts (an image part as `[image]`). */
export function toolOutput(result: unknown): string | undefined {
  if (!isObject(result)) return undefined;
  const parts = arr(result.content).filter(isObject);
  if (parts.length === 0) return undefined;
  return parts.map((c) => (c.type === "text" ? (str(c.text) ?? "") : `[${String(c.type)}]`)).join("");
}

/** One run's tool calls. */
export class PiToolCalls {
  readonly #emit: Emit;
  /** Where an edit or write call's file is read for its diff (undefined: none is read). */
  readonly #workspace: string | undefined;
  readonly #tools = new Map<string, OpenTool>();
  /** The reads of edit and write calls' files, per call id. */
  readonly #snapshots = new Map<string, Promise<WorkspaceFileText>>();
  /** The MCP servers whose tools the driver's extension registered (`mcp__<server>__<tool>`). */
  readonly #mcpServers: readonly string[];
  /** Set when the run is cancelled: Pi's abort makes a running tool fail, which is its cancellation. */
  cancelling = false;

  /** The driver's redaction, applied to a title before it is cut (see `toolTitle`). */
  readonly #redact: (text: string) => string;

  constructor(emit: Emit, workspace?: string, mcpServers: readonly string[] = [], redact: (text: string) => string = (text) => text) {
    this.#redact = redact;
    this.#emit = emit;
    this.#workspace = workspace;
    this.#mcpServers = mcpServers;
  }

  /** Calls started and not yet ended. */
  get active(): number {
    let n = 0;
    for (const t of this.#tools.values()) if (!t.completed) n++;
    return n;
  }

  /**
   * A `toolcall_*` update of the streamed assistant message: once an edit or write call names its
   * file, the file is read (awaited, so it is done as early as it can be). Pi runs the call after
   * the message ends, without waiting for this driver: a call Pi ran first shows the file already
   * written (see `startFiles`).
   */
  async streamed(sub: Json): Promise<void> {
    if (this.#workspace === undefined) return;
    const partial = isObject(sub.partial) ? arr(sub.partial.content)[num(sub.contentIndex) ?? -1] : undefined;
    const call = isObject(sub.toolCall) ? sub.toolCall : partial;
    if (!isObject(call)) return;
    const id = str(call.id);
    const path = filePath(str(call.name) ?? "", call.arguments);
    if (id === undefined || path === undefined || this.#snapshots.has(id)) return;
    const snapshot = readWorkspaceText(this.#workspace, path);
    this.#snapshots.set(id, snapshot);
    await snapshot;
  }

  /** The file of a call as read before it ran (read now when the stream never named it). */
  #snapshot(callId: string, name: string, args: unknown): Promise<WorkspaceFileText> {
    let snapshot = this.#snapshots.get(callId);
    if (snapshot === undefined) {
      const path = filePath(name, args);
      snapshot = this.#workspace === undefined || path === undefined ? UNAVAILABLE : readWorkspaceText(this.#workspace, path);
      this.#snapshots.set(callId, snapshot);
    }
    return snapshot;
  }

  async start(event: Json): Promise<void> {
    const callId = str(event.toolCallId);
    if (callId === undefined || this.#tools.has(callId)) return;
    const name = str(event.toolName) ?? "tool";
    this.#tools.set(callId, { completed: false, name, args: event.args, output: "" });
    const mcp = mcpTool(name, this.#mcpServers);
    const kind = mcp !== undefined ? "mcp" : toolKind(name);
    const started: ToolStarted = { callId, kind, name, title: mcp !== undefined ? `${mcp.server}/${mcp.tool}` : toolTitle(name, event.args, this.#redact) };
    if (mcp !== undefined) started.mcp = mcp;
    const command = kind === "command" && isObject(event.args) ? str(event.args.command) : undefined;
    if (command !== undefined) started.command = command;
    if (kind === "file_change") {
      const files = startFiles(name, event.args, await this.#snapshot(callId, name, event.args));
      if (files !== undefined) started.files = files;
    }
    if (event.args !== undefined) started.rawInput = event.args;
    await this.#emit({ type: "tool.started", ...started, provenance: { provider: PROVIDER, itemId: callId, event: "tool_execution_start" } });
  }

  /** An update repeats the output so far: only what is new since the previous one is sent. */
  async update(event: Json): Promise<void> {
    const callId = str(event.toolCallId);
    const tool = callId === undefined ? undefined : this.#tools.get(callId);
    if (tool === undefined || tool.completed) return;
    const output = toolOutput(event.partialResult);
    if (output === undefined) return;
    const delta = outputDelta(tool.output, output);
    tool.output = output;
    if (delta === "") return;
    await this.#emit({ type: "tool.updated", callId: callId!, output: delta, provenance: { provider: PROVIDER, itemId: callId!, event: "tool_execution_update" } });
  }

  async end(event: Json): Promise<void> {
    const callId = str(event.toolCallId);
    if (callId === undefined || this.#tools.get(callId)?.completed === true) return;
    if (!this.#tools.has(callId)) await this.start(event);
    const tool = this.#tools.get(callId)!;
    tool.completed = true;
    const failed = event.isError === true;
    const done: ToolCompleted = { callId, status: failed ? (this.cancelling ? "cancelled" : "failed") : "completed" };
    const result = isObject(event.result) ? event.result : undefined;
    const output = toolOutput(result);
    if (output !== undefined) done.output = output;
    const kind = toolKind(tool.name);
    const exitCode = kind === "command" && failed ? failedExitCode(output) : undefined;
    if (exitCode !== undefined) done.exitCode = exitCode;
    if (kind === "file_change" && !failed) {
      const files = completedFiles(tool.name, tool.args, await this.#snapshot(callId, tool.name, tool.args), result?.details);
      if (files !== undefined) done.files = files;
    }
    this.#snapshots.delete(callId);
    await this.#emit({ type: "tool.completed", ...done, provenance: { provider: PROVIDER, itemId: callId, event: "tool_execution_end" } });
  }

  /** Ends every call still open as cancelled (a cancelled or failed turn). */
  async finish(): Promise<void> {
    for (const [callId, tool] of this.#tools) {
      if (tool.completed) continue;
      tool.completed = true;
      await this.#emit({ type: "tool.completed", callId, status: "cancelled", provenance: { provider: PROVIDER, itemId: callId } });
    }
  }
}
