/**
 * Process-group signalling. Children are spawned as group leaders so that one signal reaches the
 * whole tree a provider CLI starts (shells, MCP servers, tool commands): killing only the leader
 * would orphan its descendants.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const isWindows = process.platform === "win32";

/**
 * Sends `signal` to the process group led by `pid`. Returns false when nothing received it (the
 * group is gone). On Windows, where there are no groups, the leader is signalled and SIGKILL
 * becomes a `taskkill /T /F` of the tree.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  if (isWindows) {
    if (signal === "SIGKILL") {
      try {
        const killer = spawn("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true });
        killer.on("error", () => {});
      } catch {
        // Fall through to the leader-only kill below.
      }
    }
    return trySignal(pid, signal);
  }
  return trySignal(-pid, signal);
}

function trySignal(target: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch (err) {
    // ESRCH: no such process/group. EPERM: it exists but is not ours any more; leave it alone.
    if ((err as NodeJS.ErrnoException).code === "EPERM") return signal === 0;
    return false;
  }
}

/**
 * Whether any process of the group led by `pid` is still running. Signal 0 also reaches zombies,
 * and orphans whose new parent never reaps them (a container's init) stay zombies for good; on
 * Linux the group's members are therefore looked up in /proc and zombies do not count.
 */
export function groupAlive(pid: number): boolean {
  if (!signalGroup(pid, 0)) return false;
  if (process.platform !== "linux") return true;
  const members = runningGroupMembers(pid);
  return members === undefined || members > 0;
}

/** Non-zombie processes whose process group is `pgid`, or undefined when /proc is unreadable. */
function runningGroupMembers(pgid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  let count = 0;
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3);
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") count++;
  }
  return count;
}
