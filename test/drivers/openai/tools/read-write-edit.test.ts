/** read, write and edit on real files: happy paths, ranges, caps and every error the model can cause. */
import { chmod, mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { editTool } from "../../../../src/drivers/openai/tools/edit.js";
import { readTool, DEFAULT_READ_LINES, MAX_LINE_CHARS } from "../../../../src/drivers/openai/tools/read.js";
import { writeTool } from "../../../../src/drivers/openai/tools/write.js";
import { call, sandbox } from "./helpers.js";

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

describe("read", () => {
  it("numbers the lines of a file and reads a range", async () => {
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "a.txt"), lines(10));
    const all = await call(readTool, workspace, { path: "a.txt" });
    expect(all.isError).toBe(false);
    expect(all.output.split("\n")).toHaveLength(10);
    expect(all.output.split("\n")[0]).toBe("     1\tline 1");
    const range = await call(readTool, workspace, { path: "a.txt", offset: 4, limit: 2 });
    expect(range.output).toBe("     4\tline 4\n     5\tline 5\n[limit of 2 lines reached: showing lines 4-5; more lines follow, read again with offset=6 to continue]");
    const tail = await call(readTool, workspace, JSON.stringify({ path: "a.txt", offset: 9 }));
    expect(tail.output).toBe("     9\tline 9\n    10\tline 10");
  });

  it("caps a long file at the default limit and cuts long lines, saying so", async () => {
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "big.txt"), lines(DEFAULT_READ_LINES + 5));
    const out = await call(readTool, workspace, { path: "big.txt" });
    expect(out.output).toContain(`read again with offset=${DEFAULT_READ_LINES + 1}`);
    await writeFile(join(workspace, "wide.txt"), "x".repeat(MAX_LINE_CHARS + 10));
    const wide = await call(readTool, workspace, { path: "wide.txt" });
    expect(wide.output).toContain(`… [line cut at ${MAX_LINE_CHARS} characters: the line is ${MAX_LINE_CHARS + 10} bytes]`);
  });

  it("reports errors the model can act on", async () => {
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "a.txt"), "one\n");
    await writeFile(join(workspace, "empty.txt"), "");
    await writeFile(join(workspace, "bin"), Buffer.from([1, 0, 2]));
    await mkdir(join(workspace, "dir"));
    expect(await call(readTool, workspace, { path: "missing.txt" })).toEqual({ output: "file not found: missing.txt", isError: true });
    expect((await call(readTool, workspace, { path: "a.txt", offset: 5 })).output).toBe("offset 5 is past the end of a.txt (1 lines)");
    expect((await call(readTool, workspace, { path: "dir" })).output).toContain("is a directory");
    expect((await call(readTool, workspace, { path: "bin" })).output).toContain("binary file");
    expect(await call(readTool, workspace, { path: "empty.txt" })).toEqual({ output: "empty.txt is empty", isError: false });
    const invalid = await call(readTool, workspace, { path: 3, offset: 0 });
    expect(invalid.isError).toBe(true);
    expect(invalid.output).toMatch(/^invalid arguments for read: path: .*; offset: /);
  });
});

describe("write", () => {
  it("creates a file with its directories and reports an added file with its diff", async () => {
    const { workspace } = await sandbox();
    const out = await call(writeTool, workspace, { path: "src/deep/new.ts", content: "export const a = 1;\n" });
    expect(out.isError).toBe(false);
    expect(out.output).toBe("created src/deep/new.ts (1 lines, 20 bytes)");
    expect(await readFile(join(workspace, "src/deep/new.ts"), "utf8")).toBe("export const a = 1;\n");
    expect(out.files).toEqual([{ path: "src/deep/new.ts", change: "added", diff: expect.stringContaining("--- /dev/null\n+++ b/src/deep/new.ts\n") }]);
    expect(out.files![0]!.diff).toContain("+export const a = 1;");
  });

  it("replaces a file atomically, keeps its mode and leaves no temporary file", async () => {
    const { workspace } = await sandbox();
    const file = join(workspace, "run.sh");
    await writeFile(file, "echo old\n");
    await chmod(file, 0o755);
    const out = await call(writeTool, workspace, { path: "run.sh", content: "echo new\n" });
    expect(out.output).toMatch(/^overwrote run.sh/);
    expect(out.files![0]).toMatchObject({ path: "run.sh", change: "modified" });
    expect(out.files![0]!.diff).toContain("-echo old\n+echo new");
    expect((await stat(file)).mode & 0o777).toBe(0o755);
    expect(await readdir(workspace)).toEqual(["run.sh"]);
  });

  it("refuses a directory and invalid arguments", async () => {
    const { workspace } = await sandbox();
    await mkdir(join(workspace, "dir"));
    expect((await call(writeTool, workspace, { path: "dir", content: "" })).output).toBe("dir is a directory");
    expect((await call(writeTool, workspace, { path: "a" })).output).toMatch(/^invalid arguments for write: content:/);
    await writeFile(join(workspace, "file.txt"), "x");
    expect((await call(writeTool, workspace, { path: "file.txt/new.txt", content: "" })).output).toBe("cannot write file.txt/new.txt: a component of the path is not a directory");
    // A path naming a directory that does not exist yet: no file "notes" is made in its place.
    expect(await call(writeTool, workspace, { path: "notes/", content: "x" })).toEqual({ output: 'notes/ ends with "/" and names a directory; give a file path', isError: true });
    expect(await readdir(workspace)).not.toContain("notes");
  });
});

describe("edit", () => {
  it("replaces a unique occurrence and returns the diff", async () => {
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "a.ts"), "const a = 1;\nconst b = 2;\n");
    const out = await call(editTool, workspace, { path: "a.ts", old_string: "const b = 2;", new_string: "const b = '$&';" });
    expect(out).toMatchObject({ isError: false, output: "edited a.ts: replaced 1 occurrence" });
    expect(await readFile(join(workspace, "a.ts"), "utf8")).toBe("const a = 1;\nconst b = '$&';\n");
    expect(out.files).toEqual([{ path: "a.ts", change: "modified", diff: expect.stringContaining("-const b = 2;\n+const b = '$&';") }]);
  });

  it("refuses an ambiguous match unless replace_all, and says how many", async () => {
    const { workspace } = await sandbox();
    const file = join(workspace, "a.txt");
    await writeFile(file, "x\nx\nx\n");
    const ambiguous = await call(editTool, workspace, { path: "a.txt", old_string: "x", new_string: "y" });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.output).toMatch(/^old_string found 3 times in a.txt: include more surrounding lines/);
    expect(await readFile(file, "utf8")).toBe("x\nx\nx\n");
    const all = await call(editTool, workspace, { path: "a.txt", old_string: "x", new_string: "y", replace_all: true });
    expect(all.output).toBe("edited a.txt: replaced 3 occurrences");
    expect(await readFile(file, "utf8")).toBe("y\ny\ny\n");
  });

  it("explains not found, identical strings, missing files and binary files", async () => {
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "a.txt"), "hello\n");
    await writeFile(join(workspace, "bin"), Buffer.from([0, 1]));
    expect((await call(editTool, workspace, { path: "a.txt", old_string: "bye", new_string: "x" })).output).toMatch(/^old_string not found in a.txt/);
    expect((await call(editTool, workspace, { path: "a.txt", old_string: "hello", new_string: "hello" })).output).toMatch(/identical/);
    expect((await call(editTool, workspace, { path: "nope.txt", old_string: "a", new_string: "b" })).output).toBe("file not found: nope.txt (use write to create a file)");
    expect((await call(editTool, workspace, { path: "bin", old_string: "a", new_string: "b" })).output).toMatch(/binary file/);
    expect((await call(editTool, workspace, { path: "a.txt", old_string: "", new_string: "b" })).output).toMatch(/old_string: must not be empty/);
  });

  it("matches LF text in a CRLF file and keeps CRLF", async () => {
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "w.txt"), "one\r\ntwo\r\nthree\r\n");
    const out = await call(editTool, workspace, { path: "w.txt", old_string: "one\ntwo", new_string: "1\n2" });
    expect(out.isError).toBe(false);
    expect(await readFile(join(workspace, "w.txt"), "utf8")).toBe("1\r\n2\r\nthree\r\n");
  });
});

describe("tool metadata", () => {
  it("asks for approval of file changes and never for reads; titles tolerate bad arguments", () => {
    expect([readTool.approval, writeTool.approval, editTool.approval]).toEqual([undefined, "file_change", "file_change"]);
    expect([readTool.kind, writeTool.kind, editTool.kind]).toEqual(["read", "file_change", "file_change"]);
    expect(editTool.title({ path: "a.ts" })).toBe("Edit a.ts");
    expect(readTool.title(null)).toBe("Read file");
  });
});
