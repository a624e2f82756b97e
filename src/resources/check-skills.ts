/**
 * What `createAgent` checks of its skills, so a skill a provider would drop or a driver could not
 * write fails at construction, naming the skill: a name in the Agent Skills format (it becomes a
 * directory name), a description (given, or stated by SKILL.md's frontmatter), and content a
 * driver can copy: a `path` skill is an absolute directory holding SKILL.md whose links stay
 * inside it, an inline skill's `files` hold SKILL.md under relative paths that stay inside it.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { ConfigError } from "../errors/index.js";
import type { SkillRef } from "../driver/vocabulary.js";
import {
  hasFrontmatterDescription,
  SKILL_FILE,
  skillDescriptionProblem,
  skillFilePath,
  skillNameProblem,
} from "../driver/kit/skill-markdown.js";

/** Most entries a `path` skill may hold: a skill is a few files, not a tree pointed at by mistake. */
export const MAX_SKILL_ENTRIES = 10_000;

/** Largest SKILL.md read to find its description. */
const MAX_SKILL_FILE_BYTES = 1024 * 1024;

/** Throws `ConfigError` naming the first skill a driver could not deliver as given. */
export function checkSkills(skills: readonly SkillRef[], maxEntries = MAX_SKILL_ENTRIES): void {
  for (const skill of skills) {
    const fail = (what: string) => new ConfigError(`skill ${JSON.stringify(skill.name.slice(0, 80))}: ${what}`);
    const nameProblem = skillNameProblem(skill.name);
    if (nameProblem) throw fail(`invalid name: ${nameProblem}`);
    if (skill.description !== undefined) {
      const problem = skillDescriptionProblem(skill.description);
      if (problem) throw fail(`invalid description: ${problem}`);
    }
    const skillFile = "files" in skill ? checkInlineFiles(skill.files, fail) : checkSkillDirectory(skill.path, fail, maxEntries);
    if (skill.description === undefined && !hasFrontmatterDescription(skillFile)) {
      throw fail(`${SKILL_FILE} states no description in its frontmatter: give the skill a description`);
    }
  }
}

type Fail = (what: string) => ConfigError;

/** The inline files checked; returns SKILL.md's text. */
function checkInlineFiles(files: Record<string, string>, fail: Fail): string {
  const paths = new Map<string, string>();
  for (const [relPath, content] of Object.entries(files)) {
    const checked = skillFilePath(relPath);
    if ("problem" in checked) throw fail(`file ${JSON.stringify(relPath)}: ${checked.problem}`);
    if (paths.has(checked.path)) throw fail(`files ${JSON.stringify(paths.get(checked.path))} and ${JSON.stringify(relPath)} name one file`);
    paths.set(checked.path, relPath);
    if (typeof content !== "string") throw fail(`file ${JSON.stringify(relPath)}: expected its content as a string`);
  }
  for (const [path, relPath] of paths) {
    // "a" and "a/b" cannot both be files.
    for (let cut = path.indexOf("/"); cut > 0; cut = path.indexOf("/", cut + 1)) {
      const parent = paths.get(path.slice(0, cut));
      if (parent !== undefined) throw fail(`file ${JSON.stringify(parent)} is also a directory of ${JSON.stringify(relPath)}`);
    }
  }
  const skillFile = paths.get(SKILL_FILE);
  if (skillFile === undefined) throw fail(`files must hold "${SKILL_FILE}"`);
  return files[skillFile]!;
}

/** The directory checked; returns SKILL.md's text. Paths are never put in a message. */
function checkSkillDirectory(path: string, fail: Fail, maxEntries: number): string {
  if (!isAbsolute(path)) throw fail("path must be absolute");
  let root: string;
  try {
    root = realpathSync(path);
  } catch (error) {
    throw fail(`its directory cannot be read (${codeOf(error)})`);
  }
  if (!statSync(root).isDirectory()) throw fail("path must be a directory");
  const skillFile = insideReal(root, join(root, SKILL_FILE));
  if (skillFile === undefined || !statSync(skillFile).isFile()) throw fail(`its directory holds no ${SKILL_FILE} file`);
  walk({ root, fail, ancestors: new Set(), entries: 0, maxEntries }, root);
  return readBounded(skillFile, fail);
}

interface Walk {
  root: string;
  fail: Fail;
  ancestors: Set<string>;
  entries: number;
  maxEntries: number;
}

/** Every link below `dir` (a real path) resolves inside the skill, without a loop; the tree is bounded. */
function walk(scope: Walk, dir: string): void {
  if (scope.ancestors.has(dir)) throw scope.fail(`${JSON.stringify(relative(scope.root, dir) || ".")} links back to a directory above it`);
  scope.ancestors.add(dir);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    scope.entries += 1;
    if (scope.entries > scope.maxEntries) throw scope.fail(`its directory holds more than ${scope.maxEntries} entries`);
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(scope, path);
    if (!entry.isSymbolicLink()) continue;
    const shown = JSON.stringify(relative(scope.root, path));
    const real = insideReal(scope.root, path, () => scope.fail(`${shown} is a broken link`));
    if (real === undefined) throw scope.fail(`${shown} links outside the skill directory`);
    if (statSync(real).isDirectory()) walk(scope, real);
  }
  scope.ancestors.delete(dir);
}

/** The real path of `path` when it lies inside `root`; `onMissing` decides what a broken link is. */
function insideReal(root: string, path: string, onMissing?: () => ConfigError): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    if (onMissing) throw onMissing();
    return undefined;
  }
  const rel = relative(root, real);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel)) ? real : undefined;
}

function readBounded(path: string, fail: Fail): string {
  const fd = openSync(path, constants.O_RDONLY);
  try {
    if (fstatSync(fd).size > MAX_SKILL_FILE_BYTES) throw fail(`${SKILL_FILE} is larger than ${MAX_SKILL_FILE_BYTES} bytes`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : "unreadable";
}
