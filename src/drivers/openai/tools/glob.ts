/** `glob`: files of the workspace whose path matches a pattern. */
import { stat } from "node:fs/promises";
import { z } from "zod";

import { field, failure, parseArgs } from "./args.js";
import { confine, displayPath, workspaceRoot } from "./confine.js";
import { compileGlob, type GlobMatcher } from "./glob-match.js";
import type { BuiltinTool, ToolOutcome, ToolRunContext } from "./types.js";
import { walk, type WalkState } from "./walk.js";

/** Paths one call returns at most. */
export const MAX_GLOB_RESULTS = 1000;

const schema = z.object({ pattern: z.string().min(1), path: z.string().min(1).optional() });

const parameters = {
  type: "object",
  properties: {
    pattern: { type: "string", description: 'The glob, relative to path: "**/*.ts", "src/**/*.{js,jsx}", "*.md".' },
    path: { type: "string", description: "The directory to search, relative to the workspace. Default: the workspace itself." },
  },
  required: ["pattern"],
  additionalProperties: false,
};

export const globTool: BuiltinTool = {
  name: "glob",
  description:
    "Finds files whose path (relative to the searched directory) matches a glob pattern: * and ? within one path segment, ** across directories, " +
    "[abc] classes and {a,b} alternatives; wildcards do not match names starting with a dot unless the pattern spells the dot. " +
    `Returns workspace-relative paths in path order, at most ${MAX_GLOB_RESULTS}. .git and node_modules are not searched unless path points into them. ` +
    "Symbolic links are listed but not followed.",
  parameters,
  kind: "read",
  title: (args) => `Glob ${field(args, "pattern") ?? ""}`.trimEnd(),
  run: runGlob,
};

async function runGlob(args: unknown, ctx: ToolRunContext): Promise<ToolOutcome> {
  const parsed = parseArgs("glob", schema, args);
  if ("error" in parsed) return parsed.error;
  let matcher: GlobMatcher;
  try {
    matcher = compileGlob(parsed.value.pattern);
  } catch (error) {
    return failure(`invalid pattern ${parsed.value.pattern}: ${(error as Error).message}`);
  }
  const root = await workspaceRoot(ctx.workspace);
  if (typeof root !== "string") return failure(root.refused);
  const start = await confine(root, ctx.workspace, parsed.value.path ?? ".");
  if ("refused" in start) return failure(start.refused);
  if (!start.exists) return failure(`directory not found: ${start.display}`);
  if (!(await stat(start.real)).isDirectory()) return failure(`${start.display} is a file, not a directory`);
  const found: string[] = [];
  const state: WalkState = { truncated: false };
  let more = false;
  for await (const entry of walk(start.real, { signal: ctx.signal }, state)) {
    if (entry.dirent.isDirectory() || !matcher.test(entry.rel)) continue;
    if (found.length >= MAX_GLOB_RESULTS) {
      more = true;
      break;
    }
    found.push(displayPath(root, entry.path));
  }
  if (ctx.signal.aborted) return failure("cancelled");
  const notes = [more ? `[results capped at ${MAX_GLOB_RESULTS}; narrow the pattern or the path]` : "", state.truncated ? "[the search stopped at its entry bound; narrow the path]" : ""].filter(Boolean);
  if (found.length === 0) return { output: [`no files match ${parsed.value.pattern} in ${start.display}`, ...notes].join("\n"), isError: false };
  return { output: [...found, ...notes].join("\n"), isError: false };
}
