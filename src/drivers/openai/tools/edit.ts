/** `edit`: exact-match replacement in a file, unique unless `replace_all`. */
import { z } from "zod";

import { fileChange } from "../../../driver/kit/diff.js";
import { field, failure, parseArgs } from "./args.js";
import { confine, workspaceRoot } from "./confine.js";
import { MAX_EDIT_BYTES, readFileText, reason, writeFileAtomic } from "./files.js";
import type { BuiltinTool, ToolOutcome, ToolRunContext } from "./types.js";

const schema = z.object({
  path: z.string().min(1),
  old_string: z.string().min(1, "must not be empty (use write to create a file)"),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
});

const parameters = {
  type: "object",
  properties: {
    path: { type: "string", description: "The file to change, relative to the workspace." },
    old_string: { type: "string", description: "The exact text to replace, whitespace and indentation included (without read's line-number prefixes)." },
    new_string: { type: "string", description: "The text to put in its place (must differ from old_string)." },
    replace_all: { type: "boolean", description: "Replace every occurrence instead of requiring exactly one. Default false." },
  },
  required: ["path", "old_string", "new_string"],
  additionalProperties: false,
};

export const editTool: BuiltinTool = {
  name: "edit",
  description:
    "Replaces exact text in an existing file of the workspace. old_string must match the file character for character " +
    "and, unless replace_all is true, occur exactly once: include enough surrounding lines to make it unique. " +
    "Read the file first. Fails with a clear error when old_string is not found or found more than once. Paths outside the workspace are refused.",
  parameters,
  kind: "file_change",
  approval: "file_change",
  title: (args) => `Edit ${field(args, "path") ?? "file"}`,
  run: runEdit,
};

async function runEdit(args: unknown, ctx: ToolRunContext): Promise<ToolOutcome> {
  const parsed = parseArgs("edit", schema, args);
  if ("error" in parsed) return parsed.error;
  const { path, replace_all: replaceAll = false } = parsed.value;
  if (parsed.value.old_string === parsed.value.new_string) return failure("old_string and new_string are identical: nothing to change");
  const root = await workspaceRoot(ctx.workspace);
  if (typeof root !== "string") return failure(root.refused);
  const target = await confine(root, ctx.workspace, path);
  if ("refused" in target) return failure(target.refused);
  const before = await readFileText(target.real);
  switch (before.state) {
    case "absent":
      return failure(`file not found: ${target.display} (use write to create a file)`);
    case "directory":
      return failure(`${target.display} is a directory`);
    case "special":
      return failure(`${target.display} is not a regular file`);
    case "binary":
      return failure(`${target.display} is a binary file; edit changes text files only`);
    case "too_large":
      return failure(`${target.display} is too large to edit (${before.size} bytes; the limit is ${MAX_EDIT_BYTES})`);
  }
  const { oldText, newText } = matchLineEndings(before.text, parsed.value.old_string, parsed.value.new_string);
  const count = occurrences(before.text, oldText);
  if (count === 0) return failure(`old_string not found in ${target.display}: it must match the file exactly, whitespace and indentation included; read the file again and copy the text`);
  if (count > 1 && !replaceAll) {
    return failure(`old_string found ${count} times in ${target.display}: include more surrounding lines to make it unique, or set replace_all to replace every occurrence`);
  }
  const after = replaceAll ? before.text.split(oldText).join(newText) : replaceFirst(before.text, oldText, newText);
  if (ctx.signal.aborted) return failure("cancelled");
  try {
    await writeFileAtomic(target.real, after, before.mode);
  } catch (error) {
    return failure(`cannot write ${target.display}: ${reason(error)}`);
  }
  const replaced = replaceAll ? `${count} occurrence${count === 1 ? "" : "s"}` : "1 occurrence";
  return { output: `edited ${target.display}: replaced ${replaced}`, isError: false, files: [fileChange(target.display, before.text, after)] };
}

/** Non-overlapping occurrences of `needle` in `text`. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/** `text` with its first `oldText` replaced literally (no `$` patterns, unlike String.replace). */
function replaceFirst(text: string, oldText: string, newText: string): string {
  const at = text.indexOf(oldText);
  return text.slice(0, at) + newText + text.slice(at + oldText.length);
}

/**
 * In a CRLF file, the model's LF-only strings are matched and written with CRLF: a new line the
 * model adds (even after a one-line old_string) ends as the file's lines do. LF text the file holds
 * verbatim (a file of mixed endings) is replaced as it is.
 */
function matchLineEndings(text: string, oldText: string, newText: string): { oldText: string; newText: string } {
  if (!text.includes("\r\n") || oldText.includes("\r")) return { oldText, newText };
  if (oldText.includes("\n") && text.includes(oldText)) return { oldText, newText };
  const crlf = (s: string): string => s.replace(/\r?\n/g, "\r\n");
  return { oldText: crlf(oldText), newText: crlf(newText) };
}
