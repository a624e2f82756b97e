/**
 * Materializing a large per-run input (DESIGN §9): open once, copy into the run-owned directory
 * and SHA-256 in the same pass, against `sha256sum` of the same file in the same run.
 *
 *   npm run bench -- inputs [--size-mib 1024] [--reps 5] [--warmup 1]
 *
 * The file (pseudo-random bytes) is generated once in a temporary directory and removed at the
 * end. Both sides read it from the page cache after the warm-up. Materialize: `materializeInputs`
 * of one `input.fromPath` reference, timed to the resolved result (the copy is complete and
 * hashed); removing the run directory (`dispose`) is timed separately and not part of the ratio.
 * sha256sum: spawning `sha256sum <file>` to its exit. Two more rows put the figure in context:
 * read + hash in process without writing (the hashing floor), and `cp` of the same file into the
 * same temp directory (the copying floor).
 *
 * Repetitions alternate between the sides so drifting machine load hits both alike; medians are
 * reported. The last line printed is one JSON object with the figures; target ratio ≤ 1.3.
 */
import { spawn } from "node:child_process";
import { createHash, randomFillSync } from "node:crypto";
import { mkdtemp, open, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import { input, materializeInputs } from "../src/input/index.js";
import { formatLoad, median } from "./stats.js";

interface Options {
  "size-mib": number;
  reps: number;
  warmup: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { "size-mib": 1024, reps: 5, warmup: 1 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const key = flag.replace(/^--/, "");
    if (!(key in options)) throw new Error(`unknown option ${flag} (use --size-mib, --reps, --warmup)`);
    const value = Number((inline ?? argv[++i] ?? "").replaceAll("_", ""));
    if (!Number.isInteger(value) || value < (key === "warmup" ? 0 : 1)) throw new Error(`${flag} needs a positive integer`);
    options[key as keyof Options] = value;
  }
  return options;
}

const MiB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** Writes `bytes` of pseudo-random data (a random 16 MiB block, varied per block) and returns its SHA-256. */
async function generate(path: string, bytes: number): Promise<string> {
  const block = randomFillSync(Buffer.allocUnsafe(16 * MiB));
  const hash = createHash("sha256");
  const handle = await open(path, "w");
  try {
    for (let written = 0, n = 0; written < bytes; n++) {
      block.writeUInt32LE(n, 0); // No two blocks alike.
      const chunk = block.subarray(0, Math.min(block.length, bytes - written));
      await handle.write(chunk, 0, chunk.length, written);
      hash.update(chunk);
      written += chunk.length;
    }
  } finally {
    await handle.close();
  }
  return hash.digest("hex");
}

async function materializeOnce(path: string, bytes: number, expected: string): Promise<{ ms: number; disposeMs: number }> {
  const ref = input.fromPath("file", path, { mediaType: "application/octet-stream" });
  const start = performance.now();
  const result = await materializeInputs([ref], {
    driverId: "bench",
    capabilities: { image: { modes: [] }, file: { modes: ["native"] }, audio: { modes: [] } },
    limits: { maxInputBytes: bytes, maxTotalBytes: bytes },
    signal: new AbortController().signal,
  });
  const ms = performance.now() - start;
  const resolved = result.inputs[0]!;
  if (resolved.sha256 !== expected || resolved.size !== bytes) throw new Error("the materialized digest or size is wrong");
  const disposeStart = performance.now();
  await result.dispose();
  return { ms, disposeMs: performance.now() - disposeStart };
}

async function sha256sumOnce(path: string, expected: string): Promise<number> {
  const start = performance.now();
  const child = spawn("sha256sum", [path], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  const ms = performance.now() - start;
  if (code !== 0) throw new Error(`sha256sum exited with ${code}`);
  if (out.split(/\s/, 1)[0] !== expected) throw new Error("sha256sum printed a different digest");
  return ms;
}

/** `cp` of the same file into the same temp directory, removed afterwards: what copying alone costs here. */
async function cpOnce(path: string, dir: string): Promise<number> {
  const target = join(dir, "cp-copy.bin");
  const start = performance.now();
  const child = spawn("cp", [path, target], { stdio: ["ignore", "ignore", "inherit"] });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  const ms = performance.now() - start;
  await rm(target, { force: true });
  if (code !== 0) throw new Error(`cp exited with ${code}`);
  return ms;
}

/** Read + hash in process, nothing written: the floor for the materializer on this machine. */
async function hashOnlyOnce(path: string, expected: string): Promise<number> {
  const start = performance.now();
  const handle = await open(path, "r");
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(2 * MiB);
  try {
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
  const ms = performance.now() - start;
  if (hash.digest("hex") !== expected) throw new Error("the in-process digest is wrong");
  return ms;
}



async function main(): Promise<void> {
  const { "size-mib": sizeMib, reps, warmup } = parseArgs(process.argv.slice(2));
  const bytes = sizeMib * MiB;
  const dir = await mkdtemp(join(tmpdir(), "bench-inputs-"));
  try {
    const path = join(dir, "input.bin");
    const expected = await generate(path, bytes);
    const loadBefore = loadavg();
    console.log(
      `inputs: one ${sizeMib} MiB file, ${warmup} warm-up + ${reps} alternating repetitions, node ${process.version}, ` +
        `${availableParallelism()} CPUs, load average ${formatLoad(loadBefore)} (1/5/15 min)`,
    );

    const materialize: number[] = [];
    const dispose: number[] = [];
    const sha256sum: number[] = [];
    const hashOnly: number[] = [];
    const cp: number[] = [];
    for (let rep = 0; rep < warmup + reps; rep++) {
      const measured = rep >= warmup;
      // Alternate which side goes first.
      const sides = [
        async () => {
          gc();
          const sample = await materializeOnce(path, bytes, expected);
          if (measured) {
            materialize.push(sample.ms);
            dispose.push(sample.disposeMs);
          }
        },
        async () => {
          const ms = await sha256sumOnce(path, expected);
          if (measured) sha256sum.push(ms);
        },
        async () => {
          gc();
          const ms = await hashOnlyOnce(path, expected);
          if (measured) hashOnly.push(ms);
        },
        async () => {
          const ms = await cpOnce(path, dir);
          if (measured) cp.push(ms);
        },
      ];
      for (const side of rep % 2 === 0 ? sides : [...sides].reverse()) await side();
    }
    const loadAfter = loadavg();

    const rows: [string, number[]][] = [
      ["materialize (copy + SHA-256, one pass)", materialize],
      ["sha256sum", sha256sum],
      ["in process: read + SHA-256, no copy", hashOnly],
      ["cp (copy only, no hash)", cp],
      ["dispose (remove the run directory)", dispose],
    ];
    const mibs = (ms: number) => (bytes / MiB / ms) * 1000;
    const table = rows.map(([name, ms]) => {
      const med = median(ms);
      return [name, med.toFixed(0), mibs(med).toFixed(0), `${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)}`];
    });
    const header = ["", "median ms", "MiB/s", "range ms"];
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
    const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
    console.log();
    console.log(format(header));
    console.log(widths.map((w) => "─".repeat(w)).join("  "));
    for (const row of table) console.log(format(row));

    const materializeMs = median(materialize);
    const sha256sumMs = median(sha256sum);
    const ratio = materializeMs / sha256sumMs;
    console.log();
    console.log(`ratio materialize ÷ sha256sum = ${ratio.toFixed(3)} (target ≤ 1.3)`);
    console.log(`load average at the end ${formatLoad(loadAfter)} (1/5/15 min)`);
    console.log(
      JSON.stringify({
        bench: "inputs",
        bytes,
        materialize_ms: Number(materializeMs.toFixed(1)),
        sha256sum_ms: Number(sha256sumMs.toFixed(1)),
        ratio: Number(ratio.toFixed(3)),
        node: process.version,
        hash_only_ms: Number(median(hashOnly).toFixed(1)),
        cp_ms: Number(median(cp).toFixed(1)),
        dispose_ms: Number(median(dispose).toFixed(1)),
        reps,
        cpus: availableParallelism(),
        loadavg_start: loadBefore.map((v) => Number(v.toFixed(2))),
        loadavg_end: loadAfter.map((v) => Number(v.toFixed(2))),
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
