/**
 * The per-driver tool-fields table: what the recorder counts as observed, and docs/api.md's table
 * is the one scripts/tool-fields.mjs renders from the checked-in fixtures.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { fileChange } from "../../src/driver/kit/diff.js";
import type { DriverEvent } from "../../src/events/types.js";
import { observeToolFields } from "./tool-fields.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const script = join(root, "scripts", "tool-fields.mjs");
const run = promisify(execFile);

async function render(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, [script, ...args], { cwd: root });
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string };
    return { code: failed.code ?? -1, stderr: failed.stderr ?? "" };
  }
}

describe("observeToolFields", () => {
  it("records per kind the fields the events carry, by each call's kind", () => {
    const events: DriverEvent[] = [
      { type: "tool.started", callId: "c1", kind: "command", name: "Bash", title: "ls", command: "ls", rawInput: { command: "ls" } },
      { type: "tool.updated", callId: "c1", output: "a\n" },
      { type: "tool.completed", callId: "c1", status: "completed", exitCode: 0 },
      { type: "tool.started", callId: "f1", kind: "file_change", title: "write", files: [{ path: "x.txt", change: "added" }] },
      { type: "tool.completed", callId: "f1", status: "completed", files: [fileChange("x.txt", undefined, "hi\n")] },
    ];
    expect(observeToolFields(events)).toEqual({
      command: ["started.name", "started.command", "started.rawInput", "updated.output", "completed.exitCode"],
      file_change: ["started.files", "completed.files", "files.diff"],
    });
  });

  it("does not count a diff that is not a unified diff naming the file, nor empty output", () => {
    const events: DriverEvent[] = [
      { type: "tool.started", callId: "f1", kind: "file_change", title: "write" },
      { type: "tool.updated", callId: "f1", output: "", files: [{ path: "x.txt", change: "added", diff: "hi\n" }] },
      { type: "tool.completed", callId: "f1", status: "completed", files: [{ ...fileChange("y.txt", "a\n", "b\n"), path: "x.txt" }] },
    ];
    expect(observeToolFields(events)).toEqual({ file_change: ["updated.files", "completed.files"] });
  });
});

describe("scripts/tool-fields.mjs", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("--check passes: docs/api.md's table matches test/fixtures/tool-fields", async () => {
    expect(await render("--check")).toEqual({ code: 0, stderr: "" });
  });

  it("--check fails on a stale table and --update renders one column per recorded driver", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tool-fields-"));
    dirs.push(dir);
    const page = join(dir, "api.md");
    await writeFile(page, "# API\n\n<!-- tool-fields:start -->\n<!-- tool-fields:end -->\n\nafter\n");
    await writeFile(join(dir, "zeta.json"), JSON.stringify({ driver: "zeta", kinds: { command: ["started.command"] } }));
    await writeFile(join(dir, "alpha.json"), JSON.stringify({ driver: "alpha", kinds: { command: ["started.command", "completed.exitCode"] } }));
    expect((await render("--check", "--doc", page, "--fixtures", dir)).code).toBe(1);
    expect((await render("--update", "--doc", page, "--fixtures", dir)).code).toBe(0);
    const text = await readFile(page, "utf8");
    expect(text).toContain("| field | alpha | zeta |");
    expect(text).toContain("| `tool.completed.exitCode` | ✓ | – |");
    expect(text.endsWith("<!-- tool-fields:end -->\n\nafter\n")).toBe(true);
    expect((await render("--check", "--doc", page, "--fixtures", dir)).code).toBe(0);
  });

  it("refuses a page without the markers", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tool-fields-"));
    dirs.push(dir);
    const page = join(dir, "api.md");
    await writeFile(page, "# API\n");
    const result = await render("--check", "--doc", page);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("markers");
  });
});
