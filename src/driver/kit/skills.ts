/**
 * Skills written into a provider's skill location inside a run-owned directory: each skill
 * becomes `<targetDir>/<name>/SKILL.md` plus its other files. A `path` skill is copied (links are
 * followed only to files and directories inside the skill; one pointing out is refused, so a
 * skill cannot smuggle in the host's files); an inline skill's `files` are written. Directories
 * are 0700 and files 0600 (0700 when the source file is executable, so a skill's scripts still
 * run). `SKILL.md` gets the name and, when it states none, the description (see skillMarkdown).
 */
import { constants } from "node:fs";
import { mkdir, open, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative } from "node:path";
import type { SkillRef } from "../vocabulary.js";
import { ConfigError } from "../../errors/index.js";
import { SKILL_FILE, skillFilePath, skillMarkdown, skillNameProblem } from "./skill-markdown.js";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const EXECUTABLE_MODE = 0o700;

/**
 * Writes every skill under `targetDir` (created 0700 when missing) and returns the skill
 * directories written, in order. A skill directory already there is replaced. Throws
 * `ConfigError` naming the skill when one cannot be written as given (its `SKILL.md` missing, a
 * link out of it, an unsafe name or file path); what was written by then is removed.
 */
export async function materializeSkills(skills: readonly SkillRef[], targetDir: string): Promise<string[]> {
  await mkdir(targetDir, { recursive: true, mode: DIR_MODE });
  const written: string[] = [];
  try {
    for (const skill of skills) {
      const problem = skillNameProblem(skill.name);
      if (problem) throw new ConfigError(`skill "${skill.name}": invalid name: ${problem}`);
      const dir = join(targetDir, skill.name);
      await rm(dir, { recursive: true, force: true });
      written.push(dir);
      if ("files" in skill) await writeInlineSkill(skill, dir);
      else await copySkill(skill, dir);
    }
  } catch (error) {
    await removeSkills(written);
    throw error;
  }
  return written;
}

/** Removes skill directories written by {@link materializeSkills}. Missing ones are fine. */
export async function removeSkills(dirs: readonly string[]): Promise<void> {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

async function writeInlineSkill(skill: Extract<SkillRef, { files: unknown }>, dir: string): Promise<void> {
  await mkdir(dir, { mode: DIR_MODE });
  let hasSkillFile = false;
  for (const [relPath, content] of Object.entries(skill.files)) {
    const checked = skillFilePath(relPath);
    if ("problem" in checked) throw new ConfigError(`skill "${skill.name}": file "${relPath}": ${checked.problem}`);
    if (typeof content !== "string") throw new ConfigError(`skill "${skill.name}": file "${relPath}": expected its content as a string`);
    const isSkillFile = checked.path === SKILL_FILE;
    hasSkillFile ||= isSkillFile;
    const target = join(dir, checked.path);
    const text = isSkillFile ? skillMarkdown(skill.name, skill.description, content) : content;
    try {
      await mkdir(dirname(target), { recursive: true, mode: DIR_MODE });
      await writeFile(target, text, { mode: FILE_MODE, flag: "wx" });
    } catch (error) {
      // Two paths naming one file, or a file where another path needs a directory.
      throw new ConfigError(`skill "${skill.name}": file "${relPath}" cannot be written (${codeOf(error)})`);
    }
  }
  if (!hasSkillFile) throw new ConfigError(`skill "${skill.name}": files must hold "${SKILL_FILE}"`);
}

async function copySkill(skill: Extract<SkillRef, { path: string }>, dir: string): Promise<void> {
  const fail = (what: string) => new ConfigError(`skill "${skill.name}": ${what}`);
  if (!isAbsolute(skill.path)) throw fail("path must be absolute");
  const root = await realpath(skill.path).catch((error: unknown) => {
    throw fail(`its directory cannot be read (${codeOf(error)})`);
  });
  if (!(await stat(root)).isDirectory()) throw fail("path must be a directory");
  const skillFile = await realpath(join(root, SKILL_FILE)).catch(() => undefined);
  if (skillFile === undefined || !within(root, skillFile) || !(await stat(skillFile)).isFile()) {
    throw fail(`its directory holds no ${SKILL_FILE} file`);
  }
  await copyDirectory({ fail, root, ancestors: new Set() }, root, dir);
  const text = await readFile(skillFile, "utf8");
  await writeFile(join(dir, SKILL_FILE), skillMarkdown(skill.name, skill.description, text), { mode: FILE_MODE });
}

interface CopyScope {
  fail(what: string): ConfigError;
  /** The skill directory, real path. */
  root: string;
  /** Real paths of the directories being copied above this one (a link back to one is a loop). */
  ancestors: Set<string>;
}

/** Copies `source` (a real path inside the skill) to `target`. */
async function copyDirectory(scope: CopyScope, source: string, target: string): Promise<void> {
  if (scope.ancestors.has(source)) throw scope.fail(`"${relative(scope.root, source) || "."}" links back to a directory above it`);
  scope.ancestors.add(source);
  await mkdir(target, { mode: DIR_MODE });
  for (const entry of await readdir(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isSymbolicLink()) await copyLinked(scope, from, to);
    else if (entry.isDirectory()) await copyDirectory(scope, from, to);
    else if (entry.isFile()) await copyFile(from, to);
    // Sockets, pipes and devices are not skill content.
  }
  scope.ancestors.delete(source);
}

/** A link inside the skill: its target is copied when it stays inside the skill. */
async function copyLinked(scope: CopyScope, from: string, to: string): Promise<void> {
  const shown = relative(scope.root, from);
  const real = await realpath(from).catch(() => undefined);
  if (real === undefined) throw scope.fail(`"${shown}" is a broken link`);
  if (!within(scope.root, real)) throw scope.fail(`"${shown}" links outside the skill directory`);
  const target = await stat(real);
  if (target.isDirectory()) await copyDirectory(scope, real, to);
  else if (target.isFile()) await copyFile(real, to);
}

/** Copies one regular file without following a link swapped in meanwhile; keeps it executable if it was. */
async function copyFile(from: string, to: string): Promise<void> {
  const handle = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const info = await handle.stat();
    if (!info.isFile()) return;
    const mode = (info.mode & 0o111) !== 0 ? EXECUTABLE_MODE : FILE_MODE;
    await writeFile(to, await handle.readFile(), { mode, flag: "wx" });
  } finally {
    await handle.close();
  }
}

/** Whether `path` is `root` or below it (both real, absolute paths). */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : "unreadable";
}
