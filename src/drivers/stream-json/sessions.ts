/**
 * Session transcripts on disk. Both CLIs write one `<session id>.jsonl` per conversation under
 * `<config dir>/projects/<workspace slug>/`, and only once a turn starts. The driver reads the
 * listing (never the contents) to prove a standby created no conversation, and to check that a
 * resumed session belongs to the run's workspace.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Every `projects/<slug>/<id>.jsonl` under `configDir`, as `slug/id.jsonl`; empty when there is none. */
export async function listSessionFiles(configDir: string): Promise<Set<string>> {
  const files = new Set<string>();
  const projects = join(configDir, "projects");
  let slugs: string[];
  try {
    slugs = await readdir(projects);
  } catch {
    return files;
  }
  for (const slug of slugs) {
    let entries: string[];
    try {
      entries = await readdir(join(projects, slug));
    } catch {
      continue;
    }
    for (const entry of entries) if (entry.endsWith(".jsonl")) files.add(`${slug}/${entry}`);
  }
  return files;
}

/**
 * The project slugs holding a transcript of `sessionId` with something in it. An empty file holds
 * no conversation: CodeBuddy's session store creates one when it saves a session whose transcript
 * is gone — as a retiring process can, after its turn's result, once the transcript was removed.
 */
export async function sessionSlugs(configDir: string, sessionId: string): Promise<string[]> {
  const wanted = `${sessionId}.jsonl`;
  const slugs = [...(await listSessionFiles(configDir))].filter((f) => f.endsWith(`/${wanted}`)).map((f) => f.slice(0, -wanted.length - 1));
  const sizes = await Promise.all(slugs.map((slug) => stat(join(configDir, "projects", slug, wanted)).then((s) => s.size, () => 0)));
  return slugs.filter((_, i) => sizes[i]! > 0);
}

/** Files in `after` that are not in `before`. */
export function newFiles(before: ReadonlySet<string>, after: ReadonlySet<string>): string[] {
  return [...after].filter((f) => !before.has(f));
}
