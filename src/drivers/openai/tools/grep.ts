/** `grep`: lines matching a regular expression in the workspace's files, through ripgrep when present. */
import { stat } from "node:fs/promises";
import { z } from "zod";

import { ExecutableNotFoundError } from "../../../errors/index.js";
import { field, failure, oneLine, parseArgs } from "./args.js";
import { confine, workspaceRoot } from "./confine.js";
import { searchWithJs } from "./grep-js.js";
import { findRipgrep, publishCutLines, searchWithRipgrep } from "./grep-rg.js";
import { MAX_GREP_LINES, type GrepQuery, type GrepResult } from "./grep-types.js";
import type { BuiltinTool, BuiltinToolsOptions, ToolOutcome, ToolRunContext } from "./types.js";

const schema = z.object({
  pattern: z.string().min(1),
  path: z.string().min(1).optional(),
  glob: z.string().min(1).optional(),
  ignore_case: z.boolean().optional(),
});

const parameters = {
  type: "object",
  properties: {
    pattern: { type: "string", description: "The regular expression to find in each line." },
    path: { type: "string", description: "The file or directory to search, relative to the workspace. Default: the workspace itself." },
    glob: { type: "string", description: 'Only files whose workspace-relative path matches this glob ("*.ts", "src/**/*.py"; a leading ! excludes).' },
    ignore_case: { type: "boolean", description: "Match without regard to case. Default false." },
  },
  required: ["pattern"],
  additionalProperties: false,
};

/** How grep chooses its backend: ripgrep on PATH (default), a given rg executable, or never ripgrep. */
type RipgrepChoice = NonNullable<NonNullable<BuiltinToolsOptions["grep"]>["ripgrep"]>;

export function grepTool(options: NonNullable<BuiltinToolsOptions["grep"]> = {}): BuiltinTool {
  const choice: RipgrepChoice = options.ripgrep ?? true;
  let located: Promise<string | undefined> | undefined;
  const ripgrep = (): Promise<string | undefined> => {
    if (choice === false) return Promise.resolve(undefined);
    if (typeof choice === "string") return Promise.resolve(choice);
    located ??= findRipgrep();
    return located;
  };
  return {
    name: "grep",
    description:
      "Searches file contents for a regular expression and returns matching lines as path:line:text, in path order, " +
      `at most ${MAX_GREP_LINES} lines. Searches the workspace (or path) recursively, skipping hidden files, binary files, node_modules ` +
      "and paths listed in .gitignore; narrow it with glob. Prefer this over running grep or rg through bash.",
    parameters,
    kind: "read",
    title: (args, redact) => `Grep ${oneLine(field(args, "pattern") ?? "", 80, redact)}`.trimEnd(),
    run: (args, ctx) => runGrep(args, ctx, ripgrep),
  };
}

async function runGrep(args: unknown, ctx: ToolRunContext, ripgrep: () => Promise<string | undefined>): Promise<ToolOutcome> {
  const parsed = parseArgs("grep", schema, args);
  if ("error" in parsed) return parsed.error;
  const root = await workspaceRoot(ctx.workspace);
  if (typeof root !== "string") return failure(root.refused);
  const start = await confine(root, ctx.workspace, parsed.value.path ?? ".");
  if ("refused" in start) return failure(start.refused);
  if (!start.exists) return failure(`not found: ${start.display}`);
  // A FIFO named as the path would hold the search until a writer comes.
  const kind = await stat(start.real).catch(() => undefined);
  if (kind !== undefined && !kind.isDirectory() && !kind.isFile()) return failure(`${start.display} is not a regular file or a directory`);
  const query: GrepQuery = { pattern: parsed.value.pattern, path: start.display, ignoreCase: parsed.value.ignore_case ?? false };
  if (parsed.value.glob !== undefined) query.glob = parsed.value.glob;
  let result: GrepResult | undefined;
  const rg = await ripgrep();
  if (rg !== undefined) {
    try {
      result = await searchWithRipgrep(rg, query, root, ctx.signal);
      if (ctx.redact !== undefined && result.error === undefined) result = await publishCutLines(result, root, ctx.redact);
    } catch (error) {
      if (!(error instanceof ExecutableNotFoundError)) return failure(`grep failed: ${(error as Error).message}`);
    }
  }
  result ??= await searchWithJs(query, root, start.real, ctx.signal, ctx.redact);
  return outcome(query, result);
}

function outcome(query: GrepQuery, result: GrepResult): ToolOutcome {
  if (result.error !== undefined) return failure(result.error === "cancelled" ? "cancelled" : `grep failed: ${result.error}`);
  const notes: string[] = [];
  if (result.more) notes.push(`[matches capped at ${MAX_GREP_LINES} lines; narrow the pattern, the path or the glob]`);
  if (result.walkTruncated) notes.push("[the search stopped at its entry bound; narrow the path]");
  if (result.lines.length === 0) return { output: [`no matches for ${query.pattern} in ${query.path}`, ...notes].join("\n"), isError: false };
  const done: ToolOutcome = { output: [...result.lines, ...notes].join("\n"), isError: false };
  if (result.published !== undefined) done.published = [...result.published, ...notes].join("\n");
  return done;
}
