/**
 * Property: whatever the bytes and however they are chunked, the materialized size and SHA-256
 * equal Node's crypto over the same bytes, and the materialized file holds exactly those bytes.
 */
import fc from "fast-check";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import { ReadableStream } from "node:stream/web";
import { describe, expect, it } from "vitest";

import { input, materializeInputs } from "../../src/input/index.js";
import { ALL, expectNoRunDirectories, signal, useScratch, writeFixture } from "./helpers.js";

const scratch = useScratch();
const OCTETS = { mediaType: "application/octet-stream" } as const;

/** Splits `bytes` at the given cut points. */
function chunked(bytes: Uint8Array, seeds: number[]): Uint8Array[] {
  const cuts = [...new Set(seeds.map((s) => s % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > at) chunks.push(bytes.subarray(at, cut));
    at = cut;
  }
  return chunks;
}

/** Deterministic pseudo-random bytes (xorshift32), fast enough for multi-MiB cases. */
function pseudoRandom(length: number, seed: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let x = seed | 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

async function check(bytes: Uint8Array, seeds: number[], n: number): Promise<void> {
  const expected = { size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
  const path = await writeFixture(scratch.dir, `p${n}.bin`, bytes);
  const refs = [
    input.fromPath("file", path, OCTETS),
    input.fromFS("file", scratch.dir, `p${n}.bin`, OCTETS),
    input.fromOpener("file", "node.bin", () => Readable.from(chunked(bytes, seeds)), OCTETS),
    input.fromOpener(
      "file",
      "web.bin",
      () => {
        const chunks = chunked(bytes, seeds);
        return new ReadableStream<Uint8Array>({
          pull(controller) {
            const next = chunks.shift();
            if (next === undefined) controller.close();
            else controller.enqueue(next);
          },
        });
      },
      OCTETS,
    ),
  ];
  const result = await materializeInputs(refs, { driverId: "d", capabilities: ALL, signal: signal(), limits: { maxInputBytes: 2 ** 30, maxTotalBytes: 2 ** 32 } });
  try {
    for (const resolved of result.inputs) {
      expect({ size: resolved.size, sha256: resolved.sha256 }).toEqual(expected);
      expect((await readFile(resolved.localPath)).equals(bytes)).toBe(true);
    }
  } finally {
    await result.dispose();
  }
}

describe("property: size and SHA-256 match node:crypto over the same bytes", () => {
  it("small contents, any chunking", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 70_000 }), fc.array(fc.nat(), { maxLength: 12 }), (bytes, seeds) => check(bytes, seeds, n++)),
      { numRuns: 60 },
    );
    await expectNoRunDirectories(scratch.runTmp);
  });

  it("multi-chunk contents around the file read size", async () => {
    const MiB = 1024 * 1024;
    let n = 1000;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 2 * MiB - 2, max: 2 * MiB + 2 }), fc.integer({ min: 0, max: 7 * MiB })),
        fc.integer(),
        fc.array(fc.nat(), { maxLength: 20 }),
        (length, seed, seeds) => check(pseudoRandom(length, seed), seeds, n++),
      ),
      { numRuns: 15 },
    );
    await expectNoRunDirectories(scratch.runTmp);
  });
});
