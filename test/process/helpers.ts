import { readFileSync } from "node:fs";

/**
 * Whether `pid` is a running process. Signal 0 also reaches zombies, and an orphan's zombie may
 * never be reaped when init does not reap (containers), so on Linux a zombie counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 1)[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Resolves with the first line `stream` prints (a child announcing itself). */
export function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const onData = (chunk: Buffer | string): void => {
      buffered += chunk.toString();
      const nl = buffered.indexOf("\n");
      if (nl >= 0) {
        stream.off("data", onData);
        resolve(buffered.slice(0, nl));
      }
    };
    stream.on("data", onData);
    stream.once("error", reject);
    stream.once("end", () => reject(new Error("stream ended before a line")));
  });
}

/**
 * A child that ignores SIGTERM, starts a grandchild that ignores SIGTERM too, prints
 * `{"child":pid,"grandchild":pid}` once both trap it, and then idles.
 */
export const STUBBORN_PARENT = String.raw`
const { spawn } = require("node:child_process");
process.on("SIGTERM", () => {});
const grandchild = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000);"], { stdio: ["ignore", "pipe", "inherit"] });
grandchild.stdout.once("data", () => {
  process.stdout.write(JSON.stringify({ child: process.pid, grandchild: grandchild.pid }) + "\n");
});
setInterval(() => {}, 1000);
`;

/**
 * A JSON-RPC echo server over NDJSON stdio, written without the library so the test checks the
 * wire format rather than the library against itself. It omits "jsonrpc" when started with
 * argument "bare". Methods: echo, fail, notifyMe, callback (asks the host "host/add"), hang,
 * exit, garbage.
 */
export const ECHO_SERVER = String.raw`
const bare = process.argv.includes("bare");
const header = bare ? {} : { jsonrpc: "2.0" };
const send = (m) => process.stdout.write(JSON.stringify({ ...header, ...m }) + "\n");
let nextId = 1000;
const waiting = new Map();
let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line.trim() !== "") handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => process.exit(0));
function handle(m) {
  if (m.method === undefined) {
    const resolve = waiting.get(m.id);
    waiting.delete(m.id);
    if (resolve) resolve(m);
    return;
  }
  if (m.id === undefined) {
    if (m.method === "ping") send({ method: "pong", params: m.params });
    return;
  }
  switch (m.method) {
    case "echo":
      return send({ id: m.id, result: { params: m.params ?? null, sawJsonrpc: m.jsonrpc ?? null } });
    case "fail":
      return send({ id: m.id, error: { code: -32000, message: "it failed", data: { why: "asked to" } } });
    case "notifyMe":
      send({ method: "note", params: { n: 1 } });
      send({ method: "note", params: { n: 2 } });
      return send({ id: m.id, result: "notified" });
    case "callback": {
      const id = nextId++;
      waiting.set(id, (answer) => send({ id: m.id, result: { fromHost: answer.result ?? null, hostError: answer.error ?? null } }));
      return send({ id, method: m.params.method, params: m.params.params });
    }
    case "hang":
      return;
    case "exit":
      return process.exit(3);
    case "garbage":
      process.stdout.write("this is not json\n");
      return send({ id: m.id, result: "after garbage" });
    default:
      return send({ id: m.id, error: { code: -32601, message: "Method not found" } });
  }
}
`;

/**
 * Transpiles the library sources a standalone Node script needs into `dir` (same layout, ESM), so
 * behaviour that only shows when the host process itself exits can be tested in a real process.
 */
export async function transpileSources(dir: string, files: string[]): Promise<void> {
  const ts = (await import("typescript")).default;
  const { mkdir, readFile, writeFile } = await import("node:fs/promises");
  const { dirname, join } = await import("node:path");
  const root = new URL("../../", import.meta.url);
  await writeFile(join(dir, "package.json"), '{"type":"module"}');
  for (const file of files) {
    const source = await readFile(new URL(file, root), "utf8");
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    const out = join(dir, file.replace(/\.ts$/, ".js"));
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, outputText);
  }
}
