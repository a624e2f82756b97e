/**
 * Which project directories hold a session's transcript: only a file with something in it counts
 * (CodeBuddy's session store leaves an empty one behind when it saves a session whose transcript
 * was removed), so resuming such a session is refused as not found before any process starts.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { sessionSlugs } from "../../../src/drivers/stream-json/sessions.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function configDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "stream-json-sessions-"));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, "projects", path, ".."), { recursive: true });
    await writeFile(join(dir, "projects", path), content);
  }
  return dir;
}

const line = `${JSON.stringify({ type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] })}\n`;

it("names each project holding a transcript of the session with something in it", async () => {
  const dir = await configDir({ "-work-a/s1.jsonl": line, "-work-b/s1.jsonl": line, "-work-a/s2.jsonl": line });
  expect((await sessionSlugs(dir, "s1")).sort()).toEqual(["-work-a", "-work-b"]);
});

it("does not count an empty transcript: it holds no conversation", async () => {
  const dir = await configDir({ "-work-a/s1.jsonl": "", "-work-b/s1.jsonl": line });
  expect(await sessionSlugs(dir, "s1")).toEqual(["-work-b"]);
  const emptyOnly = await configDir({ "-work-a/s1.jsonl": "" });
  expect(await sessionSlugs(emptyOnly, "s1")).toEqual([]);
});

it("finds nothing without a projects directory", async () => {
  expect(await sessionSlugs(await configDir({}), "s1")).toEqual([]);
});
