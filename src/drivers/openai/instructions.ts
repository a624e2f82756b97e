/**
 * The system prompt of a run: a short statement of what the agent is and where it works, the
 * rules of the built-in tools when they are offered, and the agent's own instructions last.
 */
import type { RunRequest } from "../../driver/types.js";

const BASE = "You are a coding agent. You work in the user's workspace and answer concisely.";
const TOOL_RULES = [
  "Use the tools to inspect and change the workspace instead of guessing; read a file before editing it.",
  "Paths are relative to the workspace; nothing outside it can be read or written.",
  "When the task is done, answer with a short summary of what you did.",
].join(" ");

export function systemPrompt(request: Pick<RunRequest, "resources">, builtinTools: boolean): string {
  const parts = [BASE];
  if (builtinTools) parts.push(TOOL_RULES);
  const own = request.resources.instructions;
  if (own !== undefined && own.trim() !== "") parts.push(own);
  return parts.join("\n\n");
}
