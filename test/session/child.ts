/**
 * Session fixtures transpiled for a child process (TypeScript's transpileModule, no type check):
 * the fixture and every repository file it imports, transitively, into a directory inside
 * node_modules/.cache so that packages (better-sqlite3, pg) resolve from the project.
 */
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ROOT } from "../thread/helpers.js";

export async function buildSessionFixture(name: string): Promise<{ worker: string; dir: string }> {
  const ts = (await import("typescript")).default;
  const base = join(ROOT, "node_modules", ".cache", "agent-adaptor-session-tests");
  await mkdir(base, { recursive: true });
  const dir = await mkdtemp(join(base, "build-"));
  await writeFile(join(dir, "package.json"), '{"type":"module"}');
  for (const file of await importClosure(`test/session/fixtures/${name}.ts`)) {
    const source = await readFile(join(ROOT, file), "utf8");
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    const out = join(dir, file.replace(/\.ts$/, ".js"));
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, outputText);
  }
  return { worker: join(dir, "test", "session", "fixtures", `${name}.js`), dir };
}

async function importClosure(entry: string): Promise<string[]> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    const source = await readFile(join(ROOT, file), "utf8");
    for (const match of source.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)\.js"/g)) {
      const target = join(dirname(file), `${match[1]}.ts`);
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return [...seen];
}
