/**
 * Helpers for the thread store tests: the PostgreSQL lane (a real server named by
 * AGENT_ADAPTOR_TEST_PG_URL), unique schemas, and store sources transpiled for child processes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The PostgreSQL lane: the server URL, or why the PostgreSQL tests cannot run. */
export const PG_URL = process.env.AGENT_ADAPTOR_TEST_PG_URL || undefined;
export const PG_MISSING =
  "AGENT_ADAPTOR_TEST_PG_URL is not set: start a server with `eval \"$(bash scripts/ci-postgres.sh)\"` to run the PostgreSQL store tests";
/** In CI the PostgreSQL lane is required: a missing server fails instead of skipping. */
export const PG_REQUIRED = Boolean(process.env.CI);

let schemas = 0;
/** A schema name no other test (or concurrent test process) uses. */
export function uniqueSchema(prefix = "aa_test"): string {
  schemas += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${schemas}`;
}

/** Drops test schemas through a short-lived pool. */
export async function dropSchemas(url: string, names: Iterable<string>): Promise<void> {
  const list = [...names];
  if (list.length === 0) return;
  const pg = (await import("pg")).default;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    for (const name of list) await pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  } finally {
    await pool.end();
  }
}

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await tsFiles(path)));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/**
 * Transpiles (TypeScript's transpileModule, no type check) the store sources and the child
 * scripts under test/thread/fixtures into a fresh directory inside node_modules/.cache, keeping
 * the repository layout so relative imports hold and `better-sqlite3`/`pg` resolve from the
 * project's node_modules. Returns the transpiled worker and the directory to remove afterwards.
 * `worker` names another fixture to run: then exactly the sources it imports, transitively, are
 * transpiled (a child driving a whole agent).
 */
export async function buildWorker(options: { worker?: string } = {}): Promise<{ worker: string; dir: string }> {
  const ts = (await import("typescript")).default;
  const base = join(ROOT, "node_modules", ".cache", "agent-adaptor-thread-tests");
  await mkdir(base, { recursive: true });
  const dir = await mkdtemp(join(base, "build-"));
  await writeFile(join(dir, "package.json"), '{"type":"module"}');
  const files = options.worker
    ? await importClosure(`test/thread/fixtures/${options.worker.replace(/\.js$/, ".ts")}`)
    : [...(await tsFiles("src/thread")), ...(await tsFiles("src/errors")), ...(await tsFiles("test/thread/fixtures"))];
  for (const file of files) {
    const source = await readFile(join(ROOT, file), "utf8");
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    const out = join(dir, file.replace(/\.ts$/, ".js"));
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, outputText);
  }
  return { worker: join(dir, "test", "thread", "fixtures", options.worker ?? "worker.js"), dir };
}

/** `entry` and every repository file it imports through relative specifiers, transitively. */
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

export interface Child {
  proc: ChildProcess;
  /** Lines printed on stdout so far. */
  lines: string[];
  /** Resolves with the first stdout line matching `test` (rejects if the child exits first). */
  line(test: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** Starts the transpiled worker with a JSON config, as another user when `as` is given (needs root). */
export function startWorker(worker: string, config: Record<string, unknown>, as?: { uid: number; gid: number }): Child {
  const proc = spawn(process.execPath, [worker, JSON.stringify(config)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], ...as });
  const lines: string[] = [];
  let buffered = "";
  let err = "";
  const waiters = new Set<() => void>();
  let done = false;
  proc.stdout!.setEncoding("utf8");
  proc.stdout!.on("data", (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
    for (const wake of waiters) wake();
  });
  proc.stderr!.setEncoding("utf8");
  proc.stderr!.on("data", (chunk: string) => {
    err = (err + chunk).slice(-20_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // "close", not "exit": every line the child wrote has been read by then.
    proc.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
      done = true;
      resolve({ code, signal });
      for (const wake of waiters) wake();
    });
  });
  const line = (test: (line: string) => boolean, timeoutMs = 30_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no matching line from the worker within ${timeoutMs} ms\n${err}`)), timeoutMs);
      const finish = (error?: Error, value?: string): void => {
        clearTimeout(timer);
        waiters.delete(check);
        if (error) reject(error);
        else resolve(value!);
      };
      const check = (): void => {
        const found = lines.find(test);
        if (found !== undefined) finish(undefined, found);
        else if (done) finish(new Error(`the worker exited before the line\n${err}`));
      };
      waiters.add(check);
      check();
    });
  return { proc, lines, line, exited, stderr: () => err };
}
