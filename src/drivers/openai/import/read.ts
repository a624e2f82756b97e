/**
 * Reads a recorded session's JSONL file: refused when it cannot be read or is larger than the
 * limit, each line parsed on its own (a line that is not a JSON object is skipped and counted).
 * Errors name the file by its basename only, never its path or a line of its content.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { basename } from "node:path";
import { InputError } from "../../../input/errors.js";

/** The lines of a transcript that parsed as JSON objects, and how many did not. */
export interface TranscriptLines {
  entries: Record<string, unknown>[];
  /** Lines that were not JSON objects. */
  skipped: number;
}

export async function readTranscript(file: string, maxBytes: number): Promise<TranscriptLines> {
  const name = basename(file);
  let text: string;
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new InputError("input_materialization_failed", `transcript ${name}: not a regular file`);
      if (stat.size > maxBytes) throw new InputError("input_too_large", `transcript ${name}: ${stat.size} bytes, over the import limit of ${maxBytes}`, { limit: maxBytes });
      // Read through the handle that was checked: a file swapped after the check is not read.
      const bytes = await handle.readFile();
      if (bytes.length > maxBytes) throw new InputError("input_too_large", `transcript ${name}: grew over the import limit of ${maxBytes} bytes`, { limit: maxBytes });
      text = bytes.toString("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (InputError.isInputError(error)) throw error;
    // The filesystem's message holds the path: only its code is kept.
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new InputError("input_materialization_failed", `transcript ${name}: could not be read (${code})`);
  }
  return parseLines(text);
}

/** Each non-empty line as a JSON object; anything else is counted as skipped. */
export function parseLines(text: string): TranscriptLines {
  const entries: Record<string, unknown>[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    if (typeof value === "object" && value !== null && !Array.isArray(value)) entries.push(value as Record<string, unknown>);
    else skipped++;
  }
  return { entries, skipped };
}
