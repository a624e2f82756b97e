/**
 * docs/api.md's code tables are generated from the code tables: `--check` passes on the page as
 * committed, fails on a page whose section went stale, and `--update` repairs it.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const script = join(root, "scripts", "gen-codes-doc.mjs");
const run = promisify(execFile);

async function generate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

describe("gen-codes-doc", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("--check passes: docs/api.md's code tables match ERROR_CODES and NOTICE_CODES", async () => {
    const result = await generate("--check");
    expect(result).toMatchObject({ code: 0, stderr: "" });
  });

  it("--check fails on a stale section, and --update rewrites only the section", async () => {
    const dir = await mkdtemp(join(tmpdir(), "codes-doc-"));
    dirs.push(dir);
    const page = join(dir, "api.md");
    const original = await readFile(join(root, "docs", "api.md"), "utf8");
    const stale = original.replace(/^\| `agent_closed` \|.*\n/m, "").replace("## Errors", "## Errors (edited by hand)");
    expect(stale).not.toBe(original);
    await writeFile(page, stale);

    const check = await generate("--check", "--doc", page);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("--update");

    expect((await generate("--update", "--doc", page)).code).toBe(0);
    // The row is back; the hand-edited heading outside the markers is untouched.
    expect(await readFile(page, "utf8")).toBe(original.replace("## Errors", "## Errors (edited by hand)"));
    expect((await generate("--check", "--doc", page)).code).toBe(0);
  });

  it("refuses a page without the markers", async () => {
    const dir = await mkdtemp(join(tmpdir(), "codes-doc-"));
    dirs.push(dir);
    const page = join(dir, "api.md");
    await writeFile(page, "# API\n\nno code tables here\n");
    const result = await generate("--check", "--doc", page);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("markers");
  });
});
