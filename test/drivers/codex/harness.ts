/**
 * Test helpers for the Codex driver: a fake `codex app-server` executable, and a direct SPI
 * harness for what core does not route yet (threads, per-run inputs, steering).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURE = fileURLToPath(new URL("./fixtures/fake-codex.mjs", import.meta.url));

/** Writes an executable `codex` into `dir` that runs the fake app-server with this Node. */
export function writeFakeCodex(dir: string): string {
  const path = join(dir, "codex");
  writeFileSync(path, `#!${process.execPath}\nimport(${JSON.stringify(FIXTURE)});\n`);
  chmodSync(path, 0o755);
  return path;
}

export interface FakeLogEntry {
  pid: number;
  event: string;
  method?: string;
  params?: Record<string, unknown>;
  args?: string[];
  tmpdir?: string | null;
  codexHome?: string | null;
  path?: string;
  decision?: unknown;
}

export function readFakeLog(file: string): FakeLogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as FakeLogEntry);
}

export { runDirect, type DirectRunOptions, type DirectRunOutcome } from "../helpers.js";

/** The smallest valid PNG: 1×1, one red pixel. */
export const TINY_PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082",
  "hex",
);
