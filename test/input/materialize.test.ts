import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { ReadableStream } from "node:stream/web";
import { describe, expect, it } from "vitest";

import type { Descriptor } from "../../src/driver/types.js";
import {
  DEFAULT_INPUT_LIMITS,
  input,
  liveInputDirectoryCount,
  materializeInputs,
  resolveInputLimits,
  type InputDiagnostic,
  type InputRef,
  type MaterializeContext,
} from "../../src/input/index.js";
import { ALL, NONE, PNG, expectInputError, expectNoRunDirectories, runDirectories, signal, useScratch, writeFixture } from "./helpers.js";

const scratch = useScratch();
const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const context = (overrides: Partial<MaterializeContext> = {}): MaterializeContext => ({
  driverId: "test-driver",
  capabilities: ALL,
  signal: signal(),
  ...overrides,
});
const bytesOpener = (chunks: Uint8Array[]) => () => Readable.from(chunks);

describe("materializeInputs: the happy path", () => {
  it("copies, hashes and describes every input in one run-owned directory", async () => {
    const text = Buffer.from("plain text content\n");
    const textPath = await writeFixture(scratch.dir, "notes.txt", text);
    await mkdir(join(scratch.dir, "root", "sub"), { recursive: true });
    await writeFixture(join(scratch.dir, "root", "sub"), "pic.png", PNG);
    const audio = Buffer.from("ID3 not really audio");

    const refs = [
      input.fromPath("file", textPath),
      input.fromFS("image", join(scratch.dir, "root"), "sub/pic.png"),
      input.fromOpener("audio", "voice note.mp3", bytesOpener([audio.subarray(0, 5), audio.subarray(5)])),
      input.fromOpener("file", "data.bin", () => new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array([1, 2, 3])), c.close()) }), {
        mediaType: "application/octet-stream",
      }),
    ];
    const result = await materializeInputs(refs, context());
    try {
      expect(result.inputs).toHaveLength(4);
      const dir = dirname(result.inputs[0]!.localPath);
      expect(dirname(dir)).toBe(tmpdir());
      expect(basename(dir)).toMatch(/^agent-adaptor-inputs-/);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect(liveInputDirectoryCount()).toBe(1);

      const expected = [
        { id: "input_0", kind: "file", name: "notes.txt", mediaType: "text/plain", bytes: text },
        { id: "input_1", kind: "image", name: "pic.png", mediaType: "image/png", bytes: PNG },
        { id: "input_2", kind: "audio", name: "voice note.mp3", mediaType: "audio/mpeg", bytes: audio },
        { id: "input_3", kind: "file", name: "data.bin", mediaType: "application/octet-stream", bytes: Buffer.from([1, 2, 3]) },
      ];
      for (const [i, want] of expected.entries()) {
        const got = result.inputs[i]!;
        expect(got).toEqual({
          id: want.id,
          kind: want.kind,
          name: want.name,
          mediaType: want.mediaType,
          localPath: join(dir, `${i}-${want.name}`),
          size: want.bytes.length,
          sha256: sha(want.bytes),
          deliveryMode: "native",
        });
        expect(Object.isFrozen(got)).toBe(true);
        expect(await readFile(got.localPath)).toEqual(want.bytes);
        expect((await stat(got.localPath)).mode & 0o777).toBe(0o400);
      }
      // Path sources are copied, never handed through.
      expect(result.inputs[0]!.localPath).not.toBe(textPath);
      expect((await readdir(dir)).sort()).toEqual(expected.map((e, i) => `${i}-${e.name}`).sort());
    } finally {
      await result.dispose();
    }
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("dispose() is idempotent and safe when the directory is already gone", async () => {
    const result = await materializeInputs([input.fromOpener("file", "a.txt", bytesOpener([Buffer.from("a")]))], context());
    const dir = dirname(result.inputs[0]!.localPath);
    execFileSync("rm", ["-rf", dir]);
    await Promise.all([result.dispose(), result.dispose()]);
    await result.dispose();
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("creates no directory for no inputs", async () => {
    const result = await materializeInputs([], context({ capabilities: NONE }));
    expect(result.inputs).toEqual([]);
    await result.dispose();
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("sanitizes names and keeps equal names apart", async () => {
    const refs = [
      input.fromOpener("file", "../../etc/pass\nwd\u202e.txt", bytesOpener([Buffer.from("1")])),
      input.fromOpener("file", "same.txt", bytesOpener([Buffer.from("2")])),
      input.fromOpener("file", "same.txt", bytesOpener([Buffer.from("3")])),
      input.fromOpener("file", `${"é".repeat(300)}.txt`, bytesOpener([Buffer.from("4")])),
      input.fromOpener("file", "...", bytesOpener([Buffer.from("5")]), { mediaType: "text/plain" }),
    ];
    const result = await materializeInputs(refs, context());
    try {
      const names = result.inputs.map((i) => i.name);
      expect(names[0]).toBe("_.._etc_pass wd.txt");
      expect(names[1]).toBe("same.txt");
      expect(names[2]).toBe("same.txt");
      expect(names[3]!.endsWith(".txt")).toBe(true);
      expect(Buffer.byteLength(names[3]!)).toBeLessThanOrEqual(120);
      expect(names[4]).toBe("input");
      for (const resolved of result.inputs) {
        expect(resolved.name).not.toMatch(/[/\\\u0000-\u001f\u202e]/);
        expect(dirname(resolved.localPath)).toBe(dirname(result.inputs[0]!.localPath));
      }
      expect(new Set(result.inputs.map((i) => i.localPath)).size).toBe(5);
      expect((await readFile(result.inputs[2]!.localPath, "utf8"))).toBe("3");
    } finally {
      await result.dispose();
    }
  });

  it("parallel materializations never share a directory", async () => {
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        materializeInputs([input.fromOpener("file", "same.txt", bytesOpener([Buffer.from(`run ${n}`)]))], context()),
      ),
    );
    try {
      const dirs = runs.map((run) => dirname(run.inputs[0]!.localPath));
      expect(new Set(dirs).size).toBe(8);
      for (const [n, run] of runs.entries()) {
        expect(await readdir(dirs[n]!)).toEqual(["0-same.txt"]);
        expect(await readFile(run.inputs[0]!.localPath, "utf8")).toBe(`run ${n}`);
      }
      expect(liveInputDirectoryCount()).toBe(8);
    } finally {
      await Promise.all(runs.map((run) => run.dispose()));
    }
    await expectNoRunDirectories(scratch.runTmp);
  });
});

describe("materializeInputs: capabilities and modes", () => {
  const one = (kind: "image" | "file" | "audio", requireMode?: "native" | "workspace_reference"): InputRef =>
    input.fromOpener(kind, kind === "image" ? "a.png" : kind === "audio" ? "a.mp3" : "a.txt", bytesOpener([kind === "image" ? PNG : Buffer.from("x")]), {
      ...(requireMode ? { requireMode } : {}),
    });
  const caps = (image: Descriptor["inputs"]["image"]): Descriptor["inputs"] => ({ ...NONE, image });

  it("prefers native, falls back to a declared workspace reference, honours requireMode", async () => {
    const cases: [Descriptor["inputs"]["image"], "native" | "workspace_reference" | undefined, string][] = [
      [{ modes: ["native", "workspace_reference"] }, undefined, "native"],
      [{ modes: ["workspace_reference", "native"] }, undefined, "native"],
      [{ modes: ["workspace_reference"] }, undefined, "workspace_reference"],
      [{ modes: ["native", "workspace_reference"] }, "workspace_reference", "workspace_reference"],
      [{ modes: ["native"] }, "native", "native"],
    ];
    for (const [capability, requireMode, mode] of cases) {
      const result = await materializeInputs([one("image", requireMode)], context({ capabilities: caps(capability) }));
      expect(result.inputs[0]!.deliveryMode).toBe(mode);
      await result.dispose();
    }
  });

  it("input_mode_unsupported when the required mode is not declared", async () => {
    let opened = 0;
    const ref = input.fromOpener("image", "a.png", () => (opened++, Readable.from([PNG])), { requireMode: "native" });
    await expectInputError(materializeInputs([ref], context({ capabilities: caps({ modes: ["workspace_reference"] }) })), "input_mode_unsupported", {
      index: 0,
      kind: "image",
      mediaType: "image/png",
      driver: "test-driver",
    });
    await expectInputError(materializeInputs([one("image", "workspace_reference")], context({ capabilities: caps({ modes: ["native"] }) })), "input_mode_unsupported");
    expect(opened).toBe(0);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("input_kind_unsupported for empty modes or a missing kind", async () => {
    await expectInputError(materializeInputs([one("file"), one("audio")], context({ capabilities: { ...ALL, audio: { modes: [] } } })), "input_kind_unsupported", {
      index: 1,
      kind: "audio",
      driver: "test-driver",
    });
    await expectInputError(materializeInputs([one("image")], context({ capabilities: {} as Descriptor["inputs"] })), "input_kind_unsupported", { index: 0 });
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("input_media_type_unsupported when no pattern matches", async () => {
    const webp = input.fromOpener("image", "a.webp", bytesOpener([Buffer.from("RIFF\0\0\0\0WEBPVP8 ")]));
    const capabilities = caps({ modes: ["native"], mediaTypes: ["image/png", "image/jpeg"] });
    await expectInputError(materializeInputs([one("image"), webp], context({ capabilities })), "input_media_type_unsupported", {
      index: 1,
      kind: "image",
      mediaType: "image/webp",
      driver: "test-driver",
    });
    // Patterns: type/*, */*, exact, case-insensitive; undefined accepts any.
    for (const mediaTypes of [["image/*"], ["*/*"], ["IMAGE/WEBP"], undefined]) {
      const result = await materializeInputs([webp], context({ capabilities: caps({ modes: ["native"], ...(mediaTypes ? { mediaTypes } : {}) }) }));
      await result.dispose();
    }
    await expectInputError(materializeInputs([webp], context({ capabilities: caps({ modes: ["native"], mediaTypes: [] }) })), "input_media_type_unsupported");
  });

  it("refuses content that contradicts its declared media type (input_invalid)", async () => {
    const jpegDeclared = input.fromOpener("image", "photo.jpg", bytesOpener([PNG]));
    await expectInputError(materializeInputs([jpegDeclared], context()), "input_invalid", { index: 0, mediaType: "image/jpeg" });
    const fakePng = input.fromOpener("image", "photo.png", bytesOpener([Buffer.from("just text")]));
    await expectInputError(materializeInputs([fakePng], context()), "input_invalid", { index: 0, mediaType: "image/png" });
    const emptyPdf = input.fromOpener("file", "doc.pdf", bytesOpener([]));
    await expectInputError(materializeInputs([emptyPdf], context()), "input_invalid", { mediaType: "application/pdf" });
    // The signature may arrive split over chunks, and a PDF header may follow a little junk.
    const split = input.fromOpener("image", "photo.png", bytesOpener([...PNG].map((byte) => Buffer.from([byte]))));
    const pdf = input.fromOpener("file", "doc.pdf", bytesOpener([Buffer.from("\n\n%PDF-1.7\n%%EOF\n")]));
    const result = await materializeInputs([split, pdf], context());
    expect(result.inputs.map((i) => i.size)).toEqual([PNG.length, 17]);
    await result.dispose();
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("validates every reference before opening any", async () => {
    let opened = 0;
    const counting = input.fromOpener("file", "a.txt", () => (opened++, Readable.from([Buffer.from("x")])));
    await expectInputError(materializeInputs([counting, { kind: "file" } as unknown as InputRef], context()), "input_invalid", { index: 1 });
    await expectInputError(materializeInputs([counting, one("audio")], context({ capabilities: { ...ALL, audio: { modes: [] } } })), "input_kind_unsupported");
    await expectInputError(materializeInputs("nope" as never, context()), "input_invalid");
    expect(opened).toBe(0);
    await expectNoRunDirectories(scratch.runTmp);
  });
});

describe("materializeInputs: declared size and digest", () => {
  const content = Buffer.from("the declared content");

  it("accepts matching declarations (hex or bytes)", async () => {
    const path = await writeFixture(scratch.dir, "declared.txt", content);
    const result = await materializeInputs(
      [
        input.fromPath("file", path, { size: content.length, sha256: sha(content).toUpperCase() }),
        input.fromOpener("file", "d.txt", bytesOpener([content]), { size: content.length, sha256: createHash("sha256").update(content).digest() }),
      ],
      context(),
    );
    expect(result.inputs.map((i) => i.sha256)).toEqual([sha(content), sha(content)]);
    await result.dispose();
  });

  it("input_digest_mismatch for a wrong digest or size, from files and streams", async () => {
    const path = await writeFixture(scratch.dir, "declared.txt", content);
    const wrongDigest = sha("something else");
    const sources = (options: { size?: number; sha256?: string }) => [
      input.fromPath("file", path, options),
      input.fromOpener("file", "d.txt", bytesOpener([content.subarray(0, 4), content.subarray(4)]), options),
    ];
    for (const options of [{ sha256: wrongDigest }, { size: content.length - 1 }, { size: content.length + 1 }, { size: 0 }]) {
      for (const ref of sources(options)) {
        await expectInputError(materializeInputs([ref], context()), "input_digest_mismatch", { index: 0, kind: "file", driver: "test-driver" });
      }
    }
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("stops reading a stream as soon as it exceeds its declared size", async () => {
    let pulled = 0;
    // A tiny high-water mark, so what the stream produced is about what was asked of it.
    const endless = new Readable({
      highWaterMark: 1,
      read() {
        pulled++;
        this.push(Buffer.alloc(1024, 1));
      },
    });
    await expectInputError(materializeInputs([input.fromOpener("file", "e.txt", () => endless, { size: 4096 })], context()), "input_digest_mismatch");
    expect(pulled).toBeLessThan(64);
    expect(endless.destroyed).toBe(true);
  });
});

describe("materializeInputs: limits", () => {
  const small = (n: number, bytes = 1) => Array.from({ length: n }, (_, i) => input.fromOpener("file", `f${i}.txt`, bytesOpener([Buffer.alloc(bytes, 97)])));

  it("has safe non-zero defaults, and zero or undefined selects them", () => {
    expect(DEFAULT_INPUT_LIMITS).toEqual({ maxCount: 16, maxInputBytes: 64 * 2 ** 20, maxTotalBytes: 256 * 2 ** 20 });
    expect(resolveInputLimits()).toEqual(DEFAULT_INPUT_LIMITS);
    expect(resolveInputLimits({})).toEqual(DEFAULT_INPUT_LIMITS);
    expect(resolveInputLimits({ maxCount: 0, maxInputBytes: 0, maxTotalBytes: 0 })).toEqual(DEFAULT_INPUT_LIMITS);
    expect(resolveInputLimits({ maxCount: 2, maxInputBytes: 10 })).toEqual({ ...DEFAULT_INPUT_LIMITS, maxCount: 2, maxInputBytes: 10 });
  });

  it("refuses negative, fractional, infinite, non-number limits and unknown keys with input_invalid", async () => {
    for (const limits of [{ maxCount: -1 }, { maxInputBytes: 1.5 }, { maxTotalBytes: Infinity }, { maxCount: "3" }, { maxBytes: 3 }, { maxCount: NaN }]) {
      await expectInputError(() => resolveInputLimits(limits as never), "input_invalid");
      await expectInputError(materializeInputs(small(1), context({ limits: limits as never })), "input_invalid", { index: undefined });
    }
  });

  it("maxCount: the run's count", async () => {
    await expectInputError(materializeInputs(small(3), context({ limits: { maxCount: 2 } })), "input_too_large", { limit: 2, index: 2 });
    await expectInputError(materializeInputs(small(17), context()), "input_too_large", { limit: 16 });
    const ok = await materializeInputs(small(16), context());
    expect(ok.inputs).toHaveLength(16);
    await ok.dispose();
  });

  it("the driver's per-kind maxCount", async () => {
    const capabilities = { ...ALL, file: { modes: ["native" as const], maxCount: 2 } };
    const refs = [...small(2), input.fromOpener("image", "a.png", bytesOpener([PNG])), ...small(1)];
    await expectInputError(materializeInputs(refs, context({ capabilities })), "input_too_large", { index: 3, kind: "file", limit: 2, driver: "test-driver" });
  });

  it("maxInputBytes: refused at open for a file, mid-stream for an opener", async () => {
    const path = await writeFixture(scratch.dir, "big.txt", Buffer.alloc(1001, 98));
    await expectInputError(materializeInputs([input.fromPath("file", path)], context({ limits: { maxInputBytes: 1000 } })), "input_too_large", {
      index: 0,
      limit: 1000,
    });
    const exact = await materializeInputs([input.fromPath("file", path)], context({ limits: { maxInputBytes: 1001 } }));
    expect(exact.inputs[0]!.size).toBe(1001);
    await exact.dispose();

    let pulled = 0;
    // A tiny high-water mark, so what the stream produced is about what was asked of it.
    const endless = new Readable({
      highWaterMark: 1,
      read() {
        pulled++;
        this.push(Buffer.alloc(100, 1));
      },
    });
    await expectInputError(materializeInputs([input.fromOpener("file", "s.txt", () => endless)], context({ limits: { maxInputBytes: 1000 } })), "input_too_large", {
      limit: 1000,
    });
    expect(pulled).toBeLessThan(40);
    expect(endless.destroyed).toBe(true);
    // A declared size over the limit is refused before the source is opened.
    let opened = 0;
    const declared = input.fromOpener("file", "d.txt", () => (opened++, Readable.from([])), { size: 1001 });
    await expectInputError(materializeInputs([declared], context({ limits: { maxInputBytes: 1000 } })), "input_too_large", { limit: 1000 });
    expect(opened).toBe(0);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("the driver's maxBytes when smaller than the host's", async () => {
    const capabilities = { ...ALL, image: { modes: ["native" as const], maxBytes: 10 } };
    const big = input.fromOpener("image", "a.png", bytesOpener([PNG]));
    await expectInputError(materializeInputs([big], context({ capabilities })), "input_too_large", { limit: 10, kind: "image", driver: "test-driver" });
    // A larger driver limit does not lift the host's.
    const loose = { ...ALL, file: { modes: ["native" as const], maxBytes: 10_000 } };
    await expectInputError(materializeInputs(small(1, 200), context({ capabilities: loose, limits: { maxInputBytes: 100 } })), "input_too_large", { limit: 100 });
  });

  it("maxTotalBytes: enforced during the copy of the input that crosses it", async () => {
    const path = await writeFixture(scratch.dir, "sixty.txt", Buffer.alloc(60, 99));
    let pulled = 0;
    // A tiny high-water mark, so what the stream produced is about what was asked of it.
    const endless = new Readable({
      highWaterMark: 1,
      read() {
        pulled++;
        this.push(Buffer.alloc(10, 1));
      },
    });
    const refs = [input.fromPath("file", path), input.fromOpener("file", "s.txt", () => endless)];
    await expectInputError(materializeInputs(refs, context({ limits: { maxTotalBytes: 100 } })), "input_too_large", { index: 1, limit: 100 });
    expect(pulled).toBeLessThan(20);
    expect(endless.destroyed).toBe(true);
    // A file source is refused at open when its size would cross the total.
    const second = await writeFixture(scratch.dir, "fifty.txt", Buffer.alloc(50, 99));
    await expectInputError(
      materializeInputs([input.fromPath("file", path), input.fromPath("file", second)], context({ limits: { maxTotalBytes: 100 } })),
      "input_too_large",
      { index: 1, limit: 100 },
    );
    // Declared sizes are summed before anything is opened.
    await expectInputError(
      materializeInputs([input.fromPath("file", path, { size: 60 }), input.fromPath("file", second, { size: 50 })], context({ limits: { maxTotalBytes: 100 } })),
      "input_too_large",
      { index: 1, limit: 100 },
    );
    const fits = await materializeInputs([input.fromPath("file", path), input.fromPath("file", path)], context({ limits: { maxTotalBytes: 120 } }));
    await fits.dispose();
    await expectNoRunDirectories(scratch.runTmp);
  });
});

describe("materializeInputs: sources that cannot be read", () => {
  it("input_materialization_failed: missing file, directory, FIFO, unreadable", async () => {
    const dir = join(scratch.dir, "not-a-file.txt");
    await mkdir(dir, { recursive: true });
    const fifo = join(scratch.dir, "fifo.txt");
    execFileSync("mkfifo", [fifo]);
    const cases = [join(scratch.dir, "missing.txt"), dir, fifo, "/dev/null.txt"];
    for (const path of cases) {
      await expectInputError(materializeInputs([input.fromPath("file", path)], context()), "input_materialization_failed", { index: 0, kind: "file" });
    }
    await expectInputError(materializeInputs([input.fromPath("file", "/dev/zero", { mediaType: "application/octet-stream" })], context()), "input_materialization_failed");
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("input_materialization_failed: an opener that throws, rejects, returns no stream, or streams non-bytes", async () => {
    const diagnostics: InputDiagnostic[] = [];
    const openers = [
      () => {
        throw new Error("opener secret token-123");
      },
      () => Promise.reject(new Error("opener secret token-123")),
      () => "not a stream" as never,
      () => Readable.from(["a string chunk"]),
      () => new Readable({ read() { this.destroy(new Error("stream secret token-123")); } }),
      () => new ReadableStream({ pull: (c) => c.error(new Error("web secret token-123")) }),
    ];
    for (const open of openers) {
      const error = await expectInputError(
        materializeInputs([input.fromOpener("file", "o.txt", open)], context({ onDiagnostic: (d) => diagnostics.push(d) })),
        "input_materialization_failed",
        { index: 0 },
      );
      expect(JSON.stringify(error) + error.message + error.stack).not.toContain("token-123");
    }
    const withCause = diagnostics.filter((d) => String((d.cause as Error | undefined)?.message).includes("token-123"));
    expect(withCause).toHaveLength(4);
    expect(withCause.every((d) => d.index === 0 && d.code === "input_materialization_failed")).toBe(true);
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("calls an opener once and gives it a signal; a throwing diagnostic hook changes nothing", async () => {
    const signals: AbortSignal[] = [];
    const ref = input.fromOpener("file", "o.txt", (s) => (signals.push(s), Readable.from([Buffer.from("once")])));
    const result = await materializeInputs([ref], context());
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
    await result.dispose();
    await expectInputError(
      materializeInputs([input.fromPath("file", join(scratch.dir, "missing.txt"))], context({ onDiagnostic: () => { throw new Error("hook"); } })),
      "input_materialization_failed",
    );
    expect(await runDirectories(scratch.runTmp)).toEqual([]);
  });
});
