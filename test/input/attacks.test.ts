/**
 * Symlink, escape, replacement and mutation attacks on path sources, on a real filesystem.
 *
 * Changes "during the copy" are made at exact points through the materializer's test seam
 * `materializeTestHooks`, whose hooks run between the open, the first fstat, the copy and the
 * re-check, so no test races a concurrent process.
 */
import { appendFile, link, lstat, mkdir, open, readlink, rename, symlink, truncate, utimes, writeFile } from "node:fs/promises";
import { readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { FILE_CHUNK_BYTES } from "../../src/input/copy.js";
import { input, materializeInputs, type MaterializeContext } from "../../src/input/index.js";
import { materializeTestHooks } from "../../src/input/materialize.js";
import { ALL, expectInputError, expectNoRunDirectories, signal, useScratch, writeFixture } from "./helpers.js";

const scratch = useScratch();
const context = (overrides: Partial<MaterializeContext> = {}): MaterializeContext => ({ driverId: "d", capabilities: ALL, signal: signal(), ...overrides });

afterEach(() => {
  delete materializeTestHooks.beforeStat;
  delete materializeTestHooks.afterOpen;
  delete materializeTestHooks.beforeVerify;
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

  describe("a path that other files keep being renamed over", () => {
    const ORIGINAL = "the same bytes in every version";
    const hookNames = ["beforeStat", "afterOpen", "beforeVerify"] as const;
    type Stage = (typeof hookNames)[number];

    /**
     * A fresh path plus two prepared files with the same bytes, and `swap(to)`, which renames a new
     * hard link of one of them over the path, as a process swapping prepared files in would.
     */
    async function swapScene(label: string) {
      const dir = join(scratch.dir, `swap-${label}`);
      await mkdir(dir);
      const path = await writeFixture(dir, "swapped.txt", ORIGINAL);
      const other = await writeFixture(dir, "other.txt", ORIGINAL);
      const keep = join(dir, "original-kept.txt");
      await link(path, keep); // Keeps the original's inode reachable so it can be swapped back.
      let n = 0;
      const swap = async (to: string) => {
        const tmp = join(dir, `swap-${n++}.tmp`);
        await link(to, tmp);
        await rename(tmp, path);
      };
      return { path, other, keep, swap };
    }

    /** Waits until the filesystem clock has moved past `path`'s ctime, so the next change to it shows. */
    async function afterCtimeOf(path: string, probe: string): Promise<void> {
      const { ctimeNs } = await lstat(path, { bigint: true });
      await writeFile(probe, "");
      while ((await lstat(probe, { bigint: true })).ctimeNs <= ctimeNs) await utimes(probe, new Date(), new Date());
    }

    for (const stage of hookNames) {
      it(`refused when another file is renamed over it at ${stage}`, async () => {
        const { path, other, swap } = await swapScene(stage);
        let swapped = 0;
        materializeTestHooks[stage as Stage] = async () => {
          await swap(other);
          swapped++;
        };
        const error = await expectInputError(materializeInputs([input.fromPath("file", path)], context()), "input_materialization_failed", { index: 0 });
        expect(swapped).toBe(1);
        expect(error.message).toMatch(/(replaced|changed) while it was copied/);
        expect(openPaths().filter((p) => p.startsWith(scratch.dir))).toEqual([]);
        await expectNoRunDirectories(scratch.runTmp);
      });
    }

    it("refused when the swap lands between the open and the first fstat (only the path re-check sees it)", async () => {
      // The descriptor's file is unlinked before its first fstat, so both fstats agree; only the
      // path now names another file.
      const { path, other, swap } = await swapScene("before-stat-only");
      materializeTestHooks.beforeStat = () => swap(other);
      const error = await expectInputError(materializeInputs([input.fromPath("file", path)], context()), "input_materialization_failed", { index: 0 });
      expect(error.message).toContain("replaced while it was copied");
    });

    it("refused when the path is swapped away during the copy and back before the re-check (only the fstat re-check sees it)", async () => {
      const { path, other, keep, swap } = await swapScene("away-and-back");
      materializeTestHooks.afterOpen = async () => {
        await afterCtimeOf(path, join(scratch.dir, "clock-probe"));
        await swap(other);
      };
      materializeTestHooks.beforeVerify = () => swap(keep);
      const error = await expectInputError(materializeInputs([input.fromPath("file", path)], context()), "input_materialization_failed", { index: 0 });
      expect(error.message).toContain("changed while it was copied");
      await expectNoRunDirectories(scratch.runTmp);
    });

    it("the same path, left alone, is copied (the scene itself is not refused)", async () => {
      const { path } = await swapScene("untouched");
      const result = await materializeInputs([input.fromPath("file", path)], context());
      expect(result.inputs[0]!.size).toBe(ORIGINAL.length);
      await result.dispose();
    });
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

describe("a file being appended to (test seam)", () => {
  // Several copy chunks, so an append made before the copy is met only after whole chunks were copied.
  const SIZE = 2 * FILE_CHUNK_BYTES + 12_345;
  const APPENDED = 4096;
  const limits = { maxInputBytes: 2 ** 40, maxTotalBytes: 2 ** 40 };

  it("appended to after the first fstat, before the copy: the copy itself refuses it on reading past that size", async () => {
    const path = await writeFixture(scratch.dir, "growing-early.bin", Buffer.alloc(SIZE, 1));
    let appended = 0;
    let verified = 0;
    materializeTestHooks.afterOpen = async () => {
      await appendFile(path, Buffer.alloc(APPENDED, 2));
      appended++;
    };
    materializeTestHooks.beforeVerify = () => {
      verified++;
    };
    const error = await expectInputError(
      materializeInputs([input.fromPath("file", path, { mediaType: "application/octet-stream" })], context({ limits })),
      "input_materialization_failed",
      { index: 0 },
    );
    expect(error.message).toContain("changed while it was copied");
    expect(appended).toBe(1);
    // Refused inside the copy: the re-check after it is never reached.
    expect(verified).toBe(0);
    expect(openPaths()).not.toContain(path);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("appended to after the last byte is copied, before the re-check: the re-check refuses it", async () => {
    const path = await writeFixture(scratch.dir, "growing-late.bin", Buffer.alloc(SIZE, 1));
    let appended = 0;
    materializeTestHooks.beforeVerify = async () => {
      await appendFile(path, Buffer.alloc(APPENDED, 2));
      appended++;
    };
    const causes: unknown[] = [];
    const error = await expectInputError(
      materializeInputs([input.fromPath("file", path, { mediaType: "application/octet-stream" })], context({ limits, onDiagnostic: ({ cause }) => causes.push(cause) })),
      "input_materialization_failed",
      { index: 0 },
    );
    expect(error.message).toContain("changed while it was copied");
    expect(appended).toBe(1);
    // The re-check's second fstat is what saw it: the new size (the size comparison refuses it even
    // when a coarse clock left the timestamps where they were).
    expect(causes.map(String)).toEqual([expect.stringContaining(`size ${SIZE} → ${SIZE + APPENDED}, copied ${SIZE}`)]);
    expect(openPaths()).not.toContain(path);
    await expectNoRunDirectories(scratch.runTmp);
  });
});
