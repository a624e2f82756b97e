/**
 * "No function over ~80 lines without a reason written beside it" (issue #13 item 3), enforced:
 * every function, method, accessor, constructor and arrow in `src/**` longer than 80 lines must
 * carry the marker comment `// long-function: <reason>` directly above it (above the statement
 * or property that declares it, for an arrow or a function expression). Generated protocol types
 * are exempt, and so is the callback of a `describe(...)` call, which is a list of test cases
 * rather than one function. See docs/architecture.md.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SOURCE = join(ROOT, "src");
const MAX_LINES = 80;
const MARKER = /\/\/\s*long-function:\s*\S/;
/** Generated from the Codex app-server schema, not written by hand. */
const GENERATED = "src/drivers/codex/protocol/";

interface LongFunction {
  /** `path:line name (N lines)` */
  id: string;
  lines: number;
  marked: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The function's name, or the name of what it is assigned to, or `<anonymous>`. */
function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(file);
  }
  return "<anonymous>";
}

/** The node and the declarations around it whose leading comments may carry the marker. */
function* markerHosts(node: ts.Node): Generator<ts.Node> {
  let current: ts.Node | undefined = node;
  while (current && !ts.isSourceFile(current)) {
    yield current;
    if (ts.isStatement(current) || ts.isClassElement(current) || ts.isPropertyAssignment(current)) return;
    current = current.parent;
  }
}

/** A `describe("…", () => { … })` body: the registration of test cases, each its own function. */
function isSuiteBody(node: ts.Node): boolean {
  const call = node.parent;
  if (!ts.isCallExpression(call) || !call.arguments.includes(node as ts.Expression)) return false;
  const callee = call.expression;
  const name = ts.isPropertyAccessExpression(callee) ? callee.expression : callee;
  return ts.isIdentifier(name) && name.text === "describe";
}

function hasMarker(node: ts.Node, text: string): boolean {
  for (const host of markerHosts(node)) {
    const comments = ts.getLeadingCommentRanges(text, host.getFullStart()) ?? [];
    if (comments.some((range) => MARKER.test(text.slice(range.pos, range.end)))) return true;
  }
  return false;
}

function longFunctions(path: string, text = readFileSync(path, "utf8")): LongFunction[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (isFunctionLike(node) && node.body && !isSuiteBody(node)) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES) {
        const where = relative(ROOT, path).split("\\").join("/");
        const name = nameOf(node, file);
        found.push({ id: `${where}:${first + 1} ${name} (${lines} lines)`, lines, marked: hasMarker(node, text) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("function length", () => {
  const all = sourceFiles(SOURCE)
    .filter((path) => !relative(ROOT, path).split("\\").join("/").startsWith(GENERATED))
    .flatMap((path) => longFunctions(path));

  it(`finds no function over ${MAX_LINES} lines without a "// long-function: <reason>" beside it`, () => {
    const unexplained = all.filter((f) => !f.marked).map((f) => f.id);
    expect(unexplained).toEqual([]);
  });

  it("measures a function by its lines and honours the marker above it", () => {
    const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const source = (lines: number, marker = "") => `${marker}export function f(): void {\n${body(lines)}\n}\n`;
    const at = join(SOURCE, "synthetic.ts");
    expect(longFunctions(at, source(MAX_LINES))).toEqual([]);
    expect(longFunctions(at, source(MAX_LINES + 1))).toMatchObject([{ lines: MAX_LINES + 1, marked: false }]);
    expect(longFunctions(at, source(MAX_LINES + 1, "// long-function: a table of cases\n"))).toMatchObject([{ marked: true }]);
    const arrow = `// long-function: one switch\nconst g = () => {\n${body(MAX_LINES + 5)}\n};\n`;
    expect(longFunctions(at, arrow)).toMatchObject([{ id: "src/synthetic.ts:2 g (85 lines)", marked: true }]);
  });

  it("parses the whole source tree (so an empty finding is not a wrong path)", () => {
    expect(sourceFiles(SOURCE).length).toBeGreaterThan(50);
  });
});
