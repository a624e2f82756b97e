/** The built-in workspace tools of the OpenAI-compatible driver. */
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { listTool } from "./list.js";
import { readTool } from "./read.js";
import type { BuiltinTool, BuiltinToolsOptions } from "./types.js";
import { writeTool } from "./write.js";

export type { BuiltinTool, BuiltinToolsOptions, ToolOutcome, ToolRunContext } from "./types.js";

/** The built-in tools, in the order they are offered to the model. */
export function builtinTools(options: BuiltinToolsOptions = {}): BuiltinTool[] {
  return [readTool, writeTool, editTool, listTool, globTool, grepTool(options.grep), bashTool(options.bash)];
}
