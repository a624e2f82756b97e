/** `list`: the entries of one workspace directory. */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { z } from "zod";

import { field, failure, parseArgs } from "./args.js";
import { confine, workspaceRoot } from "./confine.js";
import { reason } from "./files.js";
import type { BuiltinTool, ToolOutcome, ToolRunContext } from "./types.js";

/** Entries one call shows at most. */
export const MAX_LIST_ENTRIES = 1000;

const schema = z.object({ path: z.string().min(1).optional() });

const parameters = {
  type: "object",
  properties: { path: { type: "string", description: "The directory to list, relative to the workspace. Default: the workspace itself." } },
  additionalProperties: false,
};

export const listTool: BuiltinTool = {
  name: "list",
  description:
    "Lists the entries of one directory of the workspace (not recursive), hidden entries included, in name order. " +
    "Directories end with /, symbolic links with @. Use glob to find files by pattern in a whole tree. Paths outside the workspace are refused.",
  parameters,
  kind: "read",
  title: (args) => `List ${field(args, "path") ?? "."}`,
  run: runList,
};

async function runList(args: unknown, ctx: ToolRunContext): Promise<ToolOutcome> {
  const parsed = parseArgs("list", schema, args);
  if ("error" in parsed) return parsed.error;
  const root = await workspaceRoot(ctx.workspace);
  if (typeof root !== "string") return failure(root.refused);
  const target = await confine(root, ctx.workspace, parsed.value.path ?? ".");
  if ("refused" in target) return failure(target.refused);
  if (!target.exists) return failure(`directory not found: ${target.display}`);
  let entries: Dirent[];
  try {
    entries = await readdir(target.real, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return failure(code === "ENOTDIR" ? `${target.display} is a file, not a directory; use read` : `cannot list ${target.display}: ${reason(error)}`);
  }
  if (entries.length === 0) return { output: `${target.display} is empty`, isError: false };
  const names = entries.map(label).sort();
  const shown = names.slice(0, MAX_LIST_ENTRIES);
  const more = names.length - shown.length;
  const note = more > 0 ? `\n[${more} more entries not shown]` : "";
  return { output: shown.join("\n") + note, isError: false };
}

function label(entry: Dirent): string {
  if (entry.isSymbolicLink()) return `${entry.name}@`;
  return entry.isDirectory() ? `${entry.name}/` : entry.name;
}
