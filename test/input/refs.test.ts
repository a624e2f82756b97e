import { createHash } from "node:crypto";
import { join } from "node:path";
import { Readable } from "node:stream";
import { inspect } from "node:util";
import { describe, expect, it, vi } from "vitest";

import { AdaptorError } from "../../src/errors/index.js";
import { input, InputError, InputRef, materializeInputs, type InputRefOptions } from "../../src/input/index.js";
import { ALL, expectInputError, expectNoRunDirectories, signal, useScratch, writeFixture } from "./helpers.js";

const scratch = useScratch();
const opener = () => Readable.from([Buffer.from("x")]);

describe("input references: eager validation", () => {
  it("rejects an unknown kind with input_invalid and no index", async () => {
    for (const make of [
      () => input.fromPath("video" as never, "/a.png"),
      () => input.fromFS("" as never, "/root", "a.png"),
      () => input.fromOpener(undefined as never, "a.png", opener),
    ]) {
      const error = await expectInputError(make, "input_invalid");
      expect(error.index).toBeUndefined();
      expect(AdaptorError.is(error)).toBe(true);
      expect(InputError.isInputError(error)).toBe(true);
    }
  });

  it("rejects empty, non-string and NUL-bearing paths", async () => {
    await expectInputError(() => input.fromPath("file", ""), "input_invalid");
    await expectInputError(() => input.fromPath("file", 42 as never), "input_invalid");
    await expectInputError(() => input.fromPath("file", "/tmp/a\0.txt"), "input_invalid");
    await expectInputError(() => input.fromFS("file", "", "a.txt"), "input_invalid");
  });

  it("fromFS rejects .. escapes, absolute paths outside the root and the root itself", async () => {
    await expectInputError(() => input.fromFS("file", "/srv/root", "../etc/passwd.txt"), "input_invalid");
    await expectInputError(() => input.fromFS("file", "/srv/root", "a/../../b.txt"), "input_invalid");
    await expectInputError(() => input.fromFS("file", "/srv/root", ".."), "input_invalid");
    await expectInputError(() => input.fromFS("file", "/srv/root", "/etc/passwd.txt"), "input_invalid");
    await expectInputError(() => input.fromFS("file", "/srv/root", "/srv/rootx/a.txt"), "input_invalid");
    await expectInputError(() => input.fromFS("file", "/srv/root", "."), "input_invalid");
    // Staying inside is fine, also spelled absolutely or with a harmless "..".
    expect(input.fromFS("file", "/srv/root", "a/../b.txt").kind).toBe("file");
    expect(input.fromFS("file", "/srv/root", "/srv/root/sub/b.txt").kind).toBe("file");
    expect(input.fromFS("file", "/srv/root", "..b.txt").kind).toBe("file");
  });

  it("checks every option", async () => {
    const bad: [string, InputRefOptions | unknown][] = [
      ["unknown key", { mimeType: "image/png" }],
      ["not an object", "image/png"],
      ["null", null],
      ["array", []],
      ["empty name", { name: "" }],
      ["parameters", { mediaType: "text/plain; charset=utf-8" }],
      ["no subtype", { mediaType: "image" }],
      ["wildcard", { mediaType: "image/*" }],
      ["negative size", { size: -1 }],
      ["fractional size", { size: 1.5 }],
      ["infinite size", { size: Infinity }],
      ["short hex", { sha256: "ab" }],
      ["non-hex", { sha256: "z".repeat(64) }],
      ["31 bytes", { sha256: new Uint8Array(31) }],
      ["number digest", { sha256: 5 }],
      ["bad mode", { requireMode: "inline" }],
    ];
    for (const [label, options] of bad) {
      const error = await expectInputError(() => input.fromPath("image", "/a.png", options as InputRefOptions), "input_invalid");
      expect(error.message, label).not.toContain("/a.png");
    }
    // fromOpener takes its name positionally.
    await expectInputError(() => input.fromOpener("file", "a.txt", opener, { name: "b.txt" } as never), "input_invalid");
    await expectInputError(() => input.fromOpener("file", "", opener), "input_invalid", { kind: "file" });
    await expectInputError(() => input.fromOpener("file", "a.txt", "not a function" as never), "input_invalid", { kind: "file" });
  });

  it("infers the media type from the extension, or asks for one", async () => {
    expect(input.fromPath("image", "/x/photo.JPG").kind).toBe("image");
    await expectInputError(() => input.fromPath("file", "/x/archive.unknownext"), "input_invalid", { kind: "file" });
    await expectInputError(() => input.fromPath("file", "/x/no-extension"), "input_invalid");
    expect(input.fromPath("file", "/x/no-extension", { mediaType: "Application/Octet-Stream" }).kind).toBe("file");
    // A media type that contradicts the kind.
    await expectInputError(() => input.fromPath("image", "/x/notes.txt"), "input_invalid", { kind: "image", mediaType: "text/plain" });
    await expectInputError(() => input.fromPath("audio", "/x/a.png"), "input_invalid", { kind: "audio" });
  });
});

describe("input references: opaque, immutable, detached", () => {
  it("shows only the kind", () => {
    const path = "/very/secret/location/photo.png";
    const ref = input.fromPath("image", path, { sha256: "a".repeat(64), size: 3 });
    expect(Object.keys(ref)).toEqual(["kind"]);
    expect(Reflect.ownKeys(ref)).toEqual(["kind"]);
    expect(JSON.stringify(ref)).toBe('{"kind":"image"}');
    expect(inspect(ref, { showHidden: true, depth: 10 })).not.toContain("secret");
    expect(String(ref)).not.toContain("secret");
    expect(ref).toBeInstanceOf(InputRef);
  });

  it("is frozen", () => {
    const ref = input.fromPath("image", "/a.png");
    expect(Object.isFrozen(ref)).toBe(true);
    expect(() => {
      (ref as { kind: string }).kind = "file";
    }).toThrow(TypeError);
    expect(Object.isFrozen(input)).toBe(true);
  });

  it("cannot be constructed or forged", async () => {
    expect(() => new (InputRef as unknown as new () => InputRef)()).toThrow(InputError);
    const forged = Object.freeze({ kind: "image" }) as unknown as InputRef;
    await expectInputError(materializeInputs([forged], { driverId: "d", capabilities: ALL, signal: signal() }), "input_invalid", {
      index: 0,
      driver: "d",
    });
  });

  it("ignores later changes to the caller's options and digest bytes", async () => {
    const content = Buffer.from("hello detached world");
    const path = await writeFixture(scratch.dir, "detached.txt", content);
    const expected = createHash("sha256").update(content).digest("hex");
    const digest = createHash("sha256").update(content).digest();
    const options = { mediaType: "text/plain", size: content.length, sha256: digest as Uint8Array, name: "shown.txt" };
    const ref = input.fromPath("file", path, options);
    // Mutate everything the caller still holds.
    digest.fill(0);
    options.mediaType = "image/png";
    options.size = 1;
    options.name = "changed.png";

    const result = await materializeInputs([ref], { driverId: "d", capabilities: ALL, signal: signal() });
    try {
      expect(result.inputs[0]).toMatchObject({ name: "shown.txt", mediaType: "text/plain", size: content.length, sha256: expected });
    } finally {
      await result.dispose();
    }
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("copies the digest bytes at creation", async () => {
    const content = Buffer.from("digest copy");
    const path = await writeFixture(scratch.dir, "digest.txt", content);
    const bytes = new Uint8Array(createHash("sha256").update(content).digest());
    const ref = input.fromPath("file", path, { sha256: bytes });
    bytes.fill(7);
    const result = await materializeInputs([ref], { driverId: "d", capabilities: ALL, signal: signal() });
    await result.dispose();
  });

  it("has no URL source: a URL is a path, never fetched", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    try {
      const ref = input.fromPath("image", "https://example.invalid/cat.png");
      await expectInputError(
        materializeInputs([ref], { driverId: "d", capabilities: ALL, signal: signal() }),
        "input_materialization_failed",
        { index: 0 },
      );
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
    }
    expect(Object.keys(input).sort()).toEqual(["fromFS", "fromOpener", "fromPath"]);
    await expectNoRunDirectories(scratch.runTmp);
  });
});

describe("path resolution", () => {
  it("resolves a relative path against the working directory at creation", async () => {
    const content = Buffer.from("relative");
    await writeFixture(scratch.dir, "rel.txt", content);
    const before = process.cwd();
    process.chdir(scratch.dir);
    let ref: InputRef;
    try {
      ref = input.fromPath("file", "rel.txt");
    } finally {
      process.chdir(before);
    }
    const result = await materializeInputs([ref], { driverId: "d", capabilities: ALL, signal: signal() });
    try {
      expect(result.inputs[0]!.size).toBe(content.length);
      expect(result.inputs[0]!.localPath).not.toBe(join(scratch.dir, "rel.txt"));
    } finally {
      await result.dispose();
    }
  });
});
