/**
 * Pure checks behind `scripts/api-report.mjs`: comparing a generated API report with the
 * committed one, and rejecting names the design rules out of the public API (DESIGN §3: no
 * `Inspector`, `profileState`, `syncProfile`, `selectSkills`, and no `timeout` call option —
 * callers pass `AbortSignal.timeout()`). Types: api-report-lib.d.mts.
 */
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";

/** The entry points whose reports are committed under etc/. */
export const REPORTS = Object.freeze([
  Object.freeze({ entry: "agent-adaptor", config: "api-extractor.json", report: "agent-adaptor.api.md" }),
  Object.freeze({ entry: "agent-adaptor/testing", config: "api-extractor.testing.json", report: "agent-adaptor-testing.api.md" }),
  ...["codex", "claude", "codebuddy", "acp", "pi", "openai"].map((name) =>
    Object.freeze({
      entry: `agent-adaptor/drivers/${name}`,
      config: `api-extractor.${name}.json`,
      report: `agent-adaptor-drivers-${name}.api.md`,
    }),
  ),
  Object.freeze({ entry: "agent-adaptor/driver-kit", config: "api-extractor.driver-kit.json", report: "agent-adaptor-driver-kit.api.md" }),
  Object.freeze({ entry: "agent-adaptor/events", config: "api-extractor.events.json", report: "agent-adaptor-events.api.md" }),
  Object.freeze({ entry: "agent-adaptor/bridges/sse", config: "api-extractor.sse.json", report: "agent-adaptor-bridges-sse.api.md" }),
  Object.freeze({ entry: "agent-adaptor/bridges/ai-sdk", config: "api-extractor.ai-sdk.json", report: "agent-adaptor-bridges-ai-sdk.api.md" }),
  Object.freeze({ entry: "agent-adaptor/bridges/ag-ui", config: "api-extractor.ag-ui.json", report: "agent-adaptor-bridges-ag-ui.api.md" }),
  Object.freeze({ entry: "agent-adaptor/bridges/otel", config: "api-extractor.otel.json", report: "agent-adaptor-bridges-otel.api.md" }),
  Object.freeze({ entry: "agent-adaptor/bridges/a2a", config: "api-extractor.a2a.json", report: "agent-adaptor-bridges-a2a.api.md" }),
  Object.freeze({ entry: "agent-adaptor/hosttools/slash", config: "api-extractor.slash.json", report: "agent-adaptor-hosttools-slash.api.md" }),
  Object.freeze({ entry: "agent-adaptor/server", config: "api-extractor.server.json", report: "agent-adaptor-server.api.md" }),
]);

/** Identifiers that must never appear in a report. */
export const FORBIDDEN_NAMES = Object.freeze(["Inspector", "profileState", "syncProfile", "selectSkills"]);

/** Interfaces (or type aliases) holding call options; none may have a `timeout` member. */
export const CALL_OPTION_TYPES = Object.freeze(["CallOptions", "CallDefaults"]);

export const API_CHANGED_MESSAGE = "the public API changed: run npm run api:update and commit etc/";

/** The same equivalence api-extractor applies: runs of whitespace (and line endings) are one space. */
export function reportsEquivalent(expected, actual) {
  return expected.replace(/\s+/g, " ") === actual.replace(/\s+/g, " ");
}

/**
 * Compare a committed report with a freshly generated one. `diff` lists the first differing
 * lines (`-` committed, `+` generated), at most `maxLines` of them.
 */
export function compareReports(expected, actual, maxLines = 20) {
  if (reportsEquivalent(expected, actual)) return { changed: false, diff: [] };
  return { changed: true, diff: lineDiff(expected, actual, maxLines) };
}

/**
 * Compare every report of `reports` between two folders: `expectedDir` (committed, etc/) and
 * `actualDir` (just generated). A missing file on either side counts as a change.
 */
export function compareReportFolders(expectedDir, actualDir, reports = REPORTS.map((r) => r.report)) {
  return reports.map((report) => {
    const expectedPath = join(expectedDir, report);
    const actualPath = join(actualDir, report);
    if (!existsSync(expectedPath)) return { report, changed: true, diff: [`(no committed report ${report})`] };
    if (!existsSync(actualPath)) return { report, changed: true, diff: [`(no generated report ${report})`] };
    return { report, ...compareReports(readFileSync(expectedPath, "utf8"), readFileSync(actualPath, "utf8")) };
  });
}

/**
 * Names the design forbids, found in one report's text. Each finding names the rule and the
 * 1-based line it was found on.
 */
export function findForbiddenNames(reportText) {
  const text = reportText.replace(/\r\n?/g, "\n");
  const findings = [];
  const lines = text.split("\n");
  for (const name of FORBIDDEN_NAMES) {
    const pattern = new RegExp(`(?<![\\w$])${name}(?![\\w$])`);
    lines.forEach((line, i) => {
      if (pattern.test(line)) findings.push({ name, line: i + 1, text: line.trim() });
    });
  }
  const code = blankComments(text);
  // One finding per offending member, named after the type that declares it.
  const timeouts = new Map();
  for (const typeName of CALL_OPTION_TYPES) {
    for (const member of membersOf(code, typeName, new Set())) {
      if (member.name !== "timeout") continue;
      const name = member.owner === typeName ? `${typeName}.timeout` : `${typeName}.timeout (inherited from ${member.owner})`;
      if (!timeouts.has(member.line) || member.owner === typeName) timeouts.set(member.line, { name, line: member.line, text: member.text });
    }
  }
  findings.push(...timeouts.values());
  return findings.sort((a, b) => a.line - b.line);
}

// ---------------------------------------------------------------------------------------------
// A small reader of the declarations in an api-extractor report. Reports hold normalized
// `.d.ts` text (one declaration per block, four-space indent, doc comments stripped), so a
// brace-matching scan is enough; it does not need to be a TypeScript parser.

/**
 * Direct members of an interface or object-literal type alias named `typeName`, including the
 * members of the interfaces/aliases it extends or intersects, when those are declared in the
 * same report. Nested object types (e.g. `policy?: { ... }`) are not descended into.
 */
function membersOf(text, typeName, seen) {
  if (seen.has(typeName)) return [];
  seen.add(typeName);
  const declaration = findDeclaration(text, typeName);
  if (!declaration) return [];
  const members = [];
  for (const body of declaration.bodies) {
    for (const member of topLevelMembers(text, body.start, body.end)) members.push({ ...member, owner: typeName });
  }
  for (const base of declaration.references) members.push(...membersOf(text, base, seen));
  return members;
}

/** Locate `interface X ... { }` or `type X = ...;`: the top-level `{}` bodies and referenced names. */
function findDeclaration(text, typeName) {
  const head = new RegExp(`^(?:export\\s+)?(?:declare\\s+)?(interface|type)\\s+${typeName}(?![\\w$])`, "m");
  const match = head.exec(text);
  if (!match) return undefined;
  let i = match.index + match[0].length;
  const bodies = [];
  let referenceText = "";
  if (match[1] === "interface") {
    let open = i;
    for (let angle = 0; open < text.length && !(text[open] === "{" && angle === 0); open++) {
      if (text[open] === "<") angle++;
      else if (text[open] === ">") angle--;
    }
    if (open >= text.length) return undefined;
    referenceText = text.slice(i, open).replace(/<[^>]*>/g, "").replace(/^\s*extends\s+/, "");
    const close = matchingBrace(text, open);
    bodies.push({ start: open + 1, end: close });
  } else {
    // Type alias: scan to the terminating `;` at depth 0, collecting `{}` bodies at depth 0.
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === "{" && depth === 0) {
        const close = matchingBrace(text, i);
        bodies.push({ start: i + 1, end: close });
        i = close;
        continue;
      }
      if (c === "(" || c === "[" || c === "<" || c === "{") depth++;
      else if (c === ")" || c === "]" || c === ">" || c === "}") depth--;
      else if (c === ";" && depth === 0) break;
      if (depth === 0) referenceText += c;
    }
  }
  const references = [...referenceText.matchAll(/[A-Za-z_$][\w$]*/g)]
    .map((m) => m[0])
    .filter((name) => !["extends", "Partial", "Required", "Readonly", "Pick", "Omit"].includes(name));
  return { bodies, references };
}

/** Replace comments by spaces, keeping every offset and line number. */
function blankComments(text) {
  const blank = (m) => m.replace(/[^\n]/g, " ");
  return text.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/^[ \t]*\/\/.*$/gm, blank);
}

function matchingBrace(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  return text.length;
}

/** Member names declared directly in `text[start, end)` (depth 0 of that body). */
function topLevelMembers(text, start, end) {
  const members = [];
  let depth = 0;
  let atMemberStart = true;
  for (let i = start; i < end; i++) {
    const c = text[i];
    if (c === "{" || c === "(" || c === "[" || c === "<") {
      depth++;
      atMemberStart = false;
    } else if (c === "}" || c === ")" || c === "]" || c === ">") {
      // `=>` is not a closing bracket.
      if (!(c === ">" && text[i - 1] === "=")) depth--;
    } else if (depth === 0 && (c === ";" || c === "," || c === "\n")) {
      atMemberStart = true;
    } else if (depth === 0 && atMemberStart && !/\s/.test(c)) {
      atMemberStart = false;
      const rest = text.slice(i, end);
      const member = /^(?:readonly\s+)?(?:(["'])([^"']*)\1|([A-Za-z_$][\w$]*))\s*\??\s*[:(<]/.exec(rest);
      if (member) {
        const line = text.slice(0, i).split("\n").length;
        const lineEnd = text.indexOf("\n", i);
        members.push({ name: member[2] ?? member[3], line, text: text.slice(i, lineEnd < 0 ? end : Math.min(lineEnd, end)).trim() });
      }
    }
  }
  return members;
}

function lineDiff(expected, actual, maxLines) {
  const a = expected.replace(/\r\n?/g, "\n").split("\n");
  const b = actual.replace(/\r\n?/g, "\n").split("\n");
  // Trim the common prefix and suffix, then diff what is left by longest common subsequence.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const out = [];
  if (midA.length * midB.length > 4_000_000) {
    out.push(`@@ line ${start + 1}`, ...midA.map((l) => `- ${l}`), ...midB.map((l) => `+ ${l}`));
  } else {
    // lcs[i][j] = LCS length of midA[i..] and midB[j..], flattened.
    const w = midB.length + 1;
    const lcs = new Uint32Array((midA.length + 1) * w);
    for (let i = midA.length - 1; i >= 0; i--) {
      for (let j = midB.length - 1; j >= 0; j--) {
        lcs[i * w + j] = midA[i] === midB[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    let inHunk = false;
    while (i < midA.length || j < midB.length) {
      if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
        inHunk = false;
        i++;
        j++;
        continue;
      }
      if (!inHunk) {
        out.push(`@@ line ${start + j + 1}`);
        inHunk = true;
      }
      if (j < midB.length && (i >= midA.length || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j])) out.push(`+ ${midB[j++]}`);
      else out.push(`- ${midA[i++]}`);
    }
  }
  if (out.length > maxLines) return [...out.slice(0, maxLines), `… (${out.length - maxLines} more lines)`];
  return out;
}
