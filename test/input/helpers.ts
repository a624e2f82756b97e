import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";

import type { Descriptor } from "../../src/driver/types.js";
import { InputError, liveInputDirectoryCount, type InputErrorCode, type InputErrorDetails } from "../../src/input/index.js";

/** Native and workspace-reference support for every kind and media type. */
export const ALL: Descriptor["inputs"] = {
  image: { modes: ["native", "workspace_reference"], mediaTypes: ["image/*"] },
  file: { modes: ["native", "workspace_reference"] },
  audio: { modes: ["native", "workspace_reference"], mediaTypes: ["audio/*"] },
};

export const NONE: Descriptor["inputs"] = { image: { modes: [] }, file: { modes: [] }, audio: { modes: [] } };

/** Bytes that start like a PNG (the signature is all the materializer checks). */
export const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.from("\0\0\0\rIHDR not really an image")]);

/**
 * Each test file gets its own scratch directory and points the OS temp directory (which the
 * materializer creates its run directories in) at a private subdirectory, so "no directory is
 * left" can be checked by listing it, even while other test files run in parallel.
 */
export function useScratch(): { readonly dir: string; readonly runTmp: string } {
  const state = { dir: "", runTmp: "" };
  let previous: string | undefined;
  beforeAll(async () => {
    state.dir = await mkdtemp(join(tmpdir(), "input-test-"));
    state.runTmp = join(state.dir, "tmp");
    await mkdir(state.runTmp);
    previous = process.env.TMPDIR;
    process.env.TMPDIR = state.runTmp;
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    await rm(state.dir, { recursive: true, force: true });
  });
  return state;
}

/** Run directories currently present in the private temp directory. */
export async function runDirectories(runTmp: string): Promise<string[]> {
  return (await readdir(runTmp)).filter((name) => name.startsWith("agent-adaptor-inputs-"));
}

/** Asserts that nothing was left behind: no run directory on disk, none registered as live. */
export async function expectNoRunDirectories(runTmp: string): Promise<void> {
  expect(await runDirectories(runTmp)).toEqual([]);
  expect(liveInputDirectoryCount()).toBe(0);
}

export async function writeFixture(dir: string, name: string, content: string | Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

/** Awaits a rejection and checks that it is an InputError with this code and these fields. */
export async function expectInputError(
  promise: Promise<unknown> | (() => unknown),
  code: InputErrorCode,
  fields: InputErrorDetails = {},
): Promise<InputError> {
  let error: unknown;
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (caught) {
    error = caught;
  }
  expect(error, `expected InputError ${code}`).toBeInstanceOf(InputError);
  const inputError = error as InputError;
  expect({ code: inputError.code, message: inputError.message }).toMatchObject({ code });
  for (const [key, value] of Object.entries(fields)) {
    expect(inputError[key as keyof InputErrorDetails], `field ${key} of ${inputError.message}`).toBe(value);
  }
  expect(inputError.cause).toBeUndefined();
  return inputError;
}

export function signal(): AbortSignal {
  return new AbortController().signal;
}
