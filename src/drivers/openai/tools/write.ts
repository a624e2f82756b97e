/** `write`: creates or replaces a file with the given content (missing directories created). */
import { z } from "zod";

import { fileChange } from "../../../driver/kit/diff.js";
import type { FileChange } from "../../../events/types.js";
import { field, failure, parseArgs } from "./args.js";
import { confine, workspaceRoot } from "./confine.js";
import { readFileText, reason, writeFileAtomic } from "./files.js";
import type { BuiltinTool, ToolOutcome, ToolRunContext } from "./types.js";

const schema = z.object({ path: z.string().min(1), content: z.string() });

const parameters = {
  type: "object",
  properties: {
    path: { type: "string", description: "The file to write, relative to the workspace." },
    content: { type: "string", description: "The complete new content of the file." },
  },
  required: ["path", "content"],
  additionalProperties: false,
};

export const writeTool: BuiltinTool = {
  name: "write",
  description:
    "Writes a file in the workspace, replacing it entirely if it exists; missing parent directories are created. " +
    "To change part of an existing file prefer edit, and read a file before overwriting it. Paths outside the workspace are refused.",
  parameters,
  kind: "file_change",
  approval: "file_change",
  title: (args) => `Write ${field(args, "path") ?? "file"}`,
  run: runWrite,
};

async function runWrite(args: unknown, ctx: ToolRunContext): Promise<ToolOutcome> {
  const parsed = parseArgs("write", schema, args);
  if ("error" in parsed) return parsed.error;
  const { path, content } = parsed.value;
  // "dir/" names a directory: resolved, it would have become a file named "dir".
  if (path.endsWith("/")) return failure(`${path} ends with "/" and names a directory; give a file path`);
  const root = await workspaceRoot(ctx.workspace);
  if (typeof root !== "string") return failure(root.refused);
  const target = await confine(root, ctx.workspace, path);
  if ("refused" in target) return failure(target.refused);
  if (target.display === ".") return failure("the workspace itself is a directory; give a file path");
  const before = await readFileText(target.real);
  if (before.state === "directory") return failure(`${target.display} is a directory`);
  if (before.state === "special") return failure(`${target.display} is not a regular file`);
  if (ctx.signal.aborted) return failure("cancelled");
  try {
    await writeFileAtomic(target.real, content, before.state === "text" ? before.mode : undefined);
  } catch (error) {
    return failure(`cannot write ${target.display}: ${reason(error)}`);
  }
  const change: FileChange =
    before.state === "absent"
      ? fileChange(target.display, undefined, content)
      : before.state === "text"
        ? fileChange(target.display, before.text, content)
        : { path: target.display, change: "modified" };
  const lines = content === "" ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
  const verb = before.state === "absent" ? "created" : "overwrote";
  return { output: `${verb} ${target.display} (${lines} lines, ${Buffer.byteLength(content)} bytes)`, isError: false, files: [change] };
}
