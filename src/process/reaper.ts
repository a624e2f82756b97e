/**
 * The group reaper: kills the host's provider process groups when the host dies in a way no
 * handler sees (SIGKILL, the OOM killer). While groups are live, a tiny `/bin/sh` loop runs in
 * its own session, reading `+pgid` / `-pgid` lines from a pipe only the host holds. When the host
 * dies the kernel closes that pipe; the loop reads end of file, SIGKILLs every group still
 * recorded and exits. With no group left the host closes the pipe itself and the reaper exits
 * having killed nothing.
 *
 * A shell rather than Node: it costs about a megabyte and starts in a millisecond. Not used on
 * Windows, which has no process groups.
 */
import { spawn, type ChildProcess } from "node:child_process";

/** Shell parameter expansion: `$line` without its first character (spelled out: `${` would interpolate). */
const LINE_TAIL = "${line#?}";

/** Only digits are ever recorded, so word splitting of `$groups` is safe. */
const REAPER_SCRIPT = String.raw`
trap '' INT HUP
groups=""
while IFS= read -r line; do
  g=${LINE_TAIL}
  case $g in ''|*[!0-9]*) continue ;; esac
  case $line in
    +*) groups="$groups $g" ;;
    -*) rest=""; for x in $groups; do [ "$x" = "$g" ] || rest="$rest $x"; done; groups=$rest ;;
  esac
done
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
`;

let reaper: ChildProcess | undefined;

function start(): ChildProcess | undefined {
  if (process.platform === "win32") return undefined;
  try {
    const child = spawn("/bin/sh", ["-c", REAPER_SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"], cwd: "/", env: {} });
    child.on("error", () => {});
    child.stdin!.on("error", () => {});
    // Neither the reaper nor its pipe may keep the host alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    return child;
  } catch {
    return undefined;
  }
}

/** Records a live group with the reaper, starting the reaper if needed. */
export function reaperWatch(pgid: number): void {
  reaper ??= start();
  reaper?.stdin?.write(`+${pgid}\n`);
}

/** Forgets a group that is gone. */
export function reaperForget(pgid: number): void {
  reaper?.stdin?.write(`-${pgid}\n`);
}

/** Ends the reaper once no group is live; it exits without killing anything. */
export function reaperRelease(): void {
  reaper?.stdin?.end();
  reaper = undefined;
}

/** The reaper's pid while one runs (for tests). */
export function reaperPid(): number | undefined {
  return reaper?.pid;
}
