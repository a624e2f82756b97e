/** list and glob on real trees: order, markers, skipped directories, links not followed, caps, errors. */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { globTool, MAX_GLOB_RESULTS } from "../../../../src/drivers/openai/tools/glob.js";
import { listTool } from "../../../../src/drivers/openai/tools/list.js";
import { call, sandbox } from "./helpers.js";

async function tree(): Promise<{ workspace: string; outside: string }> {
  const { workspace, outside } = await sandbox();
  for (const dir of ["src/lib", "test", ".github/workflows", "node_modules/pkg", ".git"]) await mkdir(join(workspace, dir), { recursive: true });
  const files: Record<string, string> = {
    "README.md": "# readme\n",
    ".env": "KEY=1\n",
    "src/index.ts": "export {};\n",
    "src/lib/util.ts": "export const u = 1;\n",
    "src/lib/view.tsx": "export {};\n",
    "test/index.test.ts": "test\n",
    ".github/workflows/ci.yml": "on: push\n",
    "node_modules/pkg/index.ts": "dep\n",
    ".git/HEAD": "ref\n",
  };
  for (const [path, content] of Object.entries(files)) await writeFile(join(workspace, path), content);
  await writeFile(join(outside, "far.ts"), "far\n");
  await symlink(outside, join(workspace, "src", "out"));
  return { workspace, outside };
}

describe("list", () => {
  it("lists one directory with markers, hidden entries included", async () => {
    const { workspace } = await tree();
    expect((await call(listTool, workspace, {})).output).toBe([".env", ".git/", ".github/", "README.md", "node_modules/", "src/", "test/"].join("\n"));
    expect((await call(listTool, workspace, { path: "src" })).output).toBe(["index.ts", "lib/", "out@"].join("\n"));
  });

  it("says what is wrong with a missing path, a file and an escape", async () => {
    const { workspace } = await tree();
    expect(await call(listTool, workspace, { path: "nope" })).toEqual({ output: "directory not found: nope", isError: true });
    expect((await call(listTool, workspace, { path: "README.md" })).output).toMatch(/is a file, not a directory/);
    expect((await call(listTool, workspace, { path: "src/out" })).output).toMatch(/^access denied/);
    expect((await call(listTool, workspace, { path: ".." })).output).toMatch(/^access denied/);
  });
});

describe("glob", () => {
  it("matches across directories in path order, skipping .git and node_modules and never following links", async () => {
    const { workspace } = await tree();
    expect((await call(globTool, workspace, { pattern: "**/*.ts" })).output).toBe(["src/index.ts", "src/lib/util.ts", "test/index.test.ts"].join("\n"));
    expect((await call(globTool, workspace, { pattern: "**/*.{ts,tsx}", path: "src" })).output).toBe(["src/index.ts", "src/lib/util.ts", "src/lib/view.tsx"].join("\n"));
    expect((await call(globTool, workspace, { pattern: "*.ts", path: "node_modules/pkg" })).output).toBe("node_modules/pkg/index.ts");
    expect((await call(globTool, workspace, { pattern: "src/out/*" })).output).toBe("no files match src/out/* in .");
  });

  it("matches hidden files only when the pattern names the dot", async () => {
    const { workspace } = await tree();
    expect((await call(globTool, workspace, { pattern: "*" })).output).toBe("README.md");
    expect((await call(globTool, workspace, { pattern: ".*" })).output).toBe(".env");
    expect((await call(globTool, workspace, { pattern: ".github/**/*.yml" })).output).toBe(".github/workflows/ci.yml");
  });

  it("caps the results with a note, and reports bad patterns and paths", async () => {
    const { workspace } = await sandbox();
    await Promise.all(Array.from({ length: MAX_GLOB_RESULTS + 3 }, (_, i) => writeFile(join(workspace, `f${String(i).padStart(4, "0")}.txt`), "")));
    const capped = await call(globTool, workspace, { pattern: "*.txt" });
    const lines = capped.output.split("\n");
    expect(lines).toHaveLength(MAX_GLOB_RESULTS + 1);
    expect(lines.at(-1)).toMatch(/results capped at 1000/);
    expect((await call(globTool, workspace, { pattern: "{a,b" })).output).toMatch(/^invalid pattern \{a,b: the pattern has an unclosed \{/);
    expect((await call(globTool, workspace, { pattern: "*", path: "../" })).output).toMatch(/^access denied/);
    expect((await call(globTool, workspace, { pattern: "*", path: "f0001.txt" })).output).toBe("f0001.txt is a file, not a directory");
    expect((await call(globTool, workspace, {})).output).toMatch(/^invalid arguments for glob: pattern:/);
  });
});
