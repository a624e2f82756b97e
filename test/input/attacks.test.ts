/**
 * Symlink, escape, replacement and mutation attacks on path sources, on a real filesystem.
 *
 * Changes "during the copy" are made two ways:
 * - deterministically, through the materializer's test seam `materializeTestHooks.afterOpen`,
 *   which runs after the source is opened (its first fstat taken) and before a byte is copied;
 * - for real, by a separate process that keeps appending to, or renaming other files over, a
 *   large source for the whole time it is being copied.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFile, mkdir, open, readlink, rename, symlink, truncate, writeFile } from "node:fs/promises";
import { readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { input, materializeInputs, type MaterializeContext } from "../../src/input/index.js";
import { materializeTestHooks } from "../../src/input/materialize.js";
import { ALL, expectInputError, expectNoRunDirectories, signal, useScratch, writeFixture } from "./helpers.js";

const scratch = useScratch();
const context = (overrides: Partial<MaterializeContext> = {}): MaterializeContext => ({ driverId: "d", capabilities: ALL, signal: signal(), ...overrides });

afterEach(() => {
  delete materializeTestHooks.afterOpen;
});

/** Paths this process has open right now (Linux). */
function openPaths(): string[] {
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

describe("symlinks and escapes", () => {
  it("fromPath refuses a symlink, even to a harmless file next to it", async () => {
    const target = await writeFixture(scratch.dir, "target.txt", "target");
    const link = join(scratch.dir, "link.txt");
    await symlink(target, link);
    const error = await expectInputError(materializeInputs([input.fromPath("file", link)], context()), "input_materialization_failed", { index: 0 });
    expect(error.message).toContain("symbolic link");
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("fromFS refuses a final symlink that escapes the root", async () => {
    const root = join(scratch.dir, "root1");
    await mkdir(root);
    const outside = await writeFixture(scratch.dir, "outside.txt", "outside secret");
    await symlink(outside, join(root, "escape.txt"));
    await expectInputError(materializeInputs([input.fromFS("file", root, "escape.txt")], context()), "input_materialization_failed", { index: 0 });
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("fromFS refuses an intermediate directory symlink that escapes the root", async () => {
    const root = join(scratch.dir, "root2");
    await mkdir(root);
    const elsewhere = join(scratch.dir, "elsewhere");
    await mkdir(elsewhere);
    await writeFixture(elsewhere, "secret.txt", "outside secret");
    await symlink(elsewhere, join(root, "sub"));
    const error = await expectInputError(materializeInputs([input.fromFS("file", root, "sub/secret.txt")], context()), "input_materialization_failed");
    expect(error.message).toContain("outside its root");
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("fromFS allows a symlinked root and directory symlinks that stay inside", async () => {
    const real = join(scratch.dir, "real-root");
    await mkdir(join(real, "a"), { recursive: true });
    await writeFixture(join(real, "a"), "ok.txt", "inside");
    await symlink(join(real, "a"), join(real, "alias"));
    const linkedRoot = join(scratch.dir, "linked-root");
    await symlink(real, linkedRoot);
    const result = await materializeInputs([input.fromFS("file", linkedRoot, "alias/ok.txt"), input.fromFS("file", real, "a/ok.txt")], context());
    expect(result.inputs.map((i) => i.size)).toEqual([6, 6]);
    await result.dispose();
  });

  it("fromFS: a directory swapped for an escaping symlink between reference and materialization is refused", async () => {
    const root = join(scratch.dir, "root3");
    await mkdir(join(root, "sub"), { recursive: true });
    await writeFixture(join(root, "sub"), "f.txt", "inside");
    const ref = input.fromFS("file", root, "sub/f.txt");
    const elsewhere = join(scratch.dir, "elsewhere3");
    await mkdir(elsewhere);
    await writeFixture(elsewhere, "f.txt", "outside secret");
    await rename(join(root, "sub"), join(root, "old-sub"));
    await symlink(elsewhere, join(root, "sub"));
    await expectInputError(materializeInputs([ref], context()), "input_materialization_failed");
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("the opened descriptor's location is what is checked (Linux /proc)", async () => {
    // Sanity check of the mechanism the fs-source check relies on.
    const path = await writeFixture(scratch.dir, "fdcheck.txt", "x");
    const handle = await open(path, "r");
    try {
      expect(await readlink(`/proc/self/fd/${handle.fd}`)).toBe(path);
    } finally {
      await handle.close();
    }
  });
});

describe("changes during the copy (test seam)", () => {
  it("a file renamed over the path is refused", async () => {
    const path = await writeFixture(scratch.dir, "replaced.txt", "original content");
    const replacement = await writeFixture(scratch.dir, "replacement.txt", "evil content!!!!");
    materializeTestHooks.afterOpen = () => rename(replacement, path);
    const error = await expectInputError(materializeInputs([input.fromPath("file", path)], context()), "input_materialization_failed", { index: 0 });
    expect(error.message).toContain("while it was copied");
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("a symlink put in place of the path is refused", async () => {
    const path = await writeFixture(scratch.dir, "to-link.txt", "original");
    const other = await writeFixture(scratch.dir, "other.txt", "original");
    materializeTestHooks.afterOpen = async () => {
      await rename(path, join(scratch.dir, "moved.txt"));
      await symlink(other, path);
    };
    await expectInputError(materializeInputs([input.fromPath("file", path)], context()), "input_materialization_failed");
  });

  it("a removed path is refused", async () => {
    const path = await writeFixture(scratch.dir, "removed.txt", "original");
    materializeTestHooks.afterOpen = () => rename(path, join(scratch.dir, "gone.txt"));
    await expectInputError(materializeInputs([input.fromPath("file", path)], context()), "input_materialization_failed");
  });

  it("appending, truncating, or rewriting in place with the same size is refused", async () => {
    const mutations: [string, (path: string) => Promise<void>][] = [
      ["append", (path) => appendFile(path, "more")],
      ["truncate", (path) => truncate(path, 3)],
      [
        "same size",
        async (path) => {
          await new Promise((resolve) => setTimeout(resolve, 5)); // A distinct mtime even on coarse clocks.
          const handle = await open(path, "r+");
          await handle.write("EVIL", 0);
          await handle.close();
        },
      ],
    ];
    for (const [label, mutate] of mutations) {
      const path = await writeFixture(scratch.dir, `mutated-${label}.txt`, "original content");
      materializeTestHooks.afterOpen = () => mutate(path);
      const error = await expectInputError(materializeInputs([input.fromPath("file", path)], context()), "input_materialization_failed");
      expect(error.message, label).toContain("changed while it was copied");
    }
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("a fromFS source is checked the same way", async () => {
    const root = join(scratch.dir, "root4");
    await mkdir(root);
    const path = await writeFixture(root, "f.txt", "original");
    materializeTestHooks.afterOpen = () => appendFile(path, "!");
    await expectInputError(materializeInputs([input.fromFS("file", root, "f.txt")], context()), "input_materialization_failed");
  });

  it("replacing the file before it is opened is not an attack: the bytes at open time are copied", async () => {
    const path = await writeFixture(scratch.dir, "early.txt", "first");
    const ref = input.fromPath("file", path);
    await writeFile(path, "second version");
    const result = await materializeInputs([ref], context());
    expect(result.inputs[0]!.size).toBe("second version".length);
    await result.dispose();
  });
});

describe("changes during the copy (a concurrent process)", () => {
  const SIZE = 96 * 1024 * 1024;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
    child = undefined;
  });

  /** Starts `script` in a child process and waits until it reports that it is running. */
  async function startChild(script: string): Promise<void> {
    child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.once("data", () => resolve());
      child!.once("exit", (code) => reject(new Error(`the child exited (${code})`)));
    });
  }

  it("a file being appended to is refused", async () => {
    const path = await writeFixture(scratch.dir, "growing.bin", Buffer.alloc(SIZE, 1));
    await startChild(`
      const fs = require("node:fs");
      const fd = fs.openSync(${JSON.stringify(path)}, "a");
      process.stdout.write("ready\\n");
      for (;;) fs.writeSync(fd, Buffer.alloc(4096, 2));
    `);
    const error = await expectInputError(
      materializeInputs([input.fromPath("file", path, { mediaType: "application/octet-stream" })], context({ limits: { maxInputBytes: 2 ** 40, maxTotalBytes: 2 ** 40 } })),
      "input_materialization_failed",
    );
    expect(error.message).toContain("changed while it was copied");
    expect(openPaths()).not.toContain(path);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("a path that other files keep being renamed over is refused", async () => {
    const path = join(scratch.dir, "swapped.bin");
    const a = await writeFixture(scratch.dir, "a.bin", Buffer.alloc(SIZE, 3));
    const b = await writeFixture(scratch.dir, "b.bin", Buffer.alloc(SIZE, 4));
    await writeFixture(scratch.dir, "swapped.bin", Buffer.alloc(SIZE, 3));
    // Hard links keep both versions large, so whichever one is opened takes a while to copy.
    await startChild(`
      const fs = require("node:fs");
      const tmp = ${JSON.stringify(join(scratch.dir, "swap.tmp"))};
      process.stdout.write("ready\\n");
      for (let i = 0; ; i++) {
        try { fs.unlinkSync(tmp); } catch {}
        fs.linkSync(i % 2 ? ${JSON.stringify(b)} : ${JSON.stringify(a)}, tmp);
        fs.renameSync(tmp, ${JSON.stringify(path)});
      }
    `);
    await expectInputError(
      materializeInputs([input.fromPath("file", path, { mediaType: "application/octet-stream" })], context({ limits: { maxInputBytes: 2 ** 40, maxTotalBytes: 2 ** 40 } })),
      "input_materialization_failed",
    );
    expect(openPaths().filter((p) => p.startsWith(scratch.dir))).toEqual([]);
    await expectNoRunDirectories(scratch.runTmp);
  });
});
