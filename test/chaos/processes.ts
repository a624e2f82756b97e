/** Process checks for the chaos suite, by scanning /proc (Linux). */
import { readdirSync, readFileSync } from "node:fs";

/** Running (non-zombie) processes whose process group is one of `pgids`. */
export function groupMembers(pgids: readonly number[]): number[] {
  if (pgids.length === 0) return [];
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3);
    if (fields[0] !== "Z" && fields[0] !== "X" && pgids.includes(Number(fields[2]))) found.push(Number(entry));
  }
  return found;
}
