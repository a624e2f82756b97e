/**
 * Glob patterns compiled to regular expressions over `/`-separated relative paths: `*` and `?`
 * within one segment, `**` for any number of segments, `[abc]` / `[!abc]` classes and `{a,b}`
 * alternatives. As in a shell, a wildcard never matches a leading `.` of a segment; name it
 * (`.github/**`, `**\/.env`) to match hidden files.
 */

/** Alternatives one pattern may expand to, at most (a bound on `{a,b}{c,d}...` growth). */
const MAX_EXPANSIONS = 256;

/** A compiled pattern: `test(relativePath)`. */
export interface GlobMatcher {
  test(path: string): boolean;
}

/** `dot`: wildcards match a leading `.` too (gitignore's rule rather than the shell's). */
export interface GlobOptions {
  dot?: boolean;
}

/** Compiles `pattern`; throws a message for the model when it is malformed. */
export function compileGlob(pattern: string, options: GlobOptions = {}): GlobMatcher {
  const expanded = expandBraces(pattern.replace(/^\.\//, ""));
  const sources = expanded.map((p) => patternSource(p, options.dot === true));
  const regex = new RegExp(sources.length === 1 ? sources[0]! : sources.map((s) => `(?:${s})`).join("|"));
  return { test: (path) => regex.test(path) };
}

/** `{a,b}` alternatives expanded into whole patterns (nested braces too). */
export function expandBraces(pattern: string): string[] {
  const open = findUnescaped(pattern, "{", 0);
  if (open === -1) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === "\\") i += 1;
    else if (c === "{") depth += 1;
    else if (c === "}" && --depth === 0) {
      const head = pattern.slice(0, open);
      const tail = pattern.slice(i + 1);
      const bounds = [open, ...commas, i];
      const out: string[] = [];
      for (let k = 0; k + 1 < bounds.length; k += 1) {
        for (const rest of expandBraces(head + pattern.slice(bounds[k]! + 1, bounds[k + 1]) + tail)) {
          out.push(rest);
          if (out.length > MAX_EXPANSIONS) throw new Error(`the pattern expands to more than ${MAX_EXPANSIONS} alternatives`);
        }
      }
      return out;
    } else if (c === "," && depth === 1) commas.push(i);
  }
  throw new Error("the pattern has an unclosed {");
}

function findUnescaped(text: string, char: string, from: number): number {
  for (let i = from; i < text.length; i += 1) {
    if (text[i] === "\\") i += 1;
    else if (text[i] === char) return i;
  }
  return -1;
}

/** One brace-free pattern as an anchored regular expression source. */
function patternSource(pattern: string, dot: boolean): string {
  const guard = dot ? "" : "(?!\\.)";
  const segments = pattern.split("/").filter((segment) => segment !== "");
  let source = "^";
  let needSlash = false;
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === "**") {
      if (last) source += needSlash ? `(?:/${guard}[^/]+)*` : `(?:${guard}[^/]+(?:/${guard}[^/]+)*)?`;
      else source += `${needSlash ? "/" : ""}(?:${guard}[^/]+/)*`;
      needSlash = false;
      return;
    }
    source += (needSlash ? "/" : "") + segmentSource(segment, dot);
    needSlash = true;
  });
  return `${source}$`;
}

/** One path segment: wildcards stay inside it and never match its leading dot. */
function segmentSource(segment: string, dot: boolean): string {
  let source = dot || segment.startsWith(".") ? "" : "(?!\\.)";
  for (let i = 0; i < segment.length; i += 1) {
    const c = segment[i]!;
    if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else if (c === "\\" && i + 1 < segment.length) source += escapeRegex(segment[++i]!);
    else if (c === "[") {
      const close = segment.indexOf("]", i + 2);
      if (close === -1) {
        source += "\\[";
        continue;
      }
      let body = segment.slice(i + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      source += `[${negated ? "^/" : ""}${body.replace(/\\/g, "\\\\").replace(/]/g, "\\]")}]`;
      i = close;
    } else source += escapeRegex(c);
  }
  return source;
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
