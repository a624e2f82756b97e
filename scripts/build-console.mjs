#!/usr/bin/env node
/**
 * Bundles the web console (console/) into dist/console/: index.html and content-hashed assets
 * under assets/, everything the page loads, from its own origin (no CDN). Prints each file's size
 * and gzip size. `--out <dir>` builds elsewhere (tests).
 */
import { build } from "esbuild";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outArg = process.argv.indexOf("--out");
const outDir = outArg !== -1 && process.argv[outArg + 1] ? resolve(process.argv[outArg + 1]) : join(root, "dist", "console");
const assetsDir = join(outDir, "assets");

await rm(outDir, { recursive: true, force: true });
await mkdir(assetsDir, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { console: "console/src/main.ts", styles: "console/src/styles.css" },
  outdir: assetsDir,
  entryNames: "[name]-[hash]",
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022", "chrome111", "firefox114", "safari16.4"],
  minify: true,
  sourcemap: false,
  legalComments: "eof",
  metafile: true,
  logLevel: "warning",
  tsconfig: "console/tsconfig.json",
});

const outputs = Object.keys(result.metafile.outputs).map((file) => resolve(root, file));
const script = outputs.find((file) => file.endsWith(".js"));
const style = outputs.find((file) => file.endsWith(".css"));
if (script === undefined || style === undefined) throw new Error("esbuild wrote no script or stylesheet");

const template = await readFile(join(root, "console", "index.html"), "utf8");
const index = template.replace("%SCRIPT%", `assets/${basename(script)}`).replace("%STYLE%", `assets/${basename(style)}`);
await writeFile(join(outDir, "index.html"), index);

let total = 0;
let totalGzip = 0;
for (const file of [join(outDir, "index.html"), ...outputs]) {
  const bytes = await readFile(file);
  const gz = gzipSync(bytes, { level: 9 }).length;
  total += bytes.length;
  totalGzip += gz;
  console.log(`${relative(root, file).padEnd(48)} ${String(bytes.length).padStart(8)} B  ${String(gz).padStart(7)} B gzip`);
}
console.log(`${"console total".padEnd(48)} ${String(total).padStart(8)} B  ${String(totalGzip).padStart(7)} B gzip`);
