/**
 * File I/O of the editing tools: whole-file text reads with a size bound and binary detection,
 * and atomic-ish writes (a temporary file in the same directory renamed over the target, so a
 * reader never sees half a file and a crash leaves the old one).
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Largest file `edit` (and `write`'s diff) reads whole, in bytes. */
export const MAX_EDIT_BYTES = 4 * 1024 * 1024;

/** What reading a whole file found. */
export type FileText = { state: "absent" } | { state: "directory" } | { state: "special" } | { state: "text"; text: string; mode: number } | { state: "binary" } | { state: "too_large"; size: number };

/** Reads `path` (already confined) as UTF-8 text, up to `maxBytes`. */
export async function readFileText(path: string, maxBytes: number = MAX_EDIT_BYTES): Promise<FileText> {
  let info;
  try {
    info = await stat(path);
  } catch {
    return { state: "absent" };
  }
  if (info.isDirectory()) return { state: "directory" };
  // A FIFO, socket or device: opening a FIFO blocks until a writer comes (a worker thread held for good).
  if (!info.isFile()) return { state: "special" };
  if (info.size > maxBytes) return { state: "too_large", size: info.size };
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const bytes = await handle.readFile();
    if (looksBinary(bytes)) return { state: "binary" };
    return { state: "text", text: bytes.toString("utf8"), mode: info.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

/** A NUL byte in the first 8 KiB marks a binary file (what git and ripgrep check). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

/**
 * Writes `content` to `path` through a temporary sibling renamed over it; missing parent
 * directories are created. `mode` keeps an existing file's permissions.
 */
export async function writeFileAtomic(path: string, content: string, mode?: number): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true });
  const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temporary, "wx", mode ?? 0o666);
  try {
    await handle.writeFile(content, "utf8");
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** A file system error as a short reason for the model (the code, never a machine path). */
export function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "it is a directory";
    case "ENOTDIR":
    case "EEXIST":
      return "a component of the path is not a directory";
    case "ENOSPC":
      return "no space left on the device";
    case "EROFS":
      return "the file system is read-only";
    default:
      return code ?? "unexpected error";
  }
}
