/**
 * How the CLIs' built-in tools map to canonical tool kinds. Both dialects share Claude Code's
 * tool names (Bash, Edit, Write, Task/Agent, TodoWrite, AskUserQuestion, `mcp__server__tool`).
 */
import type { McpToolRef, PlanEntry, ToolKind } from "../../events/types.js";
import { redactThenClip } from "../../redact/clip.js";
import { isObject, str } from "./wire.js";

const COMMAND_TOOLS = new Set(["Bash", "PowerShell", "BashOutput", "KillShell", "KillBash"]);
const FILE_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);
const READ_TOOLS = new Set(["Read", "Glob", "Grep", "LS", "NotebookRead", "LSP"]);
const SEARCH_TOOLS = new Set(["WebSearch", "WebFetch"]);
const SUBAGENT_TOOLS = new Set(["Task", "Agent"]);

/** Tools that are not reported as tool events: they have their own canonical events. */
export const PLAN_TOOL = "TodoWrite";
export const QUESTION_TOOL = "AskUserQuestion";

/**
 * The tool a call really runs. CodeBuddy offers MCP tools (those of servers that connected after
 * the turn's tool list was made, the host tools included) through its `DeferExecuteTool`:
 * `{toolName, params}`; the call is that tool with those arguments.
 */
export function effectiveTool(name: string, input: unknown): { name: string; input: unknown } {
  if (name !== "DeferExecuteTool" || typeof input !== "object" || input === null) return { name, input };
  const { toolName, params } = input as { toolName?: unknown; params?: unknown };
  return typeof toolName === "string" && toolName.length > 0 ? { name: toolName, input: params ?? {} } : { name, input };
}

export function toolKind(name: string): ToolKind {
  if (COMMAND_TOOLS.has(name)) return "command";
  if (FILE_TOOLS.has(name)) return "file_change";
  if (name.startsWith("mcp__")) return "mcp";
  if (SUBAGENT_TOOLS.has(name)) return "subagent";
  if (SEARCH_TOOLS.has(name)) return "web_search";
  if (READ_TOOLS.has(name)) return "read";
  return "other";
}

/**
 * A short human title: the command, the file, the query, or the tool's name. `redact` runs before
 * the cut: a secret across it would leave its front past the redaction of the emitted event.
 */
export function toolTitle(name: string, input: unknown, redact: (text: string) => string): string {
  const field = (key: string) => (isObject(input) ? str(input[key]) : undefined);
  const detail =
    field("command") ?? field("file_path") ?? field("notebook_path") ?? field("pattern") ?? field("query") ?? field("url") ?? field("description");
  const mcp = mcpRef(name);
  if (mcp) return `${mcp.server}: ${mcp.tool}`;
  return detail ? `${name}: ${redactThenClip(detail.split("\n", 1)[0] ?? "", redact, 200)}` : name;
}

/**
 * The server and tool of an MCP tool name, `mcp__<server>__<tool>`, split as Claude Code splits it:
 * the server ends at the first `__`, the tool keeps the rest (it may hold `__` itself).
 */
export function mcpRef(name: string): McpToolRef | undefined {
  if (!name.startsWith("mcp__")) return undefined;
  const rest = name.slice("mcp__".length);
  const split = rest.indexOf("__");
  if (split <= 0 || split + 2 >= rest.length) return undefined;
  return { server: rest.slice(0, split), tool: rest.slice(split + 2) };
}

/** The command line of a command tool (`Bash`, `PowerShell`), as the model wrote it. */
export function commandOf(name: string, input: unknown): string | undefined {
  return (name === "Bash" || name === "PowerShell") && isObject(input) ? str(input.command) : undefined;
}

/** The approval kind of a permission request for `name`. */
export function approvalKind(name: string): "command" | "file_change" | "tool" {
  const kind = toolKind(name);
  return kind === "command" || kind === "file_change" ? kind : "tool";
}

/** Entries of a TodoWrite input (`todos: [{content, status}]`), or undefined when malformed. */
export function planEntries(input: unknown): PlanEntry[] | undefined {
  if (!isObject(input) || !Array.isArray(input.todos)) return undefined;
  const entries: PlanEntry[] = [];
  for (const todo of input.todos) {
    if (!isObject(todo)) continue;
    const text = str(todo.content) ?? str(todo.activeForm);
    const status = todo.status;
    if (text === undefined) continue;
    entries.push({ text, status: status === "completed" || status === "in_progress" ? status : "pending" });
  }
  return entries;
}

/** Text of a tool_result's content (a string or text blocks). */
export function resultText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter(isObject).map((b) => (b.type === "text" ? str(b.text) : undefined)).filter((t): t is string => t !== undefined);
  return parts.length > 0 ? parts.join("\n") : undefined;
}
