/**
 * The part of .gitignore the JS search honours, so it skips what ripgrep skips: comments,
 * `!` negation, a trailing `/` for directories only, patterns with a `/` anchored to the file's
 * directory and the others matching a name at any depth, `*` matching dot files too; the last
 * matching rule wins, deeper files after shallower ones. The same rules read rg's `--glob`s.
 */
import { compileGlob, type GlobMatcher } from "./glob-match.js";

interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  matcher: GlobMatcher;
}

/** The rules of one ignore file; `base` is its directory relative to the root ("" or "dir/"). */
export interface IgnoreFile {
  base: string;
  rules: IgnoreRule[];
}

/** Parses ignore-file text (bad lines are skipped, as git does). */
export function parseIgnoreFile(text: string, base: string): IgnoreFile {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const rule = parseRule(raw);
    if (rule !== undefined) rules.push(rule);
  }
  return { base, rules };
}

/** One gitignore-style pattern as a rule; undefined for a blank line, a comment or a malformed pattern. */
export function parseRule(raw: string): IgnoreRule | undefined {
  let line = raw.replace(/(?<!\\)\s+$/, "");
  if (line === "" || line.startsWith("#")) return undefined;
  const negate = line.startsWith("!");
  if (negate) line = line.slice(1);
  else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
  const dirOnly = line.endsWith("/");
  if (dirOnly) line = line.slice(0, -1);
  if (line === "") return undefined;
  const anchored = line.includes("/");
  const pattern = anchored ? line.replace(/^\/+/, "") : `**/${line}`;
  try {
    return { negate, dirOnly, matcher: compileGlob(pattern, { dot: true }) };
  } catch {
    return undefined;
  }
}

/** Whether `rel` (relative to the root, `/`-separated) is ignored by `files` (shallowest first). */
export function isIgnored(files: readonly IgnoreFile[], rel: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const file of files) {
    if (file.base !== "" && !rel.startsWith(file.base)) continue;
    const local = rel.slice(file.base.length);
    for (const rule of file.rules) {
      if (rule.dirOnly && !isDirectory) continue;
      if (rule.matcher.test(local)) ignored = !rule.negate;
    }
  }
  return ignored;
}
