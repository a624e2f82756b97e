/**
 * A file's text as it is in the run's workspace, read for a `file_change` diff when the provider
 * reports only the new content. Bounded and confined: a file above the size cap, a binary file,
 * a symbolic link, or a path whose real directory is outside the workspace is not read.
 */
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, isAbsolute } from "node:path";

/** Largest file read for a diff, in bytes; larger files get no diff. */
export const DEFAULT_SNAPSHOT_MAX_BYTES = 1024 * 1024;

/** What a read found: no file, its UTF-8 text, or a file the driver will not read (see the module doc). */
export type WorkspaceFileText = { state: "absent" } | { state: "text"; text: string } | { state: "unavailable" };

const ABSENT: WorkspaceFileText = { state: "absent" };
const UNAVAILABLE: WorkspaceFileText = { state: "unavailable" };

/** Whether `path` is `root` or below it (both real, absolute paths). */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Reads `path` (absolute, or relative to `workspace`) as UTF-8 text. The directory holding it
 * must resolve, symbolic links followed, to the workspace or below; the file itself is opened
 * without following a link. Never throws.
 */
export async function readWorkspaceText(workspace: string, path: string, maxBytes: number = DEFAULT_SNAPSHOT_MAX_BYTES): Promise<WorkspaceFileText> {
  let root: string;
  let directory: string;
  try {
    root = await realpath(workspace);
  } catch {
    return UNAVAILABLE;
  }
  const target = resolve(workspace, path);
  try {
    directory = await realpath(dirname(target));
  } catch (error) {
    // A missing directory inside the workspace means a missing file; elsewhere nothing is said.
    return (error as NodeJS.ErrnoException).code === "ENOENT" && within(resolve(workspace), target) ? ABSENT : UNAVAILABLE;
  }
  if (!within(root, directory)) return UNAVAILABLE;
  return readRegularFile(join(directory, basename(target)), maxBytes);
}

async function readRegularFile(path: string, maxBytes: number): Promise<WorkspaceFileText> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? ABSENT : UNAVAILABLE;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > maxBytes) return UNAVAILABLE;
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes || bytes.includes(0)) return UNAVAILABLE;
    return { state: "text", text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return UNAVAILABLE;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
