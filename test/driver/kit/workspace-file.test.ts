/** The driver kit's confined, bounded read of a workspace file (what file_change diffs are computed from). */
import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readWorkspaceText } from "../../../src/driver/kit/workspace-file.js";

let root: string;
let workspace: string;
let outside: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "aa-wsfile-"));
  workspace = join(root, "ws");
  outside = join(root, "outside");
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "secret\n");
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("readWorkspaceText", () => {
  it("reads a text file by relative or absolute path, and tells a missing file (also in a missing directory)", async () => {
    await writeFile(join(workspace, "a.txt"), "héllo\n");
    expect(await readWorkspaceText(workspace, "a.txt")).toEqual({ state: "text", text: "héllo\n" });
    expect(await readWorkspaceText(workspace, join(workspace, "a.txt"))).toEqual({ state: "text", text: "héllo\n" });
    expect(await readWorkspaceText(workspace, "missing.txt")).toEqual({ state: "absent" });
    expect(await readWorkspaceText(workspace, "new/dir/file.txt")).toEqual({ state: "absent" });
  });

  it("refuses what is outside the workspace: `..`, an absolute path, a linked directory, a linked file", async () => {
    await symlink(outside, join(workspace, "dir"));
    await symlink(join(outside, "secret.txt"), join(workspace, "link.txt"));
    for (const path of ["../outside/secret.txt", join(outside, "secret.txt"), "dir/secret.txt", "link.txt", join(outside, "missing/x.txt")]) {
      expect(await readWorkspaceText(workspace, path), path).toEqual({ state: "unavailable" });
    }
  });

  it("refuses a directory, a file over the cap, a binary file and invalid UTF-8", async () => {
    await mkdir(join(workspace, "sub"));
    await writeFile(join(workspace, "big.txt"), "x".repeat(101));
    await writeFile(join(workspace, "bin.dat"), Buffer.from([0x61, 0x00, 0x62]));
    await writeFile(join(workspace, "latin1.txt"), Buffer.from([0x63, 0xe9, 0x0a]));
    expect(await readWorkspaceText(workspace, "sub")).toEqual({ state: "unavailable" });
    expect(await readWorkspaceText(workspace, "big.txt", 100)).toEqual({ state: "unavailable" });
    expect(await readWorkspaceText(workspace, "big.txt", 101)).toEqual({ state: "text", text: "x".repeat(101) });
    expect(await readWorkspaceText(workspace, "bin.dat")).toEqual({ state: "unavailable" });
    expect(await readWorkspaceText(workspace, "latin1.txt")).toEqual({ state: "unavailable" });
  });

  it("reads through a workspace path that is itself a link (the real directory is what counts)", async () => {
    const linked = join(root, "ws-link");
    await symlink(workspace, linked);
    await writeFile(join(workspace, "a.txt"), "a\n");
    expect(await readWorkspaceText(linked, join(linked, "a.txt"))).toEqual({ state: "text", text: "a\n" });
    expect(await readWorkspaceText(linked, join(workspace, "a.txt"))).toEqual({ state: "text", text: "a\n" });
  });
});
