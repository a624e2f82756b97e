#!/usr/bin/env node
/**
 * Runs one benchmark of bench/ by name: `npm run bench -- events [--n 500000]`.
 * Benchmarks are TypeScript; they are compiled with tsconfig.bench.json into dist-bench/ and run
 * with `--expose-gc` so each repetition can start from a collected heap.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const available = readdirSync(join(root, "bench"))
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
  .map((file) => file.slice(0, -3))
  .sort();

const [name, ...args] = process.argv.slice(2);
if (!name || name.startsWith("-") || !available.includes(name)) {
  console.error(`usage: npm run bench -- <name> [options]\nbenchmarks: ${available.join(", ") || "(none)"}`);
  process.exit(2);
}

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.bench.json")], { cwd: root, encoding: "utf8" });
if (compiled.status !== 0) {
  // Type errors elsewhere do not stop the emit; errors in the benchmarks themselves do.
  const lines = `${compiled.stdout}${compiled.stderr}`.split("\n").filter((line) => /^\S.*error TS\d+/.test(line));
  const own = lines.filter((line) => line.startsWith("bench/"));
  if (own.length > 0 || lines.length === 0) {
    console.error(`${compiled.stdout}${compiled.stderr}`.trim());
    console.error("bench: compiling the benchmarks failed");
    process.exit(1);
  }
  console.error(`bench: ignoring ${lines.length} type error(s) outside bench/ (the emit is unaffected)`);
}

const script = join(root, "dist-bench", "bench", `${name}.js`);
if (!existsSync(script)) {
  console.error(`bench: ${script} was not emitted`);
  process.exit(1);
}
const run = spawnSync(process.execPath, ["--expose-gc", script, ...args], { cwd: root, stdio: "inherit" });
process.exit(run.status ?? 1);
