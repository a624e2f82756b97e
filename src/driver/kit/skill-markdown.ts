/**
 * The skill format every provider reads (the Agent Skills format of Claude Code, Codex and the
 * ACP agents): a directory named after the skill holding `SKILL.md`, whose YAML frontmatter
 * carries `name` (1-64 lowercase letters, digits and single hyphens, equal to the directory
 * name) and `description` (1-1024 characters). Pure functions: no file system.
 */
import { posix } from "node:path";

/** A skill name: lowercase letters and digits in hyphen-separated words, at most 64 characters. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SKILL_NAME_MAX_LENGTH = 64;
export const SKILL_DESCRIPTION_MAX_LENGTH = 1024;
/** The file every skill holds at its root. */
export const SKILL_FILE = "SKILL.md";

/** Why `name` is not a skill name, or undefined when it is one. */
export function skillNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > SKILL_NAME_MAX_LENGTH) return `expected 1-${SKILL_NAME_MAX_LENGTH} characters`;
  if (!SKILL_NAME_PATTERN.test(name)) return "expected lowercase letters, digits and single hyphens (not at either end)";
  return undefined;
}

/** Why `description` cannot describe a skill, or undefined when it can. */
export function skillDescriptionProblem(description: string): string | undefined {
  if (description.trim().length === 0) return "expected a non-empty description";
  if (description.length > SKILL_DESCRIPTION_MAX_LENGTH) return `expected at most ${SKILL_DESCRIPTION_MAX_LENGTH} characters`;
  return undefined;
}

/**
 * An inline skill file's path, normalized (`./a//b.md` → `a/b.md`), or why it cannot be one:
 * it must be relative and stay inside the skill directory.
 */
export function skillFilePath(relPath: string): { path: string } | { problem: string } {
  if (relPath.length === 0 || relPath.includes("\0")) return { problem: "expected a non-empty relative path" };
  if (relPath.includes("\\")) return { problem: "expected '/' as the path separator" };
  if (posix.isAbsolute(relPath)) return { problem: "expected a relative path" };
  const path = posix.normalize(relPath).replace(/\/+$/, "");
  if (path === "" || path === "." || path === ".." || path.startsWith("../")) return { problem: "expected a path inside the skill directory" };
  return { path };
}

interface Frontmatter {
  /** Lines between the opening and closing `---`. */
  lines: string[];
  /** The text after the closing line. */
  body: string;
}

const OPENING = /^---[ \t]*$/;
const CLOSING = /^(---|\.\.\.)[ \t]*$/;

/** The YAML frontmatter block at the start of `text`, if there is one. */
function frontmatterOf(text: string): Frontmatter | undefined {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (!OPENING.test(lines[0] ?? "")) return undefined;
  const end = lines.findIndex((line, index) => index > 0 && CLOSING.test(line));
  if (end < 0) return undefined;
  return { lines: lines.slice(1, end), body: lines.slice(end + 1).join("\n") };
}

/** The index of a top-level `key:` line in frontmatter lines, or -1. */
function keyLine(lines: readonly string[], key: string): number {
  const pattern = new RegExp(`^${key}[ \\t]*:`);
  return lines.findIndex((line) => pattern.test(line));
}

/** Whether the line continues the value above it (indented, or blank inside a block). */
function continues(line: string): boolean {
  return /^[ \t]/.test(line);
}

/** Whether `SKILL.md` text already states a description in its frontmatter. */
export function hasFrontmatterDescription(text: string): boolean {
  const frontmatter = frontmatterOf(text);
  if (!frontmatter) return false;
  const at = keyLine(frontmatter.lines, "description");
  if (at < 0) return false;
  const inline = frontmatter.lines[at]!.replace(/^description[ \t]*:/, "").trim();
  const folded = inline === "" || /^[|>][+-]?\d*$/.test(inline);
  return folded ? frontmatter.lines.slice(at + 1).some((line) => continues(line) && line.trim() !== "") : !/^(""|''|~|null)$/.test(inline);
}

/**
 * `SKILL.md` as the provider receives it: the frontmatter names the skill `name` (the name the
 * host gave wins over the file's, so the name matches the directory), and carries `description`
 * when the file states none. Text without frontmatter gains one.
 */
export function skillMarkdown(name: string, description: string | undefined, text: string): string {
  const describe = (lines: string[]) => {
    if (description !== undefined && !hasFrontmatterDescription(text)) {
      const at = keyLine(lines, "description");
      if (at >= 0) lines.splice(at, 1 + trailingContinuations(lines, at));
      lines.push(`description: ${JSON.stringify(description)}`);
    }
  };
  const frontmatter = frontmatterOf(text);
  if (!frontmatter) {
    const lines = [`name: ${name}`];
    describe(lines);
    return `---\n${lines.join("\n")}\n---\n\n${text.replace(/^\uFEFF/, "")}`;
  }
  const lines = [...frontmatter.lines];
  const at = keyLine(lines, "name");
  if (at >= 0) lines.splice(at, 1 + trailingContinuations(lines, at), `name: ${name}`);
  else lines.unshift(`name: ${name}`);
  describe(lines);
  return `---\n${lines.join("\n")}\n---\n${frontmatter.body}`;
}

/** How many lines after `at` continue its value. */
function trailingContinuations(lines: readonly string[], at: number): number {
  let count = 0;
  while (at + 1 + count < lines.length && continues(lines[at + 1 + count]!)) count += 1;
  return count;
}
