/**
 * Workspace confinement: `..`, absolute paths elsewhere and symbolic links pointing out (at any
 * component, dangling, or as the directory a new file goes under) are refused for every tool that
 * takes a path, with an error the model sees, and nothing outside is read or written.
 */
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { confine, isWithin } from "../../../../src/drivers/openai/tools/confine.js";
import { editTool } from "../../../../src/drivers/openai/tools/edit.js";
import { readTool } from "../../../../src/drivers/openai/tools/read.js";
import { writeTool } from "../../../../src/drivers/openai/tools/write.js";
import { call, sandbox } from "./helpers.js";

async function escapes(): Promise<{ workspace: string; outside: string; attempts: string[] }> {
  const { workspace, outside } = await sandbox();
  await writeFile(join(outside, "secret.txt"), "top secret\n");
  await mkdir(join(workspace, "sub"));
  await symlink(outside, join(workspace, "linkdir")); // a directory link pointing out
  await symlink(join(outside, "secret.txt"), join(workspace, "linkfile")); // a file link pointing out
  await symlink(join(outside, "not-yet.txt"), join(workspace, "dangling")); // a dangling link pointing out
  await symlink("../../outside", join(workspace, "sub", "up")); // a relative link two levels up
  return {
    workspace,
    outside,
    attempts: ["../outside/secret.txt", "sub/../../outside/secret.txt", join(outside, "secret.txt"), "linkdir/secret.txt", "linkfile", "dangling", "sub/up/secret.txt", "linkdir/new/deeper.txt", "/etc/passwd"],
  };
}

describe("confinement", () => {
  it("read refuses every escape with an error naming the workspace rule", async () => {
    const { workspace, attempts } = await escapes();
    for (const path of attempts) {
      const out = await call(readTool, workspace, { path });
      expect(out.isError, path).toBe(true);
      expect(out.output, path).toMatch(/^access denied: .* is outside the workspace/);
      expect(out.output, path).not.toContain("top secret");
    }
  });

  it("write and edit refuse every escape and change nothing outside", async () => {
    const { workspace, outside, attempts } = await escapes();
    for (const path of attempts) {
      const written = await call(writeTool, workspace, { path, content: "pwned\n" });
      expect(written.isError, path).toBe(true);
      expect(written.output, path).toMatch(/^access denied/);
      const edited = await call(editTool, workspace, { path, old_string: "top secret", new_string: "pwned" });
      expect(edited.output, path).toMatch(/^access denied/);
    }
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });

  it("allows links and `..` that stay inside, an absolute path inside, and reports relative paths", async () => {
    const { workspace } = await sandbox();
    await mkdir(join(workspace, "real"));
    await writeFile(join(workspace, "real", "a.txt"), "inside\n");
    await symlink("real", join(workspace, "alias"));
    expect((await call(readTool, workspace, { path: "alias/a.txt" })).output).toBe("     1\tinside");
    expect((await call(readTool, workspace, { path: "real/../real/a.txt" })).isError).toBe(false);
    expect((await call(readTool, workspace, { path: join(workspace, "real", "a.txt") })).isError).toBe(false);
    const written = await call(writeTool, workspace, { path: "alias/b.txt", content: "b\n" });
    expect(written.output).toBe("created real/b.txt (1 lines, 2 bytes)");
    expect(written.output).not.toContain(workspace);
  });

  it("a workspace reached through a link accepts absolute paths spelled either way", async () => {
    const { base, workspace } = await sandbox();
    await writeFile(join(workspace, "a.txt"), "x\n");
    const viaLink = join(base, "ws-link");
    await symlink(workspace, viaLink);
    expect((await call(readTool, viaLink, { path: join(viaLink, "a.txt") })).isError).toBe(false);
    expect((await call(readTool, viaLink, { path: join(workspace, "a.txt") })).isError).toBe(false);
  });

  it("never resolves a relative path outside the workspace unless it is refused (property)", async () => {
    const { workspace } = await sandbox();
    await mkdir(join(workspace, "a", "b"), { recursive: true });
    const segment = fc.constantFrom("a", "b", "..", ".", "x", "");
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 8 }), fc.boolean(), async (segments, absolute) => {
        const path = (absolute ? "/" : "") + segments.join("/");
        const result = await confine(workspace, workspace, path === "" ? "." : path);
        if (!("refused" in result)) expect(isWithin(workspace, result.real)).toBe(true);
        else expect(result.refused).toMatch(/outside the workspace/);
      }),
      { numRuns: 300 },
    );
  });
});
