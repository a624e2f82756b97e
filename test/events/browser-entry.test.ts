/**
 * `agent-adaptor/events` is browser-safe. Types: its declarations compile with no Node types
 * (`types: []`, `lib: ["dom", "es2022"]`, no skipLibCheck), and a consumer under the same libs compiles against
 * the emitted .d.ts. Runtime: its module graph, zod included, imports no Node module. A control
 * case shows the type check fails once a Node type leaks in.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const entry = join(root, "src/events/public.ts");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
// Inside the checkout (ignored by git) so the emitted .d.ts resolve zod from node_modules.
mkdirSync(join(root, ".tmp"), { recursive: true });
const work = mkdtempSync(join(root, ".tmp/events-entry-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const STRICT = { strict: true, skipLibCheck: false, types: [], isolatedModules: true, verbatimModuleSyntax: true, noEmitOnError: true };

function compile(name: string, compilerOptions: Record<string, unknown>, files: string[]): { ok: boolean; output: string } {
  const config = join(work, `${name}.tsconfig.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions, files }));
  const run = spawnSync(process.execPath, [tsc, "-p", config], { cwd: work, encoding: "utf8" });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

/** Emit the entry's declarations with no Node types; `extra` files join the program. */
function emitDeclarations(name: string, extra: string[] = []) {
  return compile(
    name,
    { ...STRICT, target: "es2022", lib: ["dom", "es2022"], module: "nodenext", moduleResolution: "nodenext", declaration: true, emitDeclarationOnly: true, rootDir: join(root, "src"), outDir: join(work, name) },
    [entry, ...extra],
  );
}

const CONSUMER = `
import {
  EVENTS_SCHEMA_VERSION, agentEventJsonSchema, agentEventSchema, foldRunEvents, initialRunState,
  isAgentEvent, isEventType, isTerminalEvent, reduceRunEvent,
  type AgentEvent, type RunState,
} from "./out/events/public.js";

const source = new EventSource("/runs/1/events");
let state: RunState = initialRunState();
source.onmessage = (message: MessageEvent<string>) => {
  const data: unknown = JSON.parse(message.data);
  const parsed = agentEventSchema.safeParse(data);
  if (!parsed.success || !isAgentEvent(data)) return;
  const event: AgentEvent = parsed.data;
  state = reduceRunEvent(state, event);
  if (isEventType(event, "run.started") && event.schemaVersion !== EVENTS_SCHEMA_VERSION) source.close();
  if (isEventType(event, "tool.completed")) document.title = String(event.exitCode ?? "");
  if (isTerminalEvent(event)) source.close();
};
const schema: { [key: string]: unknown } = agentEventJsonSchema();
const folded: RunState = foldRunEvents([]);
export { schema, folded };
`;

describe("the agent-adaptor/events entry", () => {
  it("compiles without Node types, and a DOM-only consumer compiles against its declarations", () => {
    const emitted = emitDeclarations("out");
    expect(emitted.output).toBe("");
    expect(emitted.ok).toBe(true);
    writeFileSync(join(work, "consumer.ts"), CONSUMER);
    const consumer = compile("consumer", { ...STRICT, noEmit: true, target: "es2022", lib: ["dom", "es2022"], module: "esnext", moduleResolution: "bundler" }, [join(work, "consumer.ts")]);
    expect(consumer.output).toBe("");
    expect(consumer.ok).toBe(true);
  }, 300_000);

  it("fails that check once a Node type leaks into its graph (the control case)", () => {
    const leak = join(work, "leak.ts");
    writeFileSync(leak, `export type Bytes = Buffer;\nexport const cwd = (): string => process.cwd();\n`);
    // skipLibCheck here only to keep the control fast: the leak is in a source file.
    const emitted = compile("leak", { ...STRICT, skipLibCheck: true, target: "es2022", lib: ["dom", "es2022"], module: "nodenext", moduleResolution: "nodenext", noEmit: true }, [entry, leak]);
    expect(emitted.ok).toBe(false);
    expect(emitted.output).toMatch(/Cannot find name 'Buffer'/);
    expect(emitted.output).toMatch(/Cannot find name 'process'/);
  }, 300_000);

  it("imports no Node module anywhere in its runtime module graph, its dependencies included", () => {
    const graph = runtimeGraph(entry);
    expect(graph.files.some((f) => f.includes("node_modules/zod/"))).toBe(true);
    expect(graph.nodeImports).toEqual([]);
  });
});

const NODE_BUILTINS = new Set(builtinModules);

/** Every module reachable by value imports from `start` (type-only imports are erased at build). */
function runtimeGraph(start: string): { files: string[]; nodeImports: string[] } {
  const seen = new Set<string>();
  const nodeImports: string[] = [];
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of valueImports(file)) {
      if (specifier.startsWith("node:") || NODE_BUILTINS.has(specifier.split("/")[0]!)) {
        nodeImports.push(`${file.slice(root.length + 1)} imports ${specifier}`);
        continue;
      }
      queue.push(resolveImport(file, specifier));
    }
  }
  return { files: [...seen], nodeImports };
}

function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, false);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true && true : node.isTypeOnly;
      const allTypeNamed =
        ts.isImportDeclaration(node) &&
        node.importClause !== undefined &&
        node.importClause.name === undefined &&
        node.importClause.namedBindings !== undefined &&
        ts.isNamedImports(node.importClause.namedBindings) &&
        node.importClause.namedBindings.elements.length > 0 &&
        node.importClause.namedBindings.elements.every((e) => e.isTypeOnly);
      if (!typeOnly && !allTypeNamed) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) specifiers.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

function resolveImport(from: string, specifier: string): string {
  if (specifier.startsWith(".")) {
    const target = resolve(dirname(from), specifier);
    // Sources import their siblings as .js; the file on disk is the .ts.
    return from.endsWith(".ts") && target.endsWith(".js") ? `${target.slice(0, -3)}.ts` : target;
  }
  // A package: its "import" export, as a bundler or Node picks it.
  const [scopeOrName, maybeName] = specifier.split("/");
  const name = scopeOrName!.startsWith("@") ? `${scopeOrName}/${maybeName}` : scopeOrName!;
  const subpath = `.${specifier.slice(name.length)}`;
  const packageDir = join(root, "node_modules", name);
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { exports?: Record<string, unknown>; module?: string; main?: string };
  const target = pickImport(manifest.exports?.[subpath]) ?? (subpath === "." ? (manifest.module ?? manifest.main) : undefined);
  if (target === undefined) throw new Error(`cannot resolve ${specifier} from ${from}`);
  return join(packageDir, target);
}

function pickImport(exported: unknown): string | undefined {
  if (typeof exported === "string") return exported;
  if (typeof exported !== "object" || exported === null) return undefined;
  const conditions = exported as Record<string, unknown>;
  for (const condition of ["browser", "import", "default"]) {
    const picked = pickImport(conditions[condition]);
    if (picked !== undefined) return picked;
  }
  return undefined;
}
