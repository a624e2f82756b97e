/** `read`: a text file's lines, numbered, by range, bounded. */
import { constants, createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { z } from "zod";

import { field, failure, parseArgs } from "./args.js";
import { confine, workspaceRoot } from "./confine.js";
import { looksBinary, reason } from "./files.js";
import { CLIP_SCAN_MARGIN } from "../../../redact/clip.js";
import { LineSplitter, type LineHead } from "./line-splitter.js";
import type { BuiltinTool, ToolOutcome, ToolRunContext } from "./types.js";

/** Lines returned when the call gives no `limit`. */
export const DEFAULT_READ_LINES = 2000;
/** Characters of one line shown; the rest is cut with a note. */
export const MAX_LINE_CHARS = 2000;
/** Bytes of numbered text one call returns at most. */
export const MAX_READ_BYTES = 256 * 1024;
/** Bytes read from the file at a time. */
const READ_CHUNK_BYTES = 256 * 1024;

const schema = z.object({
  path: z.string().min(1),
  offset: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).optional(),
});

const parameters = {
  type: "object",
  properties: {
    path: { type: "string", description: "The file to read, relative to the workspace." },
    offset: { type: "integer", minimum: 1, description: "The first line to read (1-based). Default 1." },
    limit: { type: "integer", minimum: 1, description: `How many lines to read. Default ${DEFAULT_READ_LINES}.` },
  },
  required: ["path"],
  additionalProperties: false,
};

export const readTool: BuiltinTool = {
  name: "read",
  description:
    `Reads a text file in the workspace. Returns its lines prefixed with their line numbers and a tab (the prefix is not part of the file: never copy it into an edit). ` +
    `Reads up to ${DEFAULT_READ_LINES} lines from the start unless offset/limit say otherwise; lines longer than ${MAX_LINE_CHARS} characters are cut. ` +
    `When more lines follow, the output ends with a note giving the offset to continue from. Paths outside the workspace are refused.`,
  parameters,
  kind: "read",
  title: (args) => `Read ${field(args, "path") ?? "file"}`,
  run: runRead,
};

async function runRead(args: unknown, ctx: ToolRunContext): Promise<ToolOutcome> {
  const parsed = parseArgs("read", schema, args);
  if ("error" in parsed) return parsed.error;
  const { path, offset = 1, limit = DEFAULT_READ_LINES } = parsed.value;
  const root = await workspaceRoot(ctx.workspace);
  if (typeof root !== "string") return failure(root.refused);
  const target = await confine(root, ctx.workspace, path);
  if ("refused" in target) return failure(target.refused);
  if (!target.exists) return failure(`file not found: ${target.display}`);
  const check = await checkReadable(target.real, target.display);
  if (check !== undefined) return check;
  try {
    return await numberedLines(target.real, target.display, offset, limit, ctx.signal, ctx.redact);
  } catch (error) {
    if (ctx.signal.aborted) return failure("cancelled");
    return failure(`cannot read ${target.display}: ${reason(error)}`);
  }
}

/** An error outcome for a directory or a binary file; undefined for a readable text file. */
async function checkReadable(path: string, display: string): Promise<ToolOutcome | undefined> {
  let handle;
  try {
    // Non-blocking: a FIFO would otherwise hold the open until a writer comes.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (info.isDirectory()) return failure(`${display} is a directory; use list to see its entries`);
    if (!info.isFile()) return failure(`${display} is not a regular file`);
    const head = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (looksBinary(head.subarray(0, bytesRead))) return failure(`${display} is a binary file (${info.size} bytes); read only shows text files`);
    return undefined;
  } catch (error) {
    return failure(`cannot read ${display}: ${reason(error)}`);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Bytes of a line's head kept: enough for `chars` characters (a UTF-16 unit is at most 3 bytes of
 * UTF-8) and a character cut at the end, which then lies past them.
 */
function headBytesFor(chars: number): number {
  return chars * 3 + 4;
}

async function numberedLines(path: string, display: string, offset: number, limit: number, signal: AbortSignal, redact?: (text: string) => string): Promise<ToolOutcome> {
  // The redacted copy is cut from a longer head: a secret crossing the cut must be whole to be found.
  const keepChars = redact === undefined ? MAX_LINE_CHARS + 1 : MAX_LINE_CHARS + CLIP_SCAN_MARGIN;
  const keepBytes = headBytesFor(keepChars);
  const splitter = new LineSplitter(offset === 1 ? keepBytes : 0);
  const stream = createReadStream(path, { signal, highWaterMark: READ_CHUNK_BYTES });
  const out: string[] = [];
  // The lines for events, made only once a line is cut: each cut one redacted before its cut.
  let published: string[] | undefined;
  let bytes = 0;
  let lineNumber = 0;
  let stoppedAt: number | undefined;
  let byteCapped = false;
  /** Lines shown up to the limit: what is left to learn is whether another line follows. */
  let full = false;
  const take = (line: LineHead): boolean => {
    lineNumber += 1;
    // The next line's head is kept only when it is one to show.
    splitter.keepBytes = lineNumber + 1 >= offset && out.length + (lineNumber >= offset ? 1 : 0) < limit ? keepBytes : 0;
    if (lineNumber < offset) return false;
    if (out.length >= limit) {
      stoppedAt = lineNumber;
      return true;
    }
    const cut = !line.whole || line.head.length > MAX_LINE_CHARS;
    const note = `… [line cut at ${MAX_LINE_CHARS} characters: the line is ${line.bytes} bytes]`;
    const prefix = `${String(lineNumber).padStart(6)}\t`;
    const numbered = `${prefix}${cut ? `${line.head.slice(0, MAX_LINE_CHARS)}${note}` : line.head}`;
    bytes += Buffer.byteLength(numbered) + 1;
    if (bytes > MAX_READ_BYTES && out.length > 0) {
      stoppedAt = lineNumber;
      byteCapped = true;
      return true;
    }
    if (cut && redact !== undefined) published ??= [...out];
    published?.push(cut && redact !== undefined ? `${prefix}${redactedHead(line, redact)}${note}` : numbered);
    out.push(numbered);
    full = out.length >= limit;
    return false;
  };
  let stopped = false;
  try {
    for await (const chunk of stream) {
      if (splitter.push(chunk as Buffer, take)) {
        stopped = true;
        break;
      }
      // A line after the last one shown has begun: it need not be read to its end.
      if (full && splitter.started) {
        stoppedAt = lineNumber + 1;
        stopped = true;
        break;
      }
    }
    if (!stopped) splitter.end(take);
  } finally {
    stream.destroy();
  }
  if (lineNumber === 0) return { output: `${display} is empty`, isError: false };
  if (out.length === 0) return failure(`offset ${offset} is past the end of ${display} (${lineNumber} lines)`);
  const tail = stoppedAt === undefined ? "" : `\n[${byteCapped ? `output cap of ${MAX_READ_BYTES} bytes reached` : `limit of ${limit} lines reached`}: showing lines ${offset}-${stoppedAt - 1}; more lines follow, read again with offset=${stoppedAt} to continue]`;
  const outcome: ToolOutcome = { output: `${out.join("\n")}${tail}`, isError: false };
  if (published !== undefined) outcome.published = `${published.join("\n")}${tail}`;
  return outcome;
}

/**
 * A cut line's shown part, redacted. Only its head was read: when the head ends before the line
 * does and redaction shrank it, a secret cut at the head's end could move into the shown part,
 * so the head's last half-margin (longer than any secret) is not shown then.
 */
function redactedHead(line: LineHead, redact: (text: string) => string): string {
  const redacted = redact(line.head);
  const safe = line.whole || redacted.length >= MAX_LINE_CHARS + CLIP_SCAN_MARGIN / 2 ? redacted : redacted.slice(0, Math.max(0, redacted.length - CLIP_SCAN_MARGIN / 2));
  return safe.slice(0, MAX_LINE_CHARS);
}
