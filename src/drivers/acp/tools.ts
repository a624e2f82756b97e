/**
 * ACP tool calls → the normalized tool fields. ACP has no tool-name, command or exit-code field:
 * each is read only where the agent puts it (`_meta.<agent>.toolName`, `rawInput.command` /
 * `rawInput.cwd`, `rawOutput.exit_code` / `exitCode`), never derived from a title. `content` is
 * replaced whole by every `tool_call_update`, so the text already sent is remembered and only
 * what is new goes out as a delta. Diff blocks `{path, oldText, newText}` become files with a
 * unified diff computed by the kit.
 */
import type { Diff, ToolCallUpdate } from "@agentclientprotocol/sdk/unstable";
import type { FileChange, McpToolRef, ToolKind } from "../../events/types.js";
import { fileChange } from "../../driver/kit/diff.js";
import { isObject, num, open, openEach, readFrame, str, type Lenient } from "../../driver/lens.js";

/** The content of a tool update as it may arrive (`tool_call`, `tool_call_update`, a permission request's call). */
export type AcpToolContent = Pick<Lenient<ToolCallUpdate>, "content">;

/**
 * A tool's `rawOutput` exit status (camelCase or snake_case) and whole output, as agents that run
 * commands report it (codex-acp forwards Codex's `aggregated_output`).
 */
interface CommandRawOutput {
  exitCode?: number;
  exit_code?: number;
  aggregated_output?: string;
}

/** ACP tool kinds → canonical tool kinds. */
export function toolKind(kind: unknown): ToolKind {
  switch (kind) {
    case "execute":
      return "command";
    case "edit":
    case "delete":
    case "move":
      return "file_change";
    case "read":
    case "search":
      return "read";
    case "fetch":
      return "web_search";
    default:
      return "other";
  }
}

/**
 * The agent's own tool name: the `name` field of newer ACP schemas, else where an agent puts one
 * in `_meta` (claude-agent-acp: `_meta.claudeCode.toolName`).
 */
export function agentToolName(name: unknown, meta: unknown): string | undefined {
  const own = str(name);
  if (own !== undefined && own !== "") return own;
  if (!isObject(meta)) return undefined;
  for (const value of Object.values(meta)) {
    const name = isObject(value) ? str(value.toolName) : undefined;
    if (name !== undefined && name !== "") return name;
  }
  return undefined;
}

/** One argv word, quoted for a POSIX shell when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `command` and `cwd` from a command tool's `rawInput`, when the agent put them there. */
export function commandOf(rawInput: unknown): { command?: string; cwd?: string } {
  if (!isObject(rawInput)) return {};
  const out: { command?: string; cwd?: string } = {};
  const command = rawInput.command;
  if (typeof command === "string" && command !== "") out.command = command;
  else if (Array.isArray(command) && command.length > 0 && command.every((w) => typeof w === "string")) out.command = command.map(shellWord).join(" ");
  const cwd = str(rawInput.cwd);
  if (cwd !== undefined && cwd !== "") out.cwd = cwd;
  return out;
}

/** The exit code an agent reports in `rawOutput`, if any. */
export function exitCodeOf(rawOutput: unknown): number | undefined {
  const output = readFrame<CommandRawOutput>(rawOutput);
  return output === undefined ? undefined : num(output.exitCode ?? output.exit_code);
}

/** The whole command output an agent reports in `rawOutput`, if any. */
export function commandOutputOf(rawOutput: unknown): string | undefined {
  return str(readFrame<CommandRawOutput>(rawOutput)?.aggregated_output);
}

/** The change a diff block stands for: the agent's own `_meta.kind` (Gemini CLI), else `oldText` null → added. */
function changeOf(item: Lenient<Diff>, acpKind: unknown): FileChange["change"] {
  const meta = item._meta;
  const metaKind = isObject(meta) ? str(meta.kind) : undefined;
  if (metaKind === "add" || metaKind === "added") return "added";
  if (metaKind === "delete" || metaKind === "deleted") return "deleted";
  if (metaKind === "modify" || metaKind === "modified" || metaKind === "update") return "modified";
  if (acpKind === "delete" && str(item.newText) === "") return "deleted";
  return str(item.oldText) === undefined ? "added" : "modified";
}

/** The call's diff blocks as files, each with a unified diff; undefined when it has none. */
export function filesOf(update: AcpToolContent, acpKind: unknown): FileChange[] | undefined {
  const files: FileChange[] = [];
  for (const item of openEach(update.content)) {
    if (item.type !== "diff") continue;
    const diff = item as Lenient<Diff>;
    const path = str(diff.path);
    const newText = str(diff.newText);
    if (path === undefined || newText === undefined) continue;
    const change = changeOf(diff, acpKind);
    const before = change === "added" ? undefined : str(diff.oldText) ?? "";
    files.push(fileChange(path, before, change === "deleted" ? undefined : newText));
  }
  return files.length > 0 ? files : undefined;
}

/** The call's text content, joined; undefined when it has none. */
export function textOf(update: AcpToolContent): string | undefined {
  const texts: string[] = [];
  for (const item of openEach(update.content)) {
    const content = item.type === "content" ? open(item.content) : undefined;
    const text = content?.type === "text" ? str(content.text) : undefined;
    if (text !== undefined) texts.push(text);
  }
  return texts.length > 0 ? texts.join("\n") : undefined;
}

/**
 * What is new in `now` against the text already sent: the tail when `now` extends it, else all of
 * `now` (the agent replaced its content with something else).
 */
export function outputDelta(sent: string, now: string): string {
  return now.startsWith(sent) ? now.slice(sent.length) : now;
}

/**
 * The MCP server and tool a call goes to, when it goes to one of the servers the run offered.
 * Agents mark it differently: `rawInput` `{server, tool, arguments}` (codex-acp), the tool name `mcp__<server>__<tool>` (claude-agent-acp's
 * `_meta.claudeCode.toolName`), Gemini CLI's title `<tool> (<server> MCP Server)` with its call id
 * `mcp_<server>_<tool>__…`, or Copilot CLI's bare title `<server>-<tool>`. Only a server the run
 * offered is believed.
 */
export function mcpToolOf(call: { name?: string; title?: string; callId?: string; input?: unknown }, servers: readonly string[]): McpToolRef | undefined {
  if (servers.length === 0) return undefined;
  const input = isObject(call.input) ? call.input : undefined;
  const inputServer = str(input?.server);
  const inputTool = str(input?.tool);
  if (inputServer !== undefined && inputTool !== undefined && inputTool !== "" && servers.includes(inputServer)) return { server: inputServer, tool: inputTool };
  for (const server of servers) {
    const prefix = `mcp__${server}__`;
    if (call.name?.startsWith(prefix) === true && call.name.length > prefix.length) return { server, tool: call.name.slice(prefix.length) };
  }
  // Copilot CLI: the title `<server>-<tool>` and nothing else (the longest offered server wins).
  const dashed = [...servers].sort((a, b) => b.length - a.length).find((server) => call.title?.startsWith(`${server}-`) === true && call.title.length > server.length + 1);
  if (dashed !== undefined && call.name === undefined && !/\s/.test(call.title!)) return { server: dashed, tool: call.title!.slice(dashed.length + 1) };
  const titled = /^(.+) \((.+) MCP Server\)$/.exec(call.title ?? "");
  if (titled !== null) {
    const [, tool, server] = titled as unknown as [string, string, string];
    if (servers.includes(server) && (call.callId === undefined || call.callId.startsWith(`mcp_${server}_${tool}`))) return { server, tool };
  }
  return undefined;
}
