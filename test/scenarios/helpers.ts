/**
 * What the scenario and chaos files set up alike: a temporary folder for a file's tests, the fake
 * Claude CLI installed for them (both removed after the file's tests), a wrapper that taps a fake
 * provider's stdout line by line, and the host's memory after a full collection.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

import { installFakeCli, type FakeCli } from "../drivers/fake-cli/install.js";

export interface Scratch {
  /** The file's temporary folder. */
  readonly root: string;
  /** A fresh folder under `root`. */
  dir(): string;
}

/** A temporary folder named from `prefix`, removed after the file's tests. */
export function scratch(prefix: string): Scratch {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  return {
    root,
    dir: () => {
      const path = join(root, `d-${++n}`);
      mkdirSync(path);
      return path;
    },
  };
}

/** The fake Claude CLI, installed before the file's tests and removed after them; `cli` is read in a test. */
export function fakeClaudeCli(): { readonly cli: FakeCli } {
  let installed: FakeCli | undefined;
  beforeAll(async () => {
    installed = await installFakeCli("claude");
  });
  afterAll(async () => {
    await installed?.cleanup();
  });
  return {
    get cli(): FakeCli {
      if (installed === undefined) throw new Error("the fake CLI is installed in beforeAll: read it in a test");
      return installed;
    },
  };
}

/**
 * Writes an executable at `path` that runs `command` with its own arguments and writes the
 * child's stdout through `onLine`: the body of a function of `line` (one line with its `\n`) that
 * writes with `writeSync(1, …)`. The body may set `fired`, a flag the script keeps across lines.
 */
export function writeStdoutTap(path: string, command: readonly string[], onLine: string): void {
  const [executable, ...args] = command;
  writeFileSync(
    path,
    `#!${process.execPath}
const { spawn } = require("node:child_process");
const { writeSync } = require("node:fs");
const child = spawn(${JSON.stringify(executable)}, [...${JSON.stringify(args)}, ...process.argv.slice(2)], { stdio: ["inherit", "pipe", "inherit"] });
child.on("exit", (code) => process.exit(code ?? 1));
let fired = false, buffered = "";
const onLine = (line) => {
${onLine}
};
child.stdout.on("data", (chunk) => {
  buffered += chunk; let nl;
  while ((nl = buffered.indexOf("\\n")) >= 0) {
    const line = buffered.slice(0, nl + 1); buffered = buffered.slice(nl + 1);
    onLine(line);
  }
});
`,
  );
  chmodSync(path, 0o755);
}

/** What JavaScript holds (heap and buffers), in MiB, after a full collection when the process exposes `gc`. */
export function heldMiB(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return (usage.heapUsed + usage.external) / 2 ** 20;
}
