/**
 * Run directories a killed host left behind. A host killed by SIGKILL (the OOM killer) runs no
 * cleanup, so its run directories, holding copies of user files, would stay in the temp
 * directory. Each directory's name therefore marks its owner (pid, start time and pid namespace
 * of the host process), and the next start sweeps the directories whose owner is gone.
 *
 * A directory is removed only when all of these hold: its name parses; it is a real directory
 * (not a link) of this user; its owner ran in this pid namespace and that process is gone (or its
 * pid now belongs to a process started at another time); it was last modified at least
 * {@link STALE_MIN_AGE_MS} ago. Anything else is left alone.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { lstat, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "agent-adaptor-inputs-";
/** `<prefix><pid>-<start>-<namespace>-<mkdtemp suffix>` */
const OWNED_NAME = /^agent-adaptor-inputs-(\d+)-(\d+)-(\d+)-[A-Za-z0-9]{6}$/;

/** A directory younger than this is never swept, whatever its marker says. */
export const STALE_MIN_AGE_MS = 10_000;

interface Owner {
  pid: number;
  /** Start time in clock ticks since boot, 0 where unknown. */
  start: string;
  /** Pid namespace inode, 0 where unknown. */
  namespace: string;
}

/** Start time of `pid` (field 22 of /proc/<pid>/stat), "0" where unknown, undefined when it is not running. */
function startTime(pid: number | "self"): string | undefined {
  if (process.platform !== "linux") return "0";
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ...": comm may contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] === "Z" || fields[0] === "X") return undefined;
  return fields[19] ?? "0";
}

function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
  } catch {
    return "0";
  }
}

let self: Owner | undefined;
function selfOwner(): Owner {
  self ??= { pid: process.pid, start: startTime("self") ?? "0", namespace: pidNamespace() };
  return self;
}

/** The `mkdtemp` prefix of this process's run directories, under the OS temp directory. */
export function ownedDirectoryPrefix(): string {
  const { pid, start, namespace } = selfOwner();
  return join(tmpdir(), `${PREFIX}${pid}-${start}-${namespace}-`);
}

function ownerGone(owner: Owner): boolean {
  if (process.platform === "linux") {
    const start = startTime(owner.pid);
    return start === undefined || (owner.start !== "0" && start !== owner.start);
  }
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

function staleOwner(name: string): Owner | undefined {
  const match = OWNED_NAME.exec(name);
  if (match === null) return undefined;
  const owner: Owner = { pid: Number(match[1]), start: match[2]!, namespace: match[3]! };
  const me = selfOwner();
  if (owner.namespace !== me.namespace) return undefined;
  if (owner.pid === me.pid && owner.start === me.start) return undefined;
  return ownerGone(owner) ? owner : undefined;
}

/**
 * Removes the run directories whose owner process is gone. Never throws; resolves with the
 * number of directories removed.
 */
export async function sweepStaleInputDirectories(now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = (await readdir(tmpdir())).filter((name) => name.startsWith(PREFIX));
  } catch {
    return 0;
  }
  const uid = process.getuid?.();
  let removed = 0;
  for (const name of names) {
    if (staleOwner(name) === undefined) continue;
    const path = join(tmpdir(), name);
    try {
      const info = await lstat(path);
      if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
      if (now - info.mtimeMs < STALE_MIN_AGE_MS) continue;
      await rm(path, { recursive: true, force: true, maxRetries: 3 });
      removed++;
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}

let swept: Promise<number> | undefined;

/** Sweeps once per process, in the background; later calls share the first sweep. */
export function sweepStaleInputDirectoriesOnce(): Promise<number> {
  swept ??= sweepStaleInputDirectories();
  return swept;
}

