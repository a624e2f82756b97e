/**
 * docs/api.md's resources table is the one scripts/resources-table.mjs renders from every built-in
 * driver's descriptor, and the script lists every built-in driver.
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { Driver } from "../../src/index.js";
import { BUILT_IN_DRIVERS, END, renderSection, replaceSection, type ResourcesRow } from "../../scripts/resources-table.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const script = join(root, "scripts", "resources-table.mjs");
const run = promisify(execFile);

/** The rows from the drivers as this test run loads them. */
async function rows(): Promise<ResourcesRow[]> {
  const out: ResourcesRow[] = [];
  for (const entry of BUILT_IN_DRIVERS) {
    const module = (await import(join(root, entry.module))) as Record<string, (...args: never[]) => Driver>;
    const driver = entry.make(module);
    try {
      out.push({ label: entry.label, resources: driver.descriptor().resources });
    } finally {
      await driver.close();
    }
  }
  return out;
}

describe("the resources table", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("in docs/api.md matches the built-in drivers' descriptors (run node scripts/resources-table.mjs --update)", async () => {
    const page = await readFile(join(root, "docs", "api.md"), "utf8");
    expect(replaceSection(page, renderSection(await rows()))).toBe(page);
  });

  it("names every built-in driver family", () => {
    const families = readdirSync(join(root, "src", "drivers"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "stream-json")
      .map((entry) => `src/drivers/${entry.name}/index.ts`);
    expect(new Set(BUILT_IN_DRIVERS.map((driver) => driver.module))).toEqual(new Set(families));
  });

  it("renders each declaration, and a driver declaring none as refusing everything", () => {
    const section = renderSection([
      { label: "a", resources: { instructions: true, hostTools: false, skills: true, mcp: { stdio: false, http: "advertised" } } },
      { label: "b", resources: undefined },
    ]);
    expect(section).toContain("| a | ✓ | refused | ✓ | refused | when advertised |");
    expect(section).toContain("| b | refused | refused | refused | refused | refused |");
  });

  it("the script's --update rewrites only the section from the sources; a page without markers is refused", async () => {
    const dir = await mkdtemp(join(tmpdir(), "resources-table-"));
    dirs.push(dir);
    const page = join(dir, "api.md");
    await writeFile(page, `# API\n\n<!-- resources-table:start -->\n${END}\n\nafter\n`);
    await run(process.execPath, [script, "--update", "--doc", page], { cwd: root });
    expect(await readFile(page, "utf8")).toBe(`# API\n\n${renderSection(await rows())}\n\nafter\n`);
    await writeFile(page, "# API\n");
    await expect(run(process.execPath, [script, "--check", "--doc", page], { cwd: root })).rejects.toMatchObject({ code: 2 });
  }, 120_000);
});
