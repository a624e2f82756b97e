/**
 * grep with ripgrep and with the JS search: the same output for the same tree (path order, hidden,
 * node_modules, .gitignore, binary files, globs, long lines, links not followed), the line cap,
 * errors, confinement, and the backend chosen from PATH.
 */
import { existsSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { arch, platform } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

import { findRipgrep } from "../../../../src/drivers/openai/tools/grep-rg.js";
import { grepTool } from "../../../../src/drivers/openai/tools/grep.js";
import { MAX_GREP_LINES } from "../../../../src/drivers/openai/tools/grep-types.js";
import { liveProcessCount } from "../../../../src/process/index.js";
import { call, sandbox } from "./helpers.js";

const modules = fileURLToPath(new URL("../../../../node_modules/", import.meta.url));

/** The ripgrep the provider CLIs (devDependencies) ship for this machine. */
function vendoredRipgrep(): string | undefined {
  const rust = arch() === "x64" ? "x86_64" : "aarch64";
  const candidates = [
    join(modules, `@openai/codex-${platform()}-${arch()}/vendor/${rust}-unknown-${platform()}-musl/codex-path/rg`),
    join(modules, `@tencent-ai/agent-sdk/cli/vendor/ripgrep/${arch()}-${platform()}/rg`),
    join(modules, `@zed-industries/claude-agent-acp/node_modules/@anthropic-ai/claude-agent-sdk/vendor/ripgrep/${arch()}-${platform()}/rg`),
  ];
  return candidates.find((path) => existsSync(path));
}

const rg = vendoredRipgrep();

afterEach(() => {
  expect(liveProcessCount()).toBe(0);
});

async function tree(): Promise<{ workspace: string }> {
  const { workspace, outside } = await sandbox();
  for (const dir of ["src/a", "src/b", ".hidden", "node_modules/pkg", "dist", "docs"]) await mkdir(join(workspace, dir), { recursive: true });
  const files: Record<string, string | Buffer> = {
    ".gitignore": "dist/\n*.log\n!keep.log\n/docs/draft.md\n",
    "README.md": "needle in the readme\nnothing\n",
    "src/a/one.ts": "const needle = 1;\nconst other = 2;\n// NEEDLE upper\n",
    "src/a-b.ts": "needle dash\n",
    "src/b/two.py": "needle = 'py'\n",
    "src/long.txt": `needle ${"x".repeat(700)}\n`,
    "src/crlf.txt": "needle crlf\r\nnext\r\n",
    ".hidden/secret.txt": "needle hidden\n",
    "node_modules/pkg/index.js": "needle dep\n",
    "dist/out.js": "needle built\n",
    "debug.log": "needle log\n",
    "keep.log": "needle kept\n",
    "docs/draft.md": "needle draft\n",
    "docs/final.md": "needle final\n",
    "image.bin": Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2]), Buffer.from("needle\n")]),
  };
  for (const [path, content] of Object.entries(files)) await writeFile(join(workspace, path), content);
  await writeFile(join(outside, "far.txt"), "needle far\n");
  await symlink(outside, join(workspace, "src", "out"));
  await symlink(join(outside, "far.txt"), join(workspace, "far-link.txt"));
  return { workspace };
}

const queries: Array<Record<string, unknown>> = [
  { pattern: "needle" },
  { pattern: "needle", path: "src" },
  { pattern: "needle", path: "src/a/one.ts" },
  { pattern: "needle", ignore_case: true, path: "src/a" },
  { pattern: "needle", glob: "*.ts" },
  { pattern: "needle", glob: "src/**/*.py" },
  { pattern: "needle", glob: "!src" },
  { pattern: "needle", path: "node_modules/pkg" },
  { pattern: "need(le|ful) [a-z]+$" },
  { pattern: "absent-text" },
];

describe("grep", () => {
  it("finds a vendored ripgrep to test with", () => {
    expect(rg).toBeDefined();
  });

  it("writes the same output with ripgrep and with the JS search", async () => {
    const { workspace } = await tree();
    const withRg = grepTool({ ripgrep: rg! });
    const withJs = grepTool({ ripgrep: false });
    for (const query of queries) {
      const [a, b] = [await call(withRg, workspace, query), await call(withJs, workspace, query)];
      expect(b, JSON.stringify(query)).toEqual(a);
    }
  });

  it("reports matches in path order, skipping what rg skips", async () => {
    const { workspace } = await tree();
    const out = await call(grepTool({ ripgrep: false }), workspace, { pattern: "needle" });
    const paths = out.output.split("\n").map((line) => line.split(":")[0]);
    expect(paths).toEqual(["README.md", "docs/final.md", "keep.log", "src/a/one.ts", "src/a-b.ts", "src/b/two.py", "src/crlf.txt", "src/long.txt"]);
    expect(out.output).toContain("src/a/one.ts:1:const needle = 1;");
    expect(out.output).toContain(`src/long.txt:1:needle ${"x".repeat(493)} [... omitted end of long line]`);
  });

  it("caps the lines with a note", async () => {
    const { workspace } = await sandbox();
    await writeFile(join(workspace, "many.txt"), "hit\n".repeat(MAX_GREP_LINES + 50));
    for (const ripgrep of [rg!, false] as const) {
      const out = await call(grepTool({ ripgrep }), workspace, { pattern: "hit" });
      const lines = out.output.split("\n");
      expect(lines).toHaveLength(MAX_GREP_LINES + 1);
      expect(lines.at(-1)).toMatch(/matches capped at 500 lines/);
    }
  });

  it("reports a bad pattern, a missing path and an escape", async () => {
    const { workspace } = await tree();
    for (const ripgrep of [rg!, false] as const) {
      const tool = grepTool({ ripgrep });
      const bad = await call(tool, workspace, { pattern: "a(" });
      expect(bad.isError).toBe(true);
      expect(bad.output).toMatch(/^grep failed: .*(unclosed group|Unterminated group)/s);
      // Said once, not "invalid regular expression: Invalid regular expression: ...".
      expect(bad.output).not.toMatch(/invalid regular expression.*invalid regular expression/is);
      expect(await call(tool, workspace, { pattern: "x", path: "nope" })).toEqual({ output: "not found: nope", isError: true });
      expect((await call(tool, workspace, { pattern: "x", path: "src/out" })).output).toMatch(/^access denied/);
      expect((await call(tool, workspace, { pattern: "x", path: "../outside" })).output).toMatch(/^access denied/);
    }
  });

  it("a cancelled search says so with either backend", async () => {
    const { workspace } = await tree();
    for (const ripgrep of [rg!, false] as const) {
      const out = await call(grepTool({ ripgrep }), workspace, { pattern: "needle" }, { signal: AbortSignal.abort() });
      expect(out).toEqual({ output: "cancelled", isError: true });
    }
  });

  it("uses rg from PATH when there is one, else the JS search", async () => {
    const { base, workspace } = await sandbox();
    await writeFile(join(workspace, "a.txt"), "ab\n");
    const bin = join(base, "bin");
    await mkdir(bin);
    await symlink(rg!, join(bin, "rg"));
    expect(await findRipgrep(bin)).toBe(join(bin, "rg"));
    expect(await findRipgrep(join(base, "empty"))).toBeUndefined();
    const saved = process.env.PATH;
    // Look-behind is JavaScript-only: ripgrep's default engine refuses it, which shows the backend.
    const lookBehind = { pattern: "(?<=a)b" };
    try {
      process.env.PATH = `${bin}:${saved}`;
      expect((await call(grepTool(), workspace, lookBehind)).output).toMatch(/^grep failed: .*look-around/s);
      process.env.PATH = join(base, "empty");
      expect((await call(grepTool(), workspace, lookBehind)).output).toBe("a.txt:1:ab");
    } finally {
      process.env.PATH = saved;
    }
  });
});
