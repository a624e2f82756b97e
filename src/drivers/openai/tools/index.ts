/** The built-in workspace tools of the OpenAI-compatible driver. */
import type { BuiltinTool, BuiltinToolsOptions } from "./types.js";

export type { BuiltinTool, BuiltinToolsOptions, ToolOutcome, ToolRunContext } from "./types.js";

/** The built-in tools, in the order they are offered to the model. */
export function builtinTools(_options: BuiltinToolsOptions = {}): BuiltinTool[] {
  return [];
}
