/**
 * No error ever shows the source path, the content, or an opener's error text: a scan of every
 * error's message, stack, JSON, inspection and cause chain, for every error code, plus the
 * resolved inputs of a successful run. The diagnostic hook is where the detail goes instead.
 */
import { mkdir, appendFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

import type { Descriptor } from "../../src/driver/types.js";
import { input, InputError, materializeInputs, type InputDiagnostic, type InputRef, type MaterializeContext } from "../../src/input/index.js";
import { materializeTestHooks } from "../../src/input/materialize.js";
import { ALL, NONE, expectNoRunDirectories, signal, useScratch, writeFixture } from "./helpers.js";

const scratch = useScratch();
const SECRET_DIR = "secret-dir-5f2c";
const CANARY = "CANARY-7d41e9-content";
const OPENER_SECRET = "opener-said-token-93ab";

afterEach(() => {
  delete materializeTestHooks.afterOpen;
});

/** Every string an error exposes, including its whole cause chain. */
function exposedText(error: unknown, seen = new Set<unknown>()): string {
  if (error === undefined || error === null || seen.has(error)) return "";
  seen.add(error);
  const parts = [String(error), inspect(error, { depth: Infinity, showHidden: true })];
  try {
    parts.push(JSON.stringify(error));
  } catch {
    // Not serializable: inspection covers it.
  }
  if (error instanceof Error) {
    parts.push(error.message, error.stack ?? "");
    for (const key of Object.getOwnPropertyNames(error)) parts.push(String((error as unknown as Record<string, unknown>)[key]));
    parts.push(exposedText(error.cause, seen));
  }
  return parts.join("\n");
}

describe("errors never expose paths, content or opener text", () => {
  it("across every error code", async () => {
    const dir = join(scratch.dir, SECRET_DIR);
    await mkdir(dir);
    const content = `${CANARY}\n`.repeat(100);
    const text = await writeFixture(dir, "notes.txt", content);
    const fakePng = await writeFixture(dir, "photo.png", content);
    await symlink(text, join(dir, "link.txt"));
    const diagnostics: InputDiagnostic[] = [];
    const ctx = (overrides: Partial<MaterializeContext> = {}): MaterializeContext => ({
      driverId: "d",
      capabilities: ALL,
      signal: signal(),
      onDiagnostic: (d) => diagnostics.push(d),
      ...overrides,
    });
    const onlyImages: Descriptor["inputs"] = { ...NONE, image: { modes: ["workspace_reference"], mediaTypes: ["image/jpeg"] } };
    const cases: [string, () => Promise<unknown> | unknown][] = [
      ["kind mismatch at creation", () => input.fromPath("image", text)],
      ["unknown extension", () => input.fromPath("file", join(dir, `${CANARY}.zzz`))],
      ["escape", () => input.fromFS("file", dir, `../../${SECRET_DIR}/x.txt`)],
      ["content mismatch", () => materializeInputs([input.fromPath("image", fakePng)], ctx())],
      ["kind unsupported", () => materializeInputs([input.fromPath("file", text)], ctx({ capabilities: onlyImages }))],
      ["media type unsupported", () => materializeInputs([input.fromPath("image", fakePng)], ctx({ capabilities: onlyImages }))],
      ["mode unsupported", () => materializeInputs([input.fromPath("file", text, { requireMode: "native" })], ctx({ capabilities: { ...ALL, file: { modes: ["workspace_reference"] } } }))],
      ["too large", () => materializeInputs([input.fromPath("file", text)], ctx({ limits: { maxInputBytes: 10 } }))],
      ["digest mismatch", () => materializeInputs([input.fromPath("file", text, { sha256: "0".repeat(64) })], ctx())],
      ["size mismatch", () => materializeInputs([input.fromPath("file", text, { size: 3 })], ctx())],
      ["missing", () => materializeInputs([input.fromPath("file", join(dir, `${CANARY}.txt`))], ctx())],
      ["symlink", () => materializeInputs([input.fromPath("file", join(dir, "link.txt"))], ctx())],
      ["escaping fs", () => materializeInputs([input.fromFS("file", join(dir, "sub-missing"), "x.txt")], ctx())],
      [
        "mutated",
        () => {
          materializeTestHooks.afterOpen = () => appendFile(text, CANARY);
          return materializeInputs([input.fromPath("file", text)], ctx());
        },
      ],
      ["opener throws", () => materializeInputs([input.fromOpener("file", "o.txt", () => { throw new Error(OPENER_SECRET); })], ctx())],
      ["opener rejects", () => materializeInputs([input.fromOpener("file", "o.txt", () => Promise.reject(new Error(OPENER_SECRET)))], ctx())],
      [
        "stream errors",
        () => materializeInputs([input.fromOpener("file", "o.txt", () => new Readable({ read() { this.destroy(new Error(OPENER_SECRET)); } }))], ctx()),
      ],
      ["forged ref", () => materializeInputs([{ kind: "file", path: text } as unknown as InputRef], ctx())],
    ];
    const codes = new Set<string>();
    for (const [label, run] of cases) {
      let caught: unknown;
      try {
        await run();
      } catch (error) {
        caught = error;
      }
      materializeTestHooks.afterOpen = undefined;
      expect(caught, label).toBeInstanceOf(InputError);
      codes.add((caught as InputError).code);
      expect((caught as InputError).cause, label).toBeUndefined();
      const exposed = exposedText(caught);
      for (const secret of [SECRET_DIR, CANARY, OPENER_SECRET, scratch.dir]) expect(exposed, `${label}: ${secret}`).not.toContain(secret);
    }
    expect([...codes].sort()).toEqual([
      "input_digest_mismatch",
      "input_invalid",
      "input_kind_unsupported",
      "input_materialization_failed",
      "input_media_type_unsupported",
      "input_mode_unsupported",
      "input_too_large",
    ]);
    // The detail went to the hook instead.
    const detail = diagnostics.map((d) => exposedText(d.cause)).join("\n");
    expect(detail).toContain(SECRET_DIR);
    expect(detail).toContain(OPENER_SECRET);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("resolved inputs hold the sanitized name and the run-owned path, never the source path or content", async () => {
    const dir = join(scratch.dir, `${SECRET_DIR}-ok`);
    await mkdir(dir);
    const path = await writeFixture(dir, "report.txt", CANARY);
    const result = await materializeInputs([input.fromPath("file", path)], { driverId: "d", capabilities: ALL, signal: signal() });
    try {
      const shown = JSON.stringify(result.inputs) + inspect(result, { depth: Infinity });
      expect(shown).not.toContain(SECRET_DIR);
      expect(shown).not.toContain(CANARY);
      expect(result.inputs[0]!.name).toBe("report.txt");
    } finally {
      await result.dispose();
    }
  });
});
